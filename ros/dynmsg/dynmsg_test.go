package dynmsg_test

import (
	"bytes"
	"errors"
	"math"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/afor-go/afor/ros/cdr"
	"github.com/afor-go/afor/ros/dynmsg"
	"github.com/afor-go/afor/ros/msgs/builtin_interfaces"
	"github.com/afor-go/afor/ros/msgs/geometry_msgs"
	"github.com/afor-go/afor/ros/msgs/sensor_msgs"
	"github.com/afor-go/afor/ros/msgs/std_msgs"
	"github.com/afor-go/afor/ros/msgs/test_msgs"
)

func TestNewTypeNamesAndHash(t *testing.T) {
	reg := registry(t)
	for _, name := range []string{"std_msgs/msg/String", "std_msgs/String"} {
		typ := mustType(t, reg, name)
		if typ.Name() != "std_msgs/msg/String" {
			t.Errorf("Name() = %q", typ.Name())
		}
		if want := (std_msgs.String{}).TypeHash(); typ.Hash() != want {
			t.Errorf("Hash() = %q, want %q", typ.Hash(), want)
		}
	}
	if got := mustType(t, reg, "sensor_msgs/msg/Image").Hash(); got != (sensor_msgs.Image{}).TypeHash() {
		t.Errorf("Image hash %s", got)
	}
	if got, want := mustType(t, reg, "std_msgs/msg/Header").Fields(), []string{"stamp", "frame_id"}; !reflect.DeepEqual(got, want) {
		t.Errorf("Fields() = %v, want %v", got, want)
	}
	for _, bad := range []string{"std_msgs/msg/Nope", "nope/Nope", "std_srvs/srv/SetBool", "bad"} {
		_, err := dynmsg.NewType(reg, bad)
		if err == nil {
			t.Errorf("NewType(%q) succeeded", bad)
		}
	}
	if _, err := dynmsg.NewType(reg, "std_msgs/msg/Nope"); !errors.Is(err, dynmsg.ErrUnknownType) {
		t.Errorf("unknown type: %v, want ErrUnknownType", err)
	}
}

func TestServiceAndActionTypes(t *testing.T) {
	reg := registry(t)
	req, res, err := dynmsg.ServiceTypes(reg, "example_interfaces/AddTwoInts")
	if err != nil {
		t.Fatal(err)
	}
	if req.Name() != "example_interfaces/srv/AddTwoInts_Request" || res.Name() != "example_interfaces/srv/AddTwoInts_Response" {
		t.Errorf("ServiceTypes = %s, %s", req.Name(), res.Name())
	}
	if _, _, err := dynmsg.ServiceTypes(reg, "std_msgs/msg/String"); !errors.Is(err, dynmsg.ErrUnknownType) {
		t.Errorf("ServiceTypes(message) = %v", err)
	}
	p, err := dynmsg.ActionTypes(reg, "example_interfaces/action/Fibonacci")
	if err != nil {
		t.Fatal(err)
	}
	for got, want := range map[*dynmsg.Type]string{
		p.Goal: "example_interfaces/action/Fibonacci_Goal", p.Result: "example_interfaces/action/Fibonacci_Result",
		p.Feedback:          "example_interfaces/action/Fibonacci_Feedback",
		p.SendGoalRequest:   "example_interfaces/action/Fibonacci_SendGoal_Request",
		p.SendGoalResponse:  "example_interfaces/action/Fibonacci_SendGoal_Response",
		p.GetResultRequest:  "example_interfaces/action/Fibonacci_GetResult_Request",
		p.GetResultResponse: "example_interfaces/action/Fibonacci_GetResult_Response",
		p.FeedbackMessage:   "example_interfaces/action/Fibonacci_FeedbackMessage",
		p.CancelGoalRequest: "action_msgs/srv/CancelGoal_Request", p.CancelGoalResponse: "action_msgs/srv/CancelGoal_Response",
		p.Status: "action_msgs/msg/GoalStatusArray",
	} {
		if got.Name() != want {
			t.Errorf("action part %s, want %s", got.Name(), want)
		}
	}
	if got := p.SendGoalRequest.Fields(); !reflect.DeepEqual(got, []string{"goal_id", "goal"}) {
		t.Errorf("SendGoal_Request fields %v", got)
	}
	if _, err := dynmsg.ActionTypes(reg, "example_interfaces/srv/AddTwoInts"); !errors.Is(err, dynmsg.ErrUnknownType) {
		t.Errorf("ActionTypes(service) = %v", err)
	}
}

