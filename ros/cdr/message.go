package cdr

import "fmt"

// Named is implemented by every generated type: the pointer types of
// messages, and the zero-size types of services and actions. Transports use
// it to name topics' and services' types on the wire.
type Named interface {
	// TypeName returns the ROS type name, e.g. "std_msgs/msg/String".
	TypeName() string
	// DDSTypeName returns the DDS type name, e.g.
	// "std_msgs::msg::dds_::String_".
	DDSTypeName() string
	// TypeHash returns the RIHS01 type hash, "RIHS01_" and 64 hex digits.
	TypeHash() string
}

// Message is implemented by the pointer type of every generated ROS 2
// message: it encodes to and decodes from a complete CDR payload (header
// included) and names its type.
type Message interface {
	Named
	// AppendCDR appends the payload (encapsulation header and members) to
	// dst and returns the extended slice.
	AppendCDR(dst []byte) ([]byte, error)
	// UnmarshalCDR replaces the receiver's contents with the payload in
	// data. Slices already in the receiver are reused when large enough.
	UnmarshalCDR(data []byte) error
	// EncodeCDR writes the members to e, for nesting in another message.
	EncodeCDR(e *Encoder)
	// DecodeCDR reads the members from d, for nesting in another message.
	DecodeCDR(d *Decoder)
}

// Marshal returns the CDR payload of m in a new slice.
func Marshal(m Message) ([]byte, error) { return m.AppendCDR(nil) }

// Unmarshal decodes data into m.
func Unmarshal(data []byte, m Message) error { return m.UnmarshalCDR(data) }

// UnmarshalAlias decodes data into m as Unmarshal does, except that the
// numeric sequences of m (Image.Data, PointCloud2.Data, float arrays) may
// share memory with data instead of being copied (Options.Alias). The
// caller hands data over: see "Aliasing and ownership" in the package
// documentation.
func UnmarshalAlias(data []byte, m Message) error {
	return UnmarshalOptions(data, m, Options{Alias: true})
}

// AppendOptions is m.AppendCDR with the wire variants chosen by o (byte
// order, wstring unit size).
func AppendOptions(dst []byte, m Message, o Options) ([]byte, error) {
	e := NewEncoderOptions(dst, o)
	m.EncodeCDR(&e)
	return e.Finish()
}

// UnmarshalOptions is m.UnmarshalCDR with the wstring unit size and the
// aliasing mode chosen by o (the byte order comes from the header).
func UnmarshalOptions(data []byte, m Message, o Options) error {
	d, err := NewDecoderOptions(data, o)
	if err != nil {
		return err
	}
	m.DecodeCDR(&d)
	return d.Finish(m.TypeName())
}

// Finish returns the result of an encoding started with NewEncoder: the
// extended buffer, or, on error, the original dst (same length, contents
// past it unspecified) and the first error. Generated AppendCDR methods end
// with it.
func (e *Encoder) Finish() ([]byte, error) {
	if e.err != nil {
		return e.buf[:e.origin-HeaderSize], e.err
	}
	return e.buf, nil
}

// Finish returns the first error of a decoding, wrapped with the type name
// for context.
func (d *Decoder) Finish(typeName string) error {
	if d.err != nil {
		return fmt.Errorf("decode %s: %w", typeName, d.err)
	}
	return nil
}

// MessageCodec converts between values of a generated message type T and CDR
// payloads. It satisfies the codec shape the byte transports of package afor
// take: Append(dst, v) and Decode(data). It is stateless and safe for
// concurrent use.
type MessageCodec[T any, PT interface {
	*T
	Message
}] struct{}

// Codec returns the codec of generated message type T, e.g.
// cdr.Codec[std_msgs.String]().
func Codec[T any, PT interface {
	*T
	Message
}]() MessageCodec[T, PT] {
	return MessageCodec[T, PT]{}
}

// Append appends the CDR payload of v to dst.
func (MessageCodec[T, PT]) Append(dst []byte, v T) ([]byte, error) {
	return PT(&v).AppendCDR(dst)
}

// Decode decodes a CDR payload into a new T.
func (MessageCodec[T, PT]) Decode(data []byte) (T, error) {
	var v T
	err := PT(&v).UnmarshalCDR(data)
	return v, err
}

// TypeName returns the ROS type name of T.
func (MessageCodec[T, PT]) TypeName() string { var v T; return PT(&v).TypeName() }

// DDSTypeName returns the DDS type name of T.
func (MessageCodec[T, PT]) DDSTypeName() string { var v T; return PT(&v).DDSTypeName() }

// TypeHash returns the RIHS01 type hash of T.
func (MessageCodec[T, PT]) TypeHash() string { var v T; return PT(&v).TypeHash() }
