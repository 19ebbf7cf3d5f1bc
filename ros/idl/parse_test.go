package idl_test

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/afor-go/afor/ros/idl"
)

const allTypes = `# file comment
bool a_bool
byte a_byte
char a_char
float32 a_float32
float64 a_float64
int8 a_int8
uint8 a_uint8
int16 a_int16
uint16 a_uint16
int32 a_int32
uint32 a_uint32
int64 a_int64
uint64 a_uint64
string a_string
wstring a_wstring
string<=5 bounded
wstring<=7 wbounded
string<=3[<=4] bounded_strings
float64[36] covariance   # trailing comment
int32[<=8] few
uint8[] data
Header header
std_msgs/Header qualified_header
Pose pose
geometry_msgs/Point[] points
	int32	tabbed
`

func TestParseLeadingWhiteSpace(t *testing.T) {
	// The last line starts with white space once tabs become spaces, which
	// rosidl rejects too.
	_, err := idl.ParseMessage("geometry_msgs", "Everything", []byte(allTypes))
	var se *idl.SyntaxError
	if !errors.As(err, &se) || se.Pos.Line != 27 || se.Pos.Col != 1 {
		t.Fatalf("got %v, want an error at line 27 col 1", err)
	}
}

func TestParseMessageFields(t *testing.T) {
	src := strings.Replace(allTypes, "\tint32\ttabbed\n", "int32\ttabbed\n", 1)
	m, err := idl.ParseMessage("geometry_msgs", "Everything", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	want := []struct {
		name string
		typ  idl.Type
	}{
		{"a_bool", idl.Type{Kind: idl.Bool}},
		{"a_byte", idl.Type{Kind: idl.Byte}},
		{"a_char", idl.Type{Kind: idl.Char}},
		{"a_float32", idl.Type{Kind: idl.Float32}},
		{"a_float64", idl.Type{Kind: idl.Float64}},
		{"a_int8", idl.Type{Kind: idl.Int8}},
		{"a_uint8", idl.Type{Kind: idl.Uint8}},
		{"a_int16", idl.Type{Kind: idl.Int16}},
		{"a_uint16", idl.Type{Kind: idl.Uint16}},
		{"a_int32", idl.Type{Kind: idl.Int32}},
		{"a_uint32", idl.Type{Kind: idl.Uint32}},
		{"a_int64", idl.Type{Kind: idl.Int64}},
		{"a_uint64", idl.Type{Kind: idl.Uint64}},
		{"a_string", idl.Type{Kind: idl.String}},
		{"a_wstring", idl.Type{Kind: idl.WString}},
		{"bounded", idl.Type{Kind: idl.String, StringBound: 5}},
		{"wbounded", idl.Type{Kind: idl.WString, StringBound: 7}},
		{"bounded_strings", idl.Type{Kind: idl.String, StringBound: 3, Array: idl.BoundedArray, Size: 4}},
		{"covariance", idl.Type{Kind: idl.Float64, Array: idl.FixedArray, Size: 36}},
		{"few", idl.Type{Kind: idl.Int32, Array: idl.BoundedArray, Size: 8}},
		{"data", idl.Type{Kind: idl.Uint8, Array: idl.UnboundedArray}},
		{"header", idl.Type{Kind: idl.Nested, Package: "std_msgs", Namespace: "msg", Name: "Header"}},
		{"qualified_header", idl.Type{Kind: idl.Nested, Package: "std_msgs", Namespace: "msg", Name: "Header"}},
		{"pose", idl.Type{Kind: idl.Nested, Package: "geometry_msgs", Namespace: "msg", Name: "Pose"}},
		{"points", idl.Type{Kind: idl.Nested, Package: "geometry_msgs", Namespace: "msg", Name: "Point", Array: idl.UnboundedArray}},
		{"tabbed", idl.Type{Kind: idl.Int32}},
	}
	if len(m.Fields) != len(want) {
		t.Fatalf("got %d fields, want %d", len(m.Fields), len(want))
	}
	for i, w := range want {
		f := m.Fields[i]
		if f.Name != w.name || f.Type != w.typ {
			t.Errorf("field %d = %s %+v, want %s %+v", i, f.Name, f.Type, w.name, w.typ)
		}
		if f.Default != nil {
			t.Errorf("field %s has a default", f.Name)
		}
	}
	if got := m.Fields[2].Pos.Line; got != 4 {
		t.Errorf("a_char at line %d, want 4", got)
	}
	if m.FullName() != "geometry_msgs/msg/Everything" {
		t.Errorf("FullName = %s", m.FullName())
	}
	if got := m.Fields[17].Type.String(); got != "string<=3[<=4]" {
		t.Errorf("Type.String = %s", got)
	}
	if got := m.Fields[24].Type.String(); got != "geometry_msgs/Point[]" {
		t.Errorf("Type.String = %s", got)
	}
	if got := m.Fields[24].Type.FullName(); got != "geometry_msgs/msg/Point" {
		t.Errorf("Type.FullName = %s", got)
	}
}

func TestParseConstantsAndDefaults(t *testing.T) {
	src := "" +
		"int8 MIN=-128\n" +
		"uint64 BIG = 18446744073709551615\n" +
		"int64 SMALL=-9223372036854775808\n" +
		"uint8 HEX=0x1F\n" +
		"uint16 UNDERSCORE=1_000\n" +
		"int32 LEADING_ZERO=010\n" +
		"bool YES=True\n" +
		"float32 PI=3.14\n" +
		"float64 HUGE=1e400\n" +
		"string GREETING=\"hello world\"  \n" +
		"string EMPTY=\n" +
		"char C=65\n" +
		"\n" +
		"bool flag false\n" +
		"float64 w 1\n" +
		"int32[3] xyz [1, -2, 3]\n" +
		"float32[<=3] few [1.5]\n" +
		"uint8[] none []\n" +
		"string s 'it''s'\n" +
		"string t \"say \\\"hi\\\"\"\n" +
		"string<=5[] names [\"a, b\", 'c', d ]\n" +
		"string u hello world\n"
	_, err := idl.ParseMessage("pkg", "Defaults", []byte(src))
	if err == nil {
		t.Fatal("'it''s' must be rejected: unescaped inner quote")
	}
	src = strings.Replace(src, "string s 'it''s'\n", "string s 'it\\'s'\n", 1)
	m, err := idl.ParseMessage("pkg", "Defaults", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	consts := map[string]idl.Value{}
	for _, c := range m.Constants {
		consts[c.Name] = c.Value
		if c.Type.IsArray() || c.Type.Kind == idl.Nested {
			t.Errorf("constant %s has type %s", c.Name, c.Type)
		}
	}
	checks := []struct {
		name string
		ok   bool
	}{
		{"MIN", consts["MIN"].Int == -128},
		{"BIG", consts["BIG"].Uint == math.MaxUint64},
		{"SMALL", consts["SMALL"].Int == math.MinInt64},
		{"HEX", consts["HEX"].Uint == 31},
		{"UNDERSCORE", consts["UNDERSCORE"].Uint == 1000},
		{"LEADING_ZERO", consts["LEADING_ZERO"].Int == 10},
		{"YES", consts["YES"].Bool},
		{"PI", consts["PI"].Float == 3.14},
		{"HUGE", math.IsInf(consts["HUGE"].Float, 1)},
		{"GREETING", consts["GREETING"].Str == "hello world"},
		{"EMPTY", consts["EMPTY"].Str == ""},
		{"C", consts["C"].Uint == 65},
	}
	for _, c := range checks {
		if !c.ok {
			t.Errorf("constant %s = %+v", c.name, consts[c.name])
		}
	}
	if len(m.Constants) != len(checks) {
		t.Errorf("%d constants, want %d", len(m.Constants), len(checks))
	}
	defs := map[string]*idl.Value{}
	for _, f := range m.Fields {
		defs[f.Name] = f.Default
	}
	if d := defs["flag"]; d == nil || d.Bool || d.Literal != "false" {
		t.Errorf("flag default = %+v", d)
	}
	if d := defs["w"]; d == nil || d.Float != 1 {
		t.Errorf("w default = %+v", d)
	}
	if d := defs["xyz"]; d == nil || len(d.Elems) != 3 || d.Elems[1].Int != -2 || d.Literal != "[1, -2, 3]" {
		t.Errorf("xyz default = %+v", d)
	}
	if d := defs["few"]; d == nil || len(d.Elems) != 1 || d.Elems[0].Float != 1.5 {
		t.Errorf("few default = %+v", d)
	}
	if d := defs["none"]; d == nil || len(d.Elems) != 0 {
		t.Errorf("none default = %+v", d)
	}
	if d := defs["s"]; d == nil || d.Str != "it's" {
		t.Errorf("s default = %+v", d)
	}
	if d := defs["t"]; d == nil || d.Str != `say "hi"` {
		t.Errorf("t default = %+v", d)
	}
	if d := defs["names"]; d == nil || len(d.Elems) != 3 || d.Elems[0].Str != "a, b" || d.Elems[1].Str != "c" || d.Elems[2].Str != "d" {
		t.Errorf("names default = %+v", d)
	}
	if d := defs["u"]; d == nil || d.Str != "hello world" {
		t.Errorf("u default = %+v", d)
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		src       string
		line, col int
		want      string
	}{
		{"int32 Bad", 1, 7, "invalid field name"},
		{"int32 bad_", 1, 7, "invalid field name"},
		{"int32 a__b", 1, 7, "invalid field name"},
		{"int32 x\nint32 x", 2, 7, "duplicate field"},
		{"int32 lower=1", 1, 7, "invalid constant name"},
		{"int32 A=1\nint32 A=2", 2, 7, "duplicate constant"},
		{"int32[2] A=1", 1, 1, "not a primitive"},
		{"string<=3 A=x", 1, 1, "not a primitive"},
		{"int32[0] x", 1, 7, "array size"},
		{"int32[<=0] x", 1, 7, "array size"},
		{"int32[abc] x", 1, 7, "array size"},
		{"int32] x", 1, 6, "without '['"},
		{"string<=0 x", 1, 9, "string bound"},
		{"int32", 1, 6, "missing name"},
		{" int32 x", 1, 1, "beginning of the line"},
		{"\n\nint8 x 128", 3, 8, "out of range"},
		{"uint8 x -1", 1, 9, "out of range"},
		{"uint8 x 1.5", 1, 9, "not an integer"},
		{"bool x yes", 1, 8, "bool"},
		{"float32 x abc", 1, 11, "floating point"},
		{"float32 x 0x1p3", 1, 11, "floating point"},
		{"int32[2] x [1]", 1, 12, "exactly 2"},
		{"int32[<=1] x [1, 2]", 1, 14, "at most 1"},
		{"int32[] x 1", 1, 11, "start with '['"},
		{"int32[] x [1,]", 1, 11, "element 1"},
		{"string[] x ['a', ]", 1, 12, "missing element"},
		{"string[] x ['a]", 1, 12, "unterminated"},
		{"string<=3 x toolong", 1, 13, "bound"},
		{"string x \"a\"b\"", 1, 10, "unescaped quote"},
		{"Pose x 1", 1, 8, "nested types"},
		{"time stamp", 1, 1, "ROS 1 type"},
		{"bad-pkg/Type x", 1, 1, "invalid package"},
		{"pkg/lower x", 1, 1, "invalid message name"},
		{"a/b/C x", 1, 1, "more than one"},
		{"float64 x\n\n  # indented comment\nfoo x", 4, 1, "invalid message name"},
	}
	for _, tt := range tests {
		_, err := idl.ParseMessage("pkg", "Msg", []byte(tt.src))
		if err == nil {
			t.Errorf("%q: no error", tt.src)
			continue
		}
		if !errors.Is(err, idl.ErrSyntax) {
			t.Errorf("%q: %v is not ErrSyntax", tt.src, err)
		}
		var se *idl.SyntaxError
		if !errors.As(err, &se) {
			t.Errorf("%q: %T is not *SyntaxError", tt.src, err)
			continue
		}
		if se.Pos.File != "pkg/msg/Msg.msg" || se.Pos.Line != tt.line || se.Pos.Col != tt.col {
			t.Errorf("%q: error at %s, want line %d col %d (%v)", tt.src, se.Pos, tt.line, tt.col, err)
		}
		if !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%q: error %q does not mention %q", tt.src, err, tt.want)
		}
	}
}

func TestParseSourceErrors(t *testing.T) {
	if _, err := idl.ParseMessage("pkg", "Msg", []byte("int32 x\n\xff")); !errors.Is(err, idl.ErrSyntax) || !strings.Contains(err.Error(), ":2:1:") {
		t.Errorf("invalid UTF-8: %v", err)
	}
	if _, err := idl.ParseMessage("pkg", "Msg", make([]byte, idl.MaxFileSize+1)); !errors.Is(err, idl.ErrTooLarge) {
		t.Errorf("too large: %v", err)
	}
	if _, err := idl.ParseMessage("Pkg", "Msg", nil); !errors.Is(err, idl.ErrBadName) {
		t.Errorf("bad package: %v", err)
	}
	if _, err := idl.ParseMessage("pkg", "msg", nil); !errors.Is(err, idl.ErrBadName) {
		t.Errorf("bad name: %v", err)
	}
}

func TestParseEmptyAndComments(t *testing.T) {
	m, err := idl.ParseMessage("pkg", "Empty", []byte("# only\n   # comments\n\n\t\n"))
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Fields) != 0 || len(m.Constants) != 0 {
		t.Errorf("got %+v", m)
	}
	m, err = idl.ParseMessage("pkg", "Crlf", []byte("int32 a\r\nint32 b 2\r\n"))
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Fields) != 2 || m.Fields[1].Default == nil || m.Fields[1].Default.Int != 2 {
		t.Errorf("CRLF: got %+v", m.Fields)
	}
}

