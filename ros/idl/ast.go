package idl

import (
	"strconv"
	"strings"
)

// Kind is the element kind of a [Type]: one of the .msg primitive types, or
// [Nested] for a reference to another message.
type Kind uint8

// The kinds of a [Type]. The names follow the .msg spelling. Char is an
// unsigned 8-bit integer (IDL uint8) and Byte an opaque octet, as in
// rosidl_adapter.
const (
	Invalid Kind = iota // zero value; never produced by the parser
	Bool                // bool
	Byte                // byte (IDL octet)
	Char                // char (IDL uint8)
	Float32             // float32
	Float64             // float64
	Int8                // int8
	Uint8               // uint8
	Int16               // int16
	Uint16              // uint16
	Int32               // int32
	Uint32              // uint32
	Int64               // int64
	Uint64              // uint64
	String              // string or string<=N (UTF-8)
	WString             // wstring or wstring<=N (UTF-16 on the wire)
	Nested              // a message type: see Type.Package and Type.Name
)

var kindNames = [...]string{
	Invalid: "invalid",
	Bool:    "bool",
	Byte:    "byte",
	Char:    "char",
	Float32: "float32",
	Float64: "float64",
	Int8:    "int8",
	Uint8:   "uint8",
	Int16:   "int16",
	Uint16:  "uint16",
	Int32:   "int32",
	Uint32:  "uint32",
	Int64:   "int64",
	Uint64:  "uint64",
	String:  "string",
	WString: "wstring",
	Nested:  "nested",
}

// String returns the .msg spelling of a primitive kind ("float64"), or
// "nested" / "invalid".
func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "Kind(" + strconv.Itoa(int(k)) + ")"
}

// IsPrimitive reports whether k is a primitive (non-nested, valid) kind.
func (k Kind) IsPrimitive() bool { return k >= Bool && k <= WString }

// IsString reports whether k is String or WString.
func (k Kind) IsString() bool { return k == String || k == WString }

// IsInteger reports whether k is an integer kind, including Byte and Char.
func (k Kind) IsInteger() bool {
	switch k {
	case Byte, Char, Int8, Uint8, Int16, Uint16, Int32, Uint32, Int64, Uint64:
		return true
	}
	return false
}

// IsSigned reports whether k is a signed integer kind.
func (k Kind) IsSigned() bool {
	switch k {
	case Int8, Int16, Int32, Int64:
		return true
	}
	return false
}

// IsFloat reports whether k is Float32 or Float64.
func (k Kind) IsFloat() bool { return k == Float32 || k == Float64 }

// Size returns the size in bytes of a fixed-size primitive kind (1 for Bool,
// Byte, Char, Int8 and Uint8, up to 8 for Int64, Uint64 and Float64), and 0
// for strings, nested and invalid kinds.
func (k Kind) Size() int {
	switch k {
	case Bool, Byte, Char, Int8, Uint8:
		return 1
	case Int16, Uint16:
		return 2
	case Int32, Uint32, Float32:
		return 4
	case Int64, Uint64, Float64:
		return 8
	}
	return 0
}

// ArrayKind says whether a [Type] is a single value or a collection of them.
type ArrayKind uint8

// The array kinds of a [Type].
const (
	NotArray       ArrayKind = iota // T: a single value
	FixedArray                      // T[N]: exactly Type.Size elements
	BoundedArray                    // T[<=N]: a sequence of at most Type.Size elements
	UnboundedArray                  // T[]: a sequence of any length
)

// String returns "none", "fixed", "bounded" or "unbounded".
func (a ArrayKind) String() string {
	switch a {
	case NotArray:
		return "none"
	case FixedArray:
		return "fixed"
	case BoundedArray:
		return "bounded"
	case UnboundedArray:
		return "unbounded"
	}
	return "ArrayKind(" + strconv.Itoa(int(a)) + ")"
}

// Type is the type of a field or constant as written in a .msg file, with
// nested references already qualified with their package.
type Type struct {
	// Kind is the primitive kind of each element, or Nested.
	Kind Kind
	// StringBound is N for string<=N and wstring<=N (also as array
	// elements), 0 for unbounded strings and other kinds.
	StringBound int
	// Package is the package of a Nested type ("std_msgs"), else "".
	Package string
	// Namespace is the namespace of a Nested type: "msg" for every
	// reference written in a file, "srv" or "action" only in synthesized
	// messages that refer to the parts of a service or action. "" for
	// primitive types.
	Namespace string
	// Name is the message name of a Nested type ("Header"), else "".
	Name string
	// Array tells whether this is a single value, a fixed array, a bounded
	// or an unbounded sequence.
	Array ArrayKind
	// Size is N for FixedArray (T[N]) and BoundedArray (T[<=N]), else 0.
	Size int
}

