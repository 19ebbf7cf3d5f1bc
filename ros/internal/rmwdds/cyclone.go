package rmwdds

import (
	"encoding/binary"
	"hash/fnv"

	"github.com/afor-go/afor/ros/internal/rmw"
	"github.com/afor-go/afor/transport/dds"
)

// CycloneHeader is the header rmw_cyclonedds puts at the start of the CDR
// body of every request and reply (its cdds_request_header_t): the
// client's 64-bit id (the instance handle of its request writer) and the
// client's counter of requests. The reply echoes the request's.
type CycloneHeader struct {
	ClientID uint64
	Seq      int64
}

// Sizes of the encapsulation header and of the Cyclone header.
const (
	encapsulationSize = 4
	cycloneHeaderSize = 16
)

// CycloneClientID derives a client's 64-bit id from its request writer's
// GUID (FNV-1a), for the requests of a Go client in Cyclone's form.
func CycloneClientID(requestWriter dds.GUID) uint64 {
	h := fnv.New64a()
	_, _ = h.Write(requestWriter[:])
	return h.Sum64()
}

// GID is the requester's GID as rmw_cyclonedds reports it in a request's
// info: the client id's 8 bytes (little endian), then zeros.
func (h CycloneHeader) GID() rmw.GID {
	var g rmw.GID
	binary.LittleEndian.PutUint64(g[:8], h.ClientID)
	return g
}

// byteOrder returns the body byte order of a payload's encapsulation header
// (CDR, PL_CDR or XCDR2, big or little endian).
func byteOrder(payload []byte) (binary.ByteOrder, error) {
	if len(payload) < encapsulationSize {
		return nil, errorf(ErrMalformed, "payload of %d bytes has no encapsulation header", len(payload))
	}
	if payload[0] != 0 || payload[1] > 0x0b {
		return nil, errorf(ErrMalformed, "unknown encapsulation %02x%02x", payload[0], payload[1])
	}
	if payload[1]&1 != 0 {
		return binary.LittleEndian, nil
	}
	return binary.BigEndian, nil
}

// AppendCyclone appends to dst the payload (a complete CDR payload,
// encapsulation header included) in rmw_cyclonedds's form: h is inserted
// between the encapsulation header and the body, in the body's byte
// order. The body's alignment is unchanged, as the header is 16 bytes.
func AppendCyclone(dst, payload []byte, h CycloneHeader) ([]byte, error) {
	o, err := byteOrder(payload)
	if err != nil {
		return dst, err
	}
	dst = append(dst, payload[:encapsulationSize]...)
	var hdr [cycloneHeaderSize]byte
	o.PutUint64(hdr[:8], h.ClientID)
	o.PutUint64(hdr[8:], uint64(h.Seq))
	dst = append(dst, hdr[:]...)
	return append(dst, payload[encapsulationSize:]...), nil
}

// CutCyclone splits the Cyclone header off a received request or reply and
// returns it with the remaining ROS payload, without copying: it moves the
// 4-byte encapsulation header forward over the header's last bytes, so
// payload itself is modified and the result aliases it.
func CutCyclone(payload []byte) (CycloneHeader, []byte, error) {
	o, err := byteOrder(payload)
	if err != nil {
		return CycloneHeader{}, nil, err
	}
	if len(payload) < encapsulationSize+cycloneHeaderSize {
		return CycloneHeader{}, nil, errorf(ErrMalformed, "payload of %d bytes has no request header", len(payload))
	}
	h := CycloneHeader{
		ClientID: o.Uint64(payload[encapsulationSize:]),
		Seq:      int64(o.Uint64(payload[encapsulationSize+8:])),
	}
	rest := payload[cycloneHeaderSize:]
	copy(rest[:encapsulationSize], payload[:encapsulationSize])
	return h, rest, nil
}