func TestParseService(t *testing.T) {
	s, err := idl.ParseService("example_interfaces", "AddTwoInts", []byte("int64 a\nint64 b\n---\nint64 sum\n"))
	if err != nil {
		t.Fatal(err)
	}
	if s.FullName() != "example_interfaces/srv/AddTwoInts" ||
		s.Request.FullName() != "example_interfaces/srv/AddTwoInts_Request" ||
		s.Response.FullName() != "example_interfaces/srv/AddTwoInts_Response" {
		t.Errorf("names: %s %s %s", s.FullName(), s.Request.FullName(), s.Response.FullName())
	}
	if len(s.Request.Fields) != 2 || len(s.Response.Fields) != 1 || s.Response.Fields[0].Pos.Line != 4 {
		t.Errorf("fields: %+v / %+v", s.Request.Fields, s.Response.Fields)
	}
	ev := s.Event()
	if ev.FullName() != "example_interfaces/srv/AddTwoInts_Event" || len(ev.Fields) != 3 ||
		ev.Fields[1].Type.FullName() != "example_interfaces/srv/AddTwoInts_Request" ||
		ev.Fields[1].Type.Array != idl.BoundedArray || ev.Fields[1].Type.Size != 1 {
		t.Errorf("event: %+v", ev)
	}
	for _, src := range []string{"int64 a\n", "---\n---\n", "int64 a\n--- \nint64 b\n"} {
		if _, err := idl.ParseService("pkg", "Srv", []byte(src)); !errors.Is(err, idl.ErrSyntax) {
			t.Errorf("%q: %v", src, err)
		}
	}
	_, err = idl.ParseService("pkg", "Srv", []byte("int64 a\n---\nint64 b\nint64 B\n"))
	var se *idl.SyntaxError
	if !errors.As(err, &se) || se.Pos.Line != 4 || se.Pos.File != "pkg/srv/Srv.srv" {
		t.Errorf("error in response: %v", err)
	}
}

