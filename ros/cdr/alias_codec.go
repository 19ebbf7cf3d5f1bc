package cdr

// AliasingCodec is MessageCodec with a Decode that aliases (UnmarshalAlias):
// the decoded values' numeric sequences are views of the payload they were
// decoded from. It is stateless and safe for concurrent use.
//
// A byte transport's codec may normally not keep the bytes Decode is
// given; this one does. KeepsPayload says so, and a transport that honours
// it (transport/zenoh's SubscribeCodec, see its PayloadKeeper) hands Decode
// bytes it never reuses. Use it only with such a transport, or where every
// payload is a buffer nobody writes again (transport/dds's samples):
// elsewhere, use Codec.
type AliasingCodec[T any, PT interface {
	*T
	Message
}] struct {
	MessageCodec[T, PT]
}

// AliasCodec returns the aliasing codec of generated message type T, e.g.
// cdr.AliasCodec[sensor_msgs.Image]().
func AliasCodec[T any, PT interface {
	*T
	Message
}]() AliasingCodec[T, PT] {
	return AliasingCodec[T, PT]{}
}

// Decode decodes a CDR payload into a new T whose numeric sequences may
// alias data.
func (AliasingCodec[T, PT]) Decode(data []byte) (T, error) {
	var v T
	err := UnmarshalAlias(data, PT(&v))
	return v, err
}

// KeepsPayload returns true: values decoded by Decode may share memory with
// the payload.
func (AliasingCodec[T, PT]) KeepsPayload() bool { return true }