func TestZeroHasDefaults(t *testing.T) {
	reg := registry(t)
	z := mustType(t, reg, "test_msgs/msg/Defaults").Zero()
	want := dynmsg.Message{
		"bool_value": true, "byte_value": uint8(50), "char_value": uint8(100),
		"float32_value": float32(1.125), "float64_value": 1.125,
		"int8_value": int8(-50), "uint8_value": uint8(200), "int16_value": int16(-1000),
		"uint16_value": uint16(2000), "int32_value": int32(-30000), "uint32_value": uint32(60000),
		"int64_value": int64(-40000000), "uint64_value": uint64(50000000),
	}
	if !reflect.DeepEqual(z, want) {
		t.Errorf("Zero() = %v\nwant %v", z, want)
	}
	a := mustType(t, reg, "test_msgs/msg/Arrays").Zero()
	if got := a["float64_values"]; !reflect.DeepEqual(got, []float64{0, 0, 0}) {
		t.Errorf("fixed array zero = %#v", got)
	}
	if got := a["string_values_default"]; !reflect.DeepEqual(got, []string{"", "max value", "min value"}) {
		t.Errorf("string array default = %#v", got)
	}
	if got := a["basic_types_values"].([]dynmsg.Message); len(got) != 3 || got[0]["int8_value"] != int8(0) {
		t.Errorf("nested array zero = %#v", got)
	}
	// Zero returns fresh values: changing one leaves the next alone.
	a["string_values_default"].([]string)[0] = "changed"
	if got := mustType(t, reg, "test_msgs/msg/Arrays").Zero()["string_values_default"].([]string)[0]; got != "" {
		t.Errorf("a default was shared: %q", got)
	}
	if got := mustType(t, reg, "test_msgs/msg/UnboundedSequences").Zero()["int32_values"]; !reflect.DeepEqual(got, []int32{}) {
		t.Errorf("sequence zero = %#v", got)
	}
}

