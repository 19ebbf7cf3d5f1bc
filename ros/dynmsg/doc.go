// Package dynmsg handles ROS 2 messages of any type at run time, without
// generated code: it decodes and encodes their CDR payloads, prints them as
// `ros2 topic echo` does (YAML, or JSON), parses the values that
// `ros2 topic pub` takes, and prints the interface listings of
// `ros2 interface list` and `ros2 interface show`.
//
// Types come from an [idl.Registry]: [NewRegistry] loads the interfaces
// shipped in package interfaces plus any folders laid out as
// "<pkg>/{msg,srv,action}/<Name>.<ext>" (such as the share folders of a ROS
// install, see [AmentDirs]). [NewType] resolves one message type once; its
// [Type] then converts values of that type. The parts of services and
// actions are message types too: [ServiceTypes] and [ActionTypes] give
// them.
//
// A Type does:
//
//   - [Type.Decode] and [Type.Encode]: CDR payloads, header included, as
//     the transports carry them;
//   - [Type.ParseYAML]: the VALUES argument of `ros2 topic pub`;
//   - [Type.FormatYAML], [Type.FormatCSV] and [Type.FormatJSON]: what
//     `ros2 topic echo` prints, plain, with --csv, and as JSON;
//   - [Type.FormatRepr]: what `ros2 service call` prints (Python's repr);
//   - [Type.Zero]: a message at its default values.
//
// [ListInterfaces] and [ShowInterface] print what `ros2 interface list` and
// `ros2 interface show` print.
//
// # Values
//
// A message is a [Message], a map from field name to value; field order is
// the order of the definition, kept by the [Type]. Each field holds the Go
// value of its .msg type:
//
//	.msg type               Go value
//	bool                    bool
//	byte, char, uint8       uint8 (byte)
//	int8 ... int64          int8, int16, int32, int64
//	uint16 ... uint64       uint16, uint32, uint64
//	float32, float64        float32, float64
//	string, wstring         string (UTF-8)
//	a nested message        Message
//	T[N], T[<=N], T[]       []T of the above: []bool, []byte, []int32,
//	                        []float64, []string, []Message, ...
//
// Decode, ParseYAML and Zero produce exactly these types (fixed arrays
// have their N elements, empty sequences are empty non-nil slices). Encode is more lenient: any Go integer or float value that
// fits the field's type exactly is accepted (an int for an int32, an int or
// a float32 for a float64), a []any holds the elements of any array, and a
// missing field takes its default value. A value that does not fit, an
// unknown field or an array of the wrong length is an error that names the
// field ([ErrBadValue]).
//
// # Output
//
// [Type.FormatYAML] prints what `ros2 topic echo` prints for one message (the
// YAML of rosidl_runtime_py's message_to_yaml, without the "---" line that
// follows each message), with the same options ([FormatOptions]).
// [Type.FormatJSON] prints one JSON object per message; see its
// documentation for the mapping.
package dynmsg
