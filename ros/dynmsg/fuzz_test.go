package dynmsg_test

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/afor-go/afor/ros/dynmsg"
)

// fuzzTypes are the types FuzzDecode decodes into: every kind of field,
// array and nesting.
var fuzzTypes = []string{
	"test_msgs/msg/BasicTypes", "test_msgs/msg/Arrays", "test_msgs/msg/BoundedSequences",
	"test_msgs/msg/UnboundedSequences", "test_msgs/msg/Strings", "test_msgs/msg/WStrings",
	"test_msgs/msg/MultiNested", "std_msgs/msg/Empty", "sensor_msgs/msg/Image",
	"rcl_interfaces/msg/ParameterEvent",
}

// FuzzDecode feeds arbitrary payloads to Decode (the first byte picks the
// type). Decode must never panic; what it accepts must print, and encode to
// bytes that decode and encode again to the same bytes.
func FuzzDecode(f *testing.F) {
	reg := registry(f)
	types := make([]*dynmsg.Type, len(fuzzTypes))
	for i, n := range fuzzTypes {
		types[i] = mustType(f, reg, n)
	}
	// Seeds: each type's default message, and one with values.
	for i, typ := range types {
		data, err := typ.Encode(typ.Zero())
		if err != nil {
			f.Fatal(err)
		}
		f.Add(append([]byte{byte(i)}, data...))
	}
	seeds := map[int]string{
		1: "{string_values: [a, bb, ccc], float64_values: [1, .nan, -.inf]}",
		3: "{string_values: [x], basic_types_values: [{int64_value: -1}], int16_values: [1, 2, 3]}",
		5: "{wstring_value: 'ü日本'}",
		8: "{encoding: rgb8, data: [1, 2, 3, 4, 5, 6], header: {frame_id: cam}}",
		9: "{node: /n, new_parameters: [{name: p, value: {type: 2, integer_value: 7}}]}",
	}
	for i, y := range seeds {
		m, err := types[i].ParseYAML(y)
		if err != nil {
			f.Fatal(err)
		}
		data, err := types[i].Encode(m)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(append([]byte{byte(i)}, data...))
		// Big-endian and truncated variants.
		f.Add(append([]byte{byte(i), 0, 0, 0, 0}, data[4:]...))
		f.Add(append([]byte{byte(i)}, data[:len(data)/2]...))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		if len(in) == 0 {
			return
		}
		typ := types[int(in[0])%len(types)]
		m, err := typ.Decode(in[1:])
		if err != nil {
			return
		}
		_ = typ.FormatYAML(m, dynmsg.FormatOptions{})
		_ = typ.FormatYAML(m, dynmsg.FormatOptions{NoArr: true, NoStr: true, TruncateLength: 3, FlowStyle: true})
		if j, err := typ.FormatJSON(m); err != nil || !json.Valid(j) {
			t.Fatalf("FormatJSON of a decoded %s: %v\n%s", typ.Name(), err, j)
		}
		_ = typ.FormatCSV(m, dynmsg.FormatOptions{})
		_ = typ.FormatRepr(m)
		enc, err := typ.Encode(m)
		if err != nil {
			t.Fatalf("Encode of a decoded %s: %v", typ.Name(), err)
		}
		m2, err := typ.Decode(enc)
		if err != nil {
			t.Fatalf("Decode of our %s: %v", typ.Name(), err)
		}
		enc2, err := typ.Encode(m2)
		if err != nil || !bytes.Equal(enc, enc2) {
			t.Fatalf("%s: encoding not stable: %x then %x (%v)", typ.Name(), enc, enc2, err)
		}
	})
}

// FuzzParseYAML feeds arbitrary text to ParseYAML: it must never panic, and
// what it accepts must encode.
func FuzzParseYAML(f *testing.F) {
	reg := registry(f)
	types := make([]*dynmsg.Type, len(fuzzTypes))
	for i, n := range fuzzTypes {
		types[i] = mustType(f, reg, n)
	}
	for _, s := range []string{
		"", "{}", "{bool_value: true, int8_value: -1, float32_value: .nan}", "{string_values: [a, 'b', \"c\"]}",
		"{basic_types_values: [{}, {uint64_value: 0x10}]}", "{int16_values: [1, 2, 3]}", "{wstring_value: ü}",
		"header: auto", "{data: [1, 2]}", "a: &x [1]\nb: *x", "{bounded_string_value: '1234567890123456789012'}",
	} {
		for i := range types {
			f.Add(byte(i), s)
		}
	}
	f.Fuzz(func(t *testing.T, which byte, in string) {
		typ := types[int(which)%len(types)]
		m, err := typ.ParseYAML(in)
		if err != nil {
			return
		}
		if _, err := typ.Encode(m); err != nil {
			t.Fatalf("ParseYAML(%q) gave a %s that does not encode: %v", in, typ.Name(), err)
		}
	})
}