func TestParseAction(t *testing.T) {
	a, err := idl.ParseAction("example_interfaces", "Fibonacci", []byte("int32 order\n---\nint32[] sequence\n---\nint32[] sequence\n"))
	if err != nil {
		t.Fatal(err)
	}
	if a.FullName() != "example_interfaces/action/Fibonacci" || a.Goal.Name != "Fibonacci_Goal" ||
		a.Result.Name != "Fibonacci_Result" || a.Feedback.Name != "Fibonacci_Feedback" {
		t.Errorf("names: %+v", a)
	}
	send := a.SendGoal()
	if send.FullName() != "example_interfaces/action/Fibonacci_SendGoal" ||
		send.Request.Fields[1].Type.FullName() != "example_interfaces/action/Fibonacci_Goal" ||
		send.Request.Fields[0].Type.FullName() != "unique_identifier_msgs/msg/UUID" ||
		send.Response.Fields[1].Type.FullName() != "builtin_interfaces/msg/Time" {
		t.Errorf("SendGoal: %+v %+v", send.Request, send.Response)
	}
	get := a.GetResult()
	if get.Response.Fields[0].Type.Kind != idl.Int8 || get.Response.Fields[1].Type.FullName() != "example_interfaces/action/Fibonacci_Result" {
		t.Errorf("GetResult: %+v", get.Response)
	}
	fb := a.FeedbackMessage()
	if fb.FullName() != "example_interfaces/action/Fibonacci_FeedbackMessage" || fb.Fields[1].Name != "feedback" {
		t.Errorf("FeedbackMessage: %+v", fb)
	}
	_, err = idl.ParseAction("pkg", "Act", []byte("int32 a\n---\nint32 b\n"))
	var se *idl.SyntaxError
	if !errors.As(err, &se) || se.Pos.File != "pkg/action/Act.action" {
		t.Errorf("one separator: %v", err)
	}
	_, err = idl.ParseAction("pkg", "Act", []byte("---\n---\nint32 a\nint32 Bad\n"))
	if !errors.As(err, &se) || se.Pos.Line != 4 {
		t.Errorf("error in feedback: %v", err)
	}
}

