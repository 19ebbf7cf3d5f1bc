package wire

import "fmt"

// AppendHead appends the PUSH message m as AppendBinary does, but without
// the payload bytes of its PUT body: the result ends with the payload's
// length, and m followed by the payload is the whole message. A sender of
// a large payload writes the head and the caller's payload side by side
// (vectored) instead of copying the payload into the encoded message. A
// DEL body has no payload: AppendHead then appends the whole message.
func (m *Push) AppendHead(dst []byte) ([]byte, error) {
	put, ok := m.Body.(*Put)
	if !ok {
		return m.AppendBinary(dst)
	}
	payload := put.Payload
	if uint64(len(payload)) > MaxPayloadLen {
		return dst, fmt.Errorf("%w: field of %d bytes > %d", ErrInvalid, len(payload), uint64(MaxPayloadLen))
	}
	// Encode with an empty payload: its length, a one-byte zint 0, ends
	// the message; replace it with the real length.
	put.Payload = nil
	out, err := m.AppendBinary(dst)
	put.Payload = payload
	if err != nil {
		return out, err
	}
	return AppendZint(out[:len(out)-1], uint64(len(payload))), nil
}