// IsArray reports whether t is an array or a sequence of any kind.
func (t Type) IsArray() bool { return t.Array != NotArray }

// Elem returns the element type of an array or sequence (t itself with
// Array set to NotArray and Size to 0).
func (t Type) Elem() Type {
	t.Array, t.Size = NotArray, 0
	return t
}

// FullName returns the fully qualified name of a Nested type's message,
// "pkg/msg/Name", or "" for primitive types.
func (t Type) FullName() string {
	if t.Kind != Nested {
		return ""
	}
	ns := t.Namespace
	if ns == "" {
		ns = "msg"
	}
	return t.Package + "/" + ns + "/" + t.Name
}

// String returns the .msg spelling of t, with nested types qualified:
// "float64[36]", "string<=8[<=3]", "std_msgs/Header[]".
func (t Type) String() string {
	var b strings.Builder
	if t.Kind == Nested {
		b.WriteString(t.Package)
		b.WriteByte('/')
		b.WriteString(t.Name)
	} else {
		b.WriteString(t.Kind.String())
		if t.StringBound > 0 {
			b.WriteString("<=")
			b.WriteString(strconv.Itoa(t.StringBound))
		}
	}
	switch t.Array {
	case FixedArray:
		b.WriteByte('[')
		b.WriteString(strconv.Itoa(t.Size))
		b.WriteByte(']')
	case BoundedArray:
		b.WriteString("[<=")
		b.WriteString(strconv.Itoa(t.Size))
		b.WriteByte(']')
	case UnboundedArray:
		b.WriteString("[]")
	}
	return b.String()
}

// Value is a parsed constant or default value. Which field holds the value
// depends on the kind of the [Type] it belongs to:
//
//   - Bool for Bool;
//   - Int for Int8..Int64;
//   - Uint for Byte, Char and Uint8..Uint64;
//   - Float for Float32 and Float64;
//   - Str for String and WString (quotes removed, escaped quotes unescaped);
//   - Elems, one Value per element, when the type is an array.
type Value struct {
	// Literal is the text of the value as written, trimmed of surrounding
	// white space (for arrays, the whole "[...]" text).
	Literal string
	Bool    bool    // value of a Bool
	Int     int64   // value of a signed integer
	Uint    uint64  // value of an unsigned integer, Byte or Char
	Float   float64 // value of a Float32 or Float64
	Str     string  // value of a String or WString
	Elems   []Value // elements of an array value
}

// Pos is a position in an interface file. Line and Col count from 1; Col
// counts bytes.
type Pos struct {
	File string // the file name, as given to the parser
	Line int    // line number, from 1
	Col  int    // byte column, from 1
}

// String returns "file:line:col".
func (p Pos) String() string {
	return p.File + ":" + strconv.Itoa(p.Line) + ":" + strconv.Itoa(p.Col)
}

// Field is one field of a message.
type Field struct {
	// Name is the field name (lower_snake_case).
	Name string
	// Type is the field type.
	Type Type
	// Default is the default value, or nil when none is given.
	Default *Value
	// Pos is where the field's type starts.
	Pos Pos
}

// Constant is a named constant of a message. Its type is always a
// non-array primitive without string bound.
type Constant struct {
	// Name is the constant name (UPPER_SNAKE_CASE).
	Name string
	// Type is the constant type.
	Type Type
	// Value is the parsed value.
	Value Value
	// Pos is where the constant's type starts.
	Pos Pos
}

// Message is one message type: a .msg file, or a part of a .srv or .action
// file, or a message synthesized from them.
type Message struct {
	// Package is the ROS package name ("std_msgs").
	Package string
	// Namespace is "msg" for .msg files, "srv" for the parts of a service,
	// "action" for the parts of an action.
	Namespace string
	// Name is the message name, with the suffix of its role for parts of
	// services and actions ("AddTwoInts_Request", "Fibonacci_Goal").
	Name string
	// Fields in declaration order. Empty for an empty message.
	Fields []Field
	// Constants in declaration order.
	Constants []Constant
	// File names the source the message was parsed from, "" when
	// synthesized.
	File string
}

// FullName returns "pkg/namespace/Name", e.g. "std_msgs/msg/String" or
// "example_interfaces/srv/AddTwoInts_Request".
func (m *Message) FullName() string { return m.Package + "/" + m.Namespace + "/" + m.Name }

// PlaceholderField returns the field that wire formats and type hashes use in
// place of the missing fields of an empty message:
// "uint8 structure_needs_at_least_one_member".
func PlaceholderField() Field {
	return Field{Name: "structure_needs_at_least_one_member", Type: Type{Kind: Uint8}}
}