// TestMatchesGeneratedCode checks Decode and Encode against the generated
// types of package msgs, byte for byte.
func TestMatchesGeneratedCode(t *testing.T) {
	reg := registry(t)
	img := &sensor_msgs.Image{
		Header: std_msgs.Header{Stamp: builtin_interfaces.Time{Sec: 7, Nanosec: 9}, FrameID: "cam"},
		Height: 2, Width: 3, Encoding: "mono8", Step: 3, Data: []byte{1, 2, 3, 4, 5, 6},
	}
	pose := &geometry_msgs.PoseStamped{}
	pose.Pose.Position.X = 1.5
	pose.Pose.Orientation.W = 1
	arrays := &test_msgs.Arrays{}
	arrays.Float32Values = [3]float32{1, -2.5, float32(math.Inf(1))}
	arrays.StringValues = [3]string{"a", "", "ccc"}
	arrays.BasicTypesValues[1].Int64Value = -5
	seqs := &test_msgs.UnboundedSequences{
		BoolValues:       []bool{true, false},
		Int16Values:      []int16{-1, 2},
		StringValues:     []string{"x", "yy"},
		BasicTypesValues: []test_msgs.BasicTypes{{Uint64Value: math.MaxUint64}},
		AlignmentCheck:   7,
	}
	for _, gen := range []cdr.Message{img, pose, arrays, seqs, &std_msgs.String{Data: "hello"}} {
		want, err := cdr.Marshal(gen)
		if err != nil {
			t.Fatal(err)
		}
		typ := mustType(t, reg, gen.TypeName())
		m, err := typ.Decode(want)
		if err != nil {
			t.Fatalf("%s: Decode: %v", gen.TypeName(), err)
		}
		got, err := typ.Encode(m)
		if err != nil {
			t.Fatalf("%s: Encode: %v", gen.TypeName(), err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s: Encode(Decode(x)) differs from x:\n got %x\nwant %x", gen.TypeName(), got, want)
		}
	}
	m, err := mustType(t, reg, "sensor_msgs/msg/Image").Decode(mustMarshal(t, img))
	if err != nil {
		t.Fatal(err)
	}
	if m["encoding"] != "mono8" || !bytes.Equal(m["data"].([]byte), img.Data) || m["header"].(dynmsg.Message)["stamp"].(dynmsg.Message)["nanosec"] != uint32(9) {
		t.Errorf("decoded Image = %v", m)
	}
}

func mustMarshal(t testing.TB, m cdr.Message) []byte {
	t.Helper()
	b, err := cdr.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestEncodeAcceptsLooseGoValues(t *testing.T) {
	reg := registry(t)
	typ := mustType(t, reg, "test_msgs/msg/UnboundedSequences")
	loose := dynmsg.Message{
		"int32_values":       []any{1, int64(-2), uint8(3), 4.0}, // any integer, or a float holding one
		"float32_values":     []int{1, 2},
		"float64_values":     []any{float32(0.5), 3},
		"string_values":      []any{"a"},
		"basic_types_values": []any{dynmsg.Message{"int8_value": -1}},
	}
	data, err := typ.Encode(loose)
	if err != nil {
		t.Fatal(err)
	}
	m, err := typ.Decode(data)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(m["int32_values"], []int32{1, -2, 3, 4}) || !reflect.DeepEqual(m["float32_values"], []float32{1, 2}) ||
		!reflect.DeepEqual(m["float64_values"], []float64{0.5, 3}) || m["basic_types_values"].([]dynmsg.Message)[0]["int8_value"] != int8(-1) {
		t.Errorf("decoded %v", m)
	}
	if !reflect.DeepEqual(m["bool_values"], []bool{}) {
		t.Errorf("missing field = %#v, want its default", m["bool_values"])
	}
}

func TestEncodeRejectsBadValues(t *testing.T) {
	reg := registry(t)
	for _, c := range []struct {
		typ  string
		msg  dynmsg.Message
		want string // in the error text
		is   error
	}{
		{"std_msgs/msg/String", dynmsg.Message{"datta": "x"}, `unknown field "datta" in std_msgs/msg/String: fields are: data`, nil},
		{"std_msgs/msg/String", dynmsg.Message{"data": 5}, `field data: 5 (int) is not a string`, nil},
		{"std_msgs/msg/Int8", dynmsg.Message{"data": 128}, `field data: 128 (int) is out of range for int8 [-128, 127]`, nil},
		{"std_msgs/msg/UInt8", dynmsg.Message{"data": -1}, `out of range for uint8`, nil},
		{"std_msgs/msg/Int32", dynmsg.Message{"data": 1.5}, `field data: 1.5 (float64) is not an int32`, nil},
		{"std_msgs/msg/Bool", dynmsg.Message{"data": 1}, `is not a bool`, nil},
		{"std_msgs/msg/Float32", dynmsg.Message{"data": 1e39}, `out of range for a float32`, nil},
		{"geometry_msgs/msg/Pose", dynmsg.Message{"position": dynmsg.Message{"x": "1"}}, `field position.x: "1" is not a float64`, nil},
		{"test_msgs/msg/Arrays", dynmsg.Message{"int32_values": []int32{1}}, `1 elements for int32[3], want exactly 3`, nil},
		{"test_msgs/msg/BoundedSequences", dynmsg.Message{"int32_values": []int32{1, 2, 3, 4}}, `field int32_values`, cdr.ErrBoundExceeded},
		{"test_msgs/msg/Strings", dynmsg.Message{"bounded_string_value": strings.Repeat("x", 23)}, `field bounded_string_value`, cdr.ErrBoundExceeded},
		{"test_msgs/msg/UnboundedSequences", dynmsg.Message{"basic_types_values": []dynmsg.Message{{}, {"nope": 1}}}, `field basic_types_values[1]: unknown field "nope"`, nil},
		{"std_msgs/msg/Empty", dynmsg.Message{"x": 1}, `unknown field "x" in std_msgs/msg/Empty: fields are: (none)`, nil},
	} {
		_, err := mustType(t, reg, c.typ).Encode(c.msg)
		if err == nil || !strings.Contains(err.Error(), c.want) || !errors.Is(err, dynmsg.ErrBadValue) || (c.is != nil && !errors.Is(err, c.is)) {
			t.Errorf("Encode(%s %v) = %v, want an ErrBadValue saying %q", c.typ, c.msg, err, c.want)
		}
	}
}

func TestParseYAMLAccepts(t *testing.T) {
	reg := registry(t)
	for _, c := range []struct {
		typ, in string
		want    dynmsg.Message // fields to check
	}{
		{"std_msgs/msg/String", "{data: hello}", dynmsg.Message{"data": "hello"}},
		{"std_msgs/msg/String", "data: hello world", dynmsg.Message{"data": "hello world"}},
		{"std_msgs/msg/String", "", dynmsg.Message{"data": ""}},
		{"std_msgs/msg/String", "{}", dynmsg.Message{"data": ""}},
		{"std_msgs/msg/String", "{data: 12}", dynmsg.Message{"data": "12"}},
		{"std_msgs/msg/String", "{data: 0x10}", dynmsg.Message{"data": "16"}},
		{"std_msgs/msg/String", "{data: true}", dynmsg.Message{"data": "True"}},
		{"std_msgs/msg/String", "{data: '12'}", dynmsg.Message{"data": "12"}},
		{"std_msgs/msg/String", `{"data": "json works too"}`, dynmsg.Message{"data": "json works too"}},
		{"std_msgs/msg/Int32", "data: 1", dynmsg.Message{"data": int32(1)}},
		{"std_msgs/msg/Int32", "data: -0x10", dynmsg.Message{"data": int32(-16)}},
		{"std_msgs/msg/Int32", "data: 1_000", dynmsg.Message{"data": int32(1000)}},
		{"std_msgs/msg/Int32", "data: '42'", dynmsg.Message{"data": int32(42)}},
		{"std_msgs/msg/Int32", "data: 3.0", dynmsg.Message{"data": int32(3)}},
		{"std_msgs/msg/UInt64", "data: 18446744073709551615", dynmsg.Message{"data": uint64(math.MaxUint64)}},
		{"std_msgs/msg/Int64", "data: -9223372036854775808", dynmsg.Message{"data": int64(math.MinInt64)}},
		{"std_msgs/msg/Float64", "data: 1", dynmsg.Message{"data": 1.0}},
		{"std_msgs/msg/Float64", "data: -.inf", dynmsg.Message{"data": math.Inf(-1)}},
		{"std_msgs/msg/Float64", "data: '2.5'", dynmsg.Message{"data": 2.5}},
		{"std_msgs/msg/Float32", "data: 0.1", dynmsg.Message{"data": float32(0.1)}},
		{"std_msgs/msg/Bool", "data: true", dynmsg.Message{"data": true}},
		{"std_msgs/msg/Bool", "data: yes", dynmsg.Message{"data": true}},
		{"std_msgs/msg/Bool", "data: Off", dynmsg.Message{"data": false}},
		{"std_msgs/msg/Byte", "data: 255", dynmsg.Message{"data": uint8(255)}},
		{"std_msgs/msg/Byte", "data: A", dynmsg.Message{"data": uint8('A')}},
		{"std_msgs/msg/Char", "data: 97", dynmsg.Message{"data": uint8(97)}},
		{"geometry_msgs/msg/Twist", "{linear: {x: 0.5}, angular: {z: -1}}",
			dynmsg.Message{"linear": dynmsg.Message{"x": 0.5, "y": 0.0, "z": 0.0}, "angular": dynmsg.Message{"x": 0.0, "y": 0.0, "z": -1.0}}},
		{"geometry_msgs/msg/Twist", "linear:\n  x: 1\nangular: {}", dynmsg.Message{"linear": dynmsg.Message{"x": 1.0, "y": 0.0, "z": 0.0}}},
		{"std_msgs/msg/Float64MultiArray", "{data: [1, 2.5, 3]}", dynmsg.Message{"data": []float64{1, 2.5, 3}}},
		{"std_msgs/msg/Float64MultiArray", "{layout: {dim: [{label: x, size: 3}]}}",
			dynmsg.Message{"layout": dynmsg.Message{"dim": []dynmsg.Message{{"label": "x", "size": uint32(3), "stride": uint32(0)}}, "data_offset": uint32(0)}}},
		{"std_msgs/msg/UInt8MultiArray", "data: [0, 255]", dynmsg.Message{"data": []uint8{0, 255}}},
		{"test_msgs/msg/Arrays", "{int32_values: [1, 2, 3]}", dynmsg.Message{"int32_values": []int32{1, 2, 3}}},
		{"test_msgs/msg/Defaults", "{int8_value: 1}", dynmsg.Message{"int8_value": int8(1), "uint8_value": uint8(200)}},
	} {
		m, err := mustType(t, reg, c.typ).ParseYAML(c.in)
		if err != nil {
			t.Errorf("ParseYAML(%s, %q): %v", c.typ, c.in, err)
			continue
		}
		for k, v := range c.want {
			if !reflect.DeepEqual(m[k], v) {
				t.Errorf("ParseYAML(%s, %q)[%s] = %#v, want %#v", c.typ, c.in, k, m[k], v)
			}
		}
		if _, err := mustType(t, reg, c.typ).Encode(m); err != nil {
			t.Errorf("ParseYAML(%s, %q) does not encode: %v", c.typ, c.in, err)
		}
	}
}

func TestParseYAMLRejects(t *testing.T) {
	reg := registry(t)
	for _, c := range []struct{ typ, in, want string }{
		{"std_msgs/msg/String", "{datta: hello}", `dynmsg: unknown field "datta" in std_msgs/msg/String: fields are: data`},
		{"geometry_msgs/msg/Point", "{x: abc}", `dynmsg: field x: "abc" is not a float64`},
		{"std_msgs/msg/Int32", "{data: abc}", `dynmsg: field data: "abc" is not an int32`},
		{"std_msgs/msg/Int32", "{data: 1.5}", `field data: 1.5 is not an int32`},
		{"std_msgs/msg/Int32", "{data: 2147483648}", `field data: 2147483648 is out of range for int32`},
		{"std_msgs/msg/UInt8", "{data: -1}", `field data: -1 is out of range for uint8 [0, 255]`},
		{"std_msgs/msg/Bool", "{data: 1}", `field data: 1 is not a bool`},
		{"std_msgs/msg/Bool", "{data: 'true'}", `field data: "true" is not a bool`},
		{"std_msgs/msg/Float32", "{data: 1e39}", `out of range for a float32`},
		{"std_msgs/msg/String", "{data: [a]}", `field data: a list is not a string`},
		{"std_msgs/msg/String", "[1, 2]", `values must be a YAML mapping of the fields of std_msgs/msg/String, like "{data: ...}", not a list`},
		{"std_msgs/msg/String", "hello", `values must be a YAML mapping`},
		{"std_msgs/msg/String", "{data: [}", `values are not YAML`},
		{"geometry_msgs/msg/Twist", "{linear: 5}", `field linear: 5 is not a mapping of the fields of geometry_msgs/msg/Vector3`},
		{"geometry_msgs/msg/Twist", "{linear: {w: 5}}", `field linear: unknown field "w" in geometry_msgs/msg/Vector3: fields are: x, y, z`},
		{"std_msgs/msg/Float64MultiArray", "{data: [1, x]}", `field data[1]: "x" is not a float64`},
		{"std_msgs/msg/Float64MultiArray", "{data: 5}", `field data: 5 is not a list for float64[]`},
		{"std_msgs/msg/Float64MultiArray", "{layout: {dim: [{size: -1}]}}", `field layout.dim[0].size: -1 is out of range for uint32`},
		{"test_msgs/msg/Arrays", "{int32_values: [1, 2]}", `field int32_values: 2 elements for int32[3], want exactly 3`},
		{"test_msgs/msg/BoundedSequences", "{int32_values: [1, 2, 3, 4]}", `field int32_values: 4 elements for int32[<=3], want at most 3`},
		{"test_msgs/msg/Strings", "{bounded_string_value: " + strings.Repeat("x", 23) + "}", `longer than the bound of string<=22`},
		{"std_msgs/msg/Byte", "data: 256", `out of range for byte`},
		{"geometry_msgs/msg/Twist", "{linear: &v {x: 1}, angular: *v}", `field angular: YAML aliases (*name) are not supported`},
	} {
		_, err := mustType(t, reg, c.typ).ParseYAML(c.in)
		if err == nil || !strings.Contains(err.Error(), c.want) || !errors.Is(err, dynmsg.ErrBadValue) {
			t.Errorf("ParseYAML(%s, %q) = %v, want an ErrBadValue saying %q", c.typ, c.in, err, c.want)
		}
	}
}

func TestParseYAMLAtStamps(t *testing.T) {
	reg := registry(t)
	now := time.Unix(1700000000, 123456789)
	m, err := mustType(t, reg, "geometry_msgs/msg/PoseStamped").ParseYAMLAt("{header: auto, pose: {position: {x: 1}}}", now)
	if err != nil {
		t.Fatal(err)
	}
	h := m["header"].(dynmsg.Message)
	if want := (dynmsg.Message{"sec": int32(1700000000), "nanosec": uint32(123456789)}); !reflect.DeepEqual(h["stamp"], want) || h["frame_id"] != "" {
		t.Errorf("header: auto = %v", h)
	}
	m, err = mustType(t, reg, "std_msgs/msg/Header").ParseYAMLAt("{stamp: now, frame_id: map}", now)
	if err != nil || m["stamp"].(dynmsg.Message)["sec"] != int32(1700000000) {
		t.Errorf("stamp: now = %v, %v", m, err)
	}
	if _, err := mustType(t, reg, "std_msgs/msg/Header").ParseYAML("{stamp: now}"); !errors.Is(err, dynmsg.ErrBadValue) {
		t.Errorf("ParseYAML without a clock took \"now\": %v", err)
	}
}

func TestFormatJSON(t *testing.T) {
	reg := registry(t)
	typ := mustType(t, reg, "test_msgs/msg/BasicTypes")
	got, err := typ.FormatJSON(dynmsg.Message{
		"bool_value": true, "byte_value": uint8(255), "float32_value": float32(0.1), "float64_value": math.NaN(),
		"int64_value": int64(math.MinInt64), "uint64_value": uint64(math.MaxUint64),
	})
	if err != nil {
		t.Fatal(err)
	}
	want := `{"bool_value":true,"byte_value":255,"char_value":0,"float32_value":0.1,"float64_value":"nan",` +
		`"int8_value":0,"uint8_value":0,"int16_value":0,"uint16_value":0,"int32_value":0,"uint32_value":0,` +
		`"int64_value":-9223372036854775808,"uint64_value":18446744073709551615}`
	if string(got) != want {
		t.Errorf("FormatJSON:\n got %s\nwant %s", got, want)
	}
	got, err = mustType(t, reg, "std_msgs/msg/Float64MultiArray").FormatJSON(dynmsg.Message{"data": []float64{1, 1e-5, math.Inf(-1)}})
	if want := `{"layout":{"dim":[],"data_offset":0},"data":[1,1e-05,"-inf"]}`; err != nil || string(got) != want {
		t.Errorf("FormatJSON = %s, %v; want %s", got, err, want)
	}
	got, err = mustType(t, reg, "std_msgs/msg/String").FormatJSON(dynmsg.Message{"data": "<a & \"b\">\n"})
	if want := `{"data":"<a & \"b\">\n"}`; err != nil || string(got) != want {
		t.Errorf("FormatJSON = %s, %v; want %s", got, err, want)
	}
	if _, err := mustType(t, reg, "std_msgs/msg/String").FormatJSON(dynmsg.Message{"data": 1}); !errors.Is(err, dynmsg.ErrBadValue) {
		t.Errorf("FormatJSON of a bad value: %v", err)
	}
}

func TestDecodeRejectsBadInput(t *testing.T) {
	reg := registry(t)
	str := mustType(t, reg, "std_msgs/msg/String")
	for _, c := range []struct {
		in []byte
		is error
	}{
		{nil, cdr.ErrTruncated},
		{[]byte{0, 1, 0, 0}, cdr.ErrTruncated},
		{[]byte{0, 1, 0, 0, 0xff, 0xff, 0xff, 0x7f, 'a'}, cdr.ErrTruncated},
		{[]byte{0, 1, 0, 0, 2, 0, 0, 0, 'a', 'b'}, cdr.ErrInvalid},
		{[]byte{0, 9, 0, 0, 1, 0, 0, 0, 0}, cdr.ErrInvalid},
	} {
		if _, err := str.Decode(c.in); !errors.Is(err, c.is) {
			t.Errorf("Decode(%x) = %v, want %v", c.in, err, c.is)
		}
	}
	// A sequence length far beyond the input fails before allocating.
	seq := mustType(t, reg, "test_msgs/msg/UnboundedSequences")
	huge := []byte{0, 1, 0, 0, 0xff, 0xff, 0xff, 0x0f}
	if n := allocatedBytes(func() { _, _ = seq.Decode(huge) }); n > 64<<10 {
		t.Errorf("Decode of a huge length allocated %d bytes", n)
	}
	if _, err := seq.Decode(huge); !errors.Is(err, cdr.ErrTruncated) {
		t.Errorf("huge length: %v", err)
	}
	bounded := mustType(t, reg, "test_msgs/msg/BoundedSequences")
	if _, err := bounded.Decode([]byte{0, 1, 0, 0, 4, 0, 0, 0, 1, 1, 1, 1}); !errors.Is(err, cdr.ErrBoundExceeded) {
		t.Errorf("over bound: %v", err)
	}
}

// allocatedBytes returns the bytes f allocates (averaged over 10 runs).
func allocatedBytes(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for range 10 {
		f()
	}
	runtime.ReadMemStats(&after)
	return (after.TotalAlloc - before.TotalAlloc) / 10
}

func TestDecodeBigEndian(t *testing.T) {
	reg := registry(t)
	want := &geometry_msgs.Point{X: 1, Y: -2, Z: 3}
	be, err := cdr.AppendOptions(nil, want, cdr.Options{BigEndian: true})
	if err != nil {
		t.Fatal(err)
	}
	m, err := mustType(t, reg, "geometry_msgs/msg/Point").Decode(be)
	if err != nil || m["x"] != 1.0 || m["y"] != -2.0 || m["z"] != 3.0 {
		t.Errorf("Decode(big endian) = %v, %v", m, err)
	}
}
