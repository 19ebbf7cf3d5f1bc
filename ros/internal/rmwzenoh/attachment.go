package rmwzenoh

import (
	"encoding/binary"
	"fmt"

	"github.com/afor-go/afor/ros/internal/rmw"
)

// attachmentSize is the size of rmw_zenoh's attachment: sequence number,
// source timestamp, the GID's length (a one-byte LEB128 16) and the GID.
const attachmentSize = 8 + 8 + 1 + 16

// attachment is the metadata rmw_zenoh sends with every publication,
// request and reply.
type attachment struct {
	Seq        int64   // per publisher or client, from 1
	SourceTime int64   // ns since the Unix epoch, by the sender's clock
	GID        rmw.GID // the publisher's or client's
}

// appendAttachment appends a's 33-byte encoding to b.
func appendAttachment(b []byte, a attachment) []byte {
	b = binary.LittleEndian.AppendUint64(b, uint64(a.Seq))
	b = binary.LittleEndian.AppendUint64(b, uint64(a.SourceTime))
	b = append(b, byte(len(a.GID)))
	return append(b, a.GID[:]...)
}

// parseAttachment decodes an attachment. Anything but exactly the 33 bytes
// rmw_zenoh writes is an error matching ErrMalformed.
func parseAttachment(b []byte) (attachment, error) {
	if len(b) != attachmentSize {
		return attachment{}, fmt.Errorf("%w: attachment of %d bytes, want %d", ErrMalformed, len(b), attachmentSize)
	}
	if b[16] != 16 {
		return attachment{}, fmt.Errorf("%w: attachment GID length %d, want 16", ErrMalformed, b[16])
	}
	a := attachment{
		Seq:        int64(binary.LittleEndian.Uint64(b[0:8])),
		SourceTime: int64(binary.LittleEndian.Uint64(b[8:16])),
	}
	copy(a.GID[:], b[17:])
	return a, nil
}