// Service is a .srv definition.
type Service struct {
	// Package is the ROS package name.
	Package string
	// Namespace is "srv", or "action" for the services derived from an
	// action.
	Namespace string
	// Name is the service name ("AddTwoInts").
	Name string
	// Request is the message "<Name>_Request".
	Request *Message
	// Response is the message "<Name>_Response".
	Response *Message
	// File names the source, "" when synthesized.
	File string
}

// FullName returns "pkg/srv/Name".
func (s *Service) FullName() string { return s.Package + "/" + s.Namespace + "/" + s.Name }

// Event returns the synthesized service event message "<Name>_Event" with
// the fields "service_msgs/ServiceEventInfo info",
// "<Name>_Request[<=1] request" and "<Name>_Response[<=1] response".
func (s *Service) Event() *Message {
	return &Message{
		Package:   s.Package,
		Namespace: s.Namespace,
		Name:      s.Name + "_Event",
		Fields: []Field{
			{Name: "info", Type: msgType("service_msgs", "ServiceEventInfo")},
			{Name: "request", Type: Type{Kind: Nested, Package: s.Package, Namespace: s.Namespace, Name: s.Request.Name, Array: BoundedArray, Size: 1}},
			{Name: "response", Type: Type{Kind: Nested, Package: s.Package, Namespace: s.Namespace, Name: s.Response.Name, Array: BoundedArray, Size: 1}},
		},
	}
}

// Action is a .action definition.
type Action struct {
	// Package is the ROS package name.
	Package string
	// Name is the action name ("Fibonacci").
	Name string
	// Goal is the message "<Name>_Goal".
	Goal *Message
	// Result is the message "<Name>_Result".
	Result *Message
	// Feedback is the message "<Name>_Feedback".
	Feedback *Message
	// File names the source, "" when synthesized.
	File string
}

// FullName returns "pkg/action/Name".
func (a *Action) FullName() string { return a.Package + "/action/" + a.Name }

func (a *Action) local(name string) Type {
	return Type{Kind: Nested, Package: a.Package, Namespace: "action", Name: name}
}

func msgType(pkg, name string) Type {
	return Type{Kind: Nested, Package: pkg, Namespace: "msg", Name: name}
}

func uuidType() Type { return msgType("unique_identifier_msgs", "UUID") }

// SendGoal returns the synthesized service "<Name>_SendGoal": the request
// has "unique_identifier_msgs/UUID goal_id" and "<Name>_Goal goal", the
// response "bool accepted" and "builtin_interfaces/Time stamp".
func (a *Action) SendGoal() *Service {
	n := a.Name + "_SendGoal"
	return &Service{
		Package: a.Package, Namespace: "action", Name: n,
		Request: &Message{Package: a.Package, Namespace: "action", Name: n + "_Request", Fields: []Field{
			{Name: "goal_id", Type: uuidType()},
			{Name: "goal", Type: a.local(a.Goal.Name)},
		}},
		Response: &Message{Package: a.Package, Namespace: "action", Name: n + "_Response", Fields: []Field{
			{Name: "accepted", Type: Type{Kind: Bool}},
			{Name: "stamp", Type: msgType("builtin_interfaces", "Time")},
		}},
	}
}

// GetResult returns the synthesized service "<Name>_GetResult": the request
// has "unique_identifier_msgs/UUID goal_id", the response "int8 status" and
// "<Name>_Result result".
func (a *Action) GetResult() *Service {
	n := a.Name + "_GetResult"
	return &Service{
		Package: a.Package, Namespace: "action", Name: n,
		Request: &Message{Package: a.Package, Namespace: "action", Name: n + "_Request", Fields: []Field{
			{Name: "goal_id", Type: uuidType()},
		}},
		Response: &Message{Package: a.Package, Namespace: "action", Name: n + "_Response", Fields: []Field{
			{Name: "status", Type: Type{Kind: Int8}},
			{Name: "result", Type: a.local(a.Result.Name)},
		}},
	}
}

// FeedbackMessage returns the synthesized message "<Name>_FeedbackMessage"
// with "unique_identifier_msgs/UUID goal_id" and "<Name>_Feedback feedback".
func (a *Action) FeedbackMessage() *Message {
	return &Message{
		Package: a.Package, Namespace: "action", Name: a.Name + "_FeedbackMessage",
		Fields: []Field{
			{Name: "goal_id", Type: uuidType()},
			{Name: "feedback", Type: a.local(a.Feedback.Name)},
		},
	}
}