func TestParseTypeAndValue(t *testing.T) {
	typ, err := idl.ParseType("string<=10[3]", "pkg")
	if err != nil || typ != (idl.Type{Kind: idl.String, StringBound: 10, Array: idl.FixedArray, Size: 3}) {
		t.Errorf("ParseType = %+v, %v", typ, err)
	}
	if _, err := idl.ParseType("int32[", "pkg"); !errors.Is(err, idl.ErrSyntax) {
		t.Errorf("ParseType(int32[) = %v", err)
	}
	v, err := idl.ParseValue(typ, `["a", "b", "c"]`)
	if err != nil || len(v.Elems) != 3 || v.Elems[2].Str != "c" {
		t.Errorf("ParseValue = %+v, %v", v, err)
	}
	if _, err := idl.ParseValue(typ, `["a"]`); !errors.Is(err, idl.ErrSyntax) {
		t.Errorf("ParseValue with 1 of 3 elements: %v", err)
	}
}

func TestKindAndTypeHelpers(t *testing.T) {
	if idl.Float64.String() != "float64" || idl.Nested.String() != "nested" || idl.Kind(200).String() != "Kind(200)" {
		t.Error("Kind.String")
	}
	if idl.Int64.Size() != 8 || idl.Char.Size() != 1 || idl.String.Size() != 0 {
		t.Error("Kind.Size")
	}
	if !idl.Byte.IsInteger() || idl.Byte.IsSigned() || !idl.Int8.IsSigned() || !idl.WString.IsString() || !idl.Float32.IsFloat() {
		t.Error("Kind predicates")
	}
	if idl.BoundedArray.String() != "bounded" || idl.ArrayKind(9).String() != "ArrayKind(9)" {
		t.Error("ArrayKind.String")
	}
	arr := idl.Type{Kind: idl.Int32, Array: idl.FixedArray, Size: 3}
	if arr.Elem() != (idl.Type{Kind: idl.Int32}) || !arr.IsArray() || arr.Elem().IsArray() {
		t.Error("Type.Elem")
	}
	if (idl.Pos{File: "f", Line: 2, Col: 3}).String() != "f:2:3" {
		t.Error("Pos.String")
	}
}

func TestFormatRoundTrip(t *testing.T) {
	src := "int8 A=-1\nstring S='x y'\nfloat64[3] v [1, 2, 3]\nstring<=4 s \"ab\"\nstd_msgs/Header h\n"
	m, err := idl.ParseMessage("pkg", "Msg", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	want := "int8 A=-1\nstring S='x y'\nfloat64[3] v [1, 2, 3]\nstring<=4 s \"ab\"\nstd_msgs/Header h\n"
	if got := string(m.Format()); got != want {
		t.Errorf("Format:\n%s\nwant:\n%s", got, want)
	}
	s, err := idl.ParseService("pkg", "Srv", []byte("int32 a\n---\nbool ok true\n"))
	if err != nil {
		t.Fatal(err)
	}
	if got := string(s.Format()); got != "int32 a\n---\nbool ok true\n" {
		t.Errorf("Service.Format: %q", got)
	}
	a, err := idl.ParseAction("pkg", "Act", []byte("---\nint32 r\n---\n"))
	if err != nil {
		t.Fatal(err)
	}
	if got := string(a.Format()); got != "---\nint32 r\n---\n" {
		t.Errorf("Action.Format: %q", got)
	}
}
