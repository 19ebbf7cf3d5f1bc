package rmwdds

import (
	"encoding/binary"

	"github.com/afor-go/afor/transport/dds"
)

// Vendor ids of the DDS implementations whose service conventions differ.
var (
	VendorFastDDS = [2]byte{0x01, 0x0f} // eProsima Fast DDS (rmw_fastrtps)
	VendorCyclone = [2]byte{0x01, 0x10} // Eclipse Cyclone DDS (rmw_cyclonedds)
)

// Correlation is how a ROS 2 DDS middleware ties a reply to its request.
type Correlation uint8

// Correlation forms.
const (
	// CorrelationSampleIdentity is rmw_fastrtps's form (and DDS-RPC's):
	// the inline QoS PID_RELATED_SAMPLE_IDENTITY (0x0083, and eProsima's
	// twin 0x800f) of requests and replies; see RequestIdentity,
	// RequestID, ReplyIdentity and ClientIdentity.
	CorrelationSampleIdentity Correlation = iota + 1
	// CorrelationHeader is rmw_cyclonedds's form: a 16-byte header at the
	// start of the CDR body of requests and replies; see CycloneHeader.
	CorrelationHeader
)

// String names the form.
func (c Correlation) String() string {
	switch c {
	case CorrelationSampleIdentity:
		return "sample identity"
	case CorrelationHeader:
		return "header"
	}
	return "unknown"
}

// CorrelationFor returns the form a peer of the given vendor speaks:
// the header for Cyclone DDS, the sample identity for every other vendor
// (Fast DDS, and the DDS-RPC standard). The two do not interoperate
// (ros2/rmw_cyclonedds#184), so a client picks the form of the service's
// participant and a server answers each request in the form it came in.
func CorrelationFor(vendor [2]byte) Correlation {
	if vendor == VendorCyclone {
		return CorrelationHeader
	}
	return CorrelationSampleIdentity
}

// SNUnknown is SEQUENCENUMBER_UNKNOWN: high -1, low 0.
const SNUnknown int64 = -1 << 32

// SampleIdentity names a sample by the GUID of the entity it relates to and
// a sequence number (DDS-RPC's SampleIdentity).
type SampleIdentity struct {
	GUID dds.GUID
	SN   int64
}

// sampleIdentitySize is the wire size of a SampleIdentity.
const sampleIdentitySize = 24

// AppendSampleIdentity appends the 24 wire bytes of si (a GUID, then the
// SN as int32 high and uint32 low) in the given byte order: the value of
// PID_RELATED_SAMPLE_IDENTITY.
func AppendSampleIdentity(dst []byte, si SampleIdentity, littleEndian bool) []byte {
	var o binary.AppendByteOrder = binary.BigEndian
	if littleEndian {
		o = binary.LittleEndian
	}
	dst = append(dst, si.GUID[:]...)
	dst = o.AppendUint32(dst, uint32(si.SN>>32))
	return o.AppendUint32(dst, uint32(si.SN))
}

// ParseSampleIdentity decodes the value of PID_RELATED_SAMPLE_IDENTITY
// (at least 24 bytes; more are ignored, as in a padded parameter).
func ParseSampleIdentity(b []byte, littleEndian bool) (SampleIdentity, error) {
	if len(b) < sampleIdentitySize {
		return SampleIdentity{}, errorf(ErrMalformed, "sample identity of %d bytes", len(b))
	}
	var o binary.ByteOrder = binary.BigEndian
	if littleEndian {
		o = binary.LittleEndian
	}
	var si SampleIdentity
	copy(si.GUID[:], b[:16])
	si.SN = int64(int32(o.Uint32(b[16:])))<<32 | int64(o.Uint32(b[20:]))
	return si, nil
}

// RequestIdentity is the related sample identity a client sends inline
// with every request (rmw_fastrtps): its reply reader's GUID, SN unknown.
// The request's own sequence number, the one the reply echoes, is the
// writer sequence number the request goes out with.
func RequestIdentity(replyReader dds.GUID) SampleIdentity {
	return SampleIdentity{GUID: replyReader, SN: SNUnknown}
}

// RequestID returns the identity a server gives a request it received from
// writer with sequence number sn, as rmw_fastrtps does: {writer, sn}, the
// GUID replaced by the related GUID when the request carried one that is
// not zero. The reply carries it back (ReplyIdentity).
func RequestID(writer dds.GUID, sn int64, related SampleIdentity, hasRelated bool) SampleIdentity {
	id := SampleIdentity{GUID: writer, SN: sn}
	if hasRelated && related.GUID != (dds.GUID{}) {
		id.GUID = related.GUID
	}
	return id
}

// ReplyIdentity returns the related sample identity a server sends inline
// with the reply to request id (the id itself), and whether the reply must
// first wait, up to MaxBlocking, until the reply writer has matched the
// reader id names: a Fast DDS server does so when id names a reader, and
// drops the reply if that reader does not match in time, since the client
// would not receive it. When id names a writer (a client that sent no
// inline QoS) the reply goes out at once.
func ReplyIdentity(id SampleIdentity) (related SampleIdentity, waitForReader bool) {
	return id, isReader(id.GUID)
}

// ClientIdentity is what a sample-identity client needs to recognise its
// replies: the GUIDs of its request writer and reply reader.
type ClientIdentity struct {
	RequestWriter dds.GUID
	ReplyReader   dds.GUID
}

// Accept reports whether a reply with the given related sample identity
// answers one of this client's requests, and which one (the request's
// writer sequence number): rmw_fastrtps accepts a related GUID that is its
// reply reader (what it sends) or its request writer (what a server that
// got no inline QoS answers with).
func (c ClientIdentity) Accept(related SampleIdentity) (sn int64, ok bool) {
	if related.GUID != c.ReplyReader && related.GUID != c.RequestWriter {
		return 0, false
	}
	return related.SN, true
}
