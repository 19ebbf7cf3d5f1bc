package rtps

import (
	"encoding/binary"
	"fmt"
	"math"
	"net/netip"
	"time"
)

// GuidPrefix identifies a participant: the first 12 bytes of every GUID it
// owns.
type GuidPrefix [12]byte

// String formats the prefix as three dot-separated groups of hex digits.
func (p GuidPrefix) String() string {
	return fmt.Sprintf("%x.%x.%x", p[0:4], p[4:8], p[8:12])
}

// EntityID identifies an entity within a participant: a 3-byte key and a
// 1-byte kind, always in this byte order on the wire.
type EntityID [4]byte

// Entity kinds (the last byte of an EntityID) for user entities.
const (
	KindWriterKey   byte = 0x02 // user writer, keyed topic
	KindWriterNoKey byte = 0x03 // user writer, keyless topic (ROS 2)
	KindReaderNoKey byte = 0x04 // user reader, keyless topic (ROS 2)
	KindReaderKey   byte = 0x07 // user reader, keyed topic
)

// Builtin entity ids.
var (
	EntityUnknown       = EntityID{0, 0, 0, 0}
	EntityParticipant   = EntityID{0, 0, 1, 0xc1}
	EntitySPDPWriter    = EntityID{0, 1, 0, 0xc2}
	EntitySPDPReader    = EntityID{0, 1, 0, 0xc7}
	EntitySEDPPubWriter = EntityID{0, 0, 3, 0xc2}
	EntitySEDPPubReader = EntityID{0, 0, 3, 0xc7}
	EntitySEDPSubWriter = EntityID{0, 0, 4, 0xc2}
	EntitySEDPSubReader = EntityID{0, 0, 4, 0xc7}
	EntityWLPWriter     = EntityID{0, 2, 0, 0xc2}
	EntityWLPReader     = EntityID{0, 2, 0, 0xc7}
)

// NewUserEntityID returns a user entity id with the low 24 bits of key and
// the given kind (one of the Kind* constants).
func NewUserEntityID(key uint32, kind byte) EntityID {
	return EntityID{byte(key >> 16), byte(key >> 8), byte(key), kind}
}

// Key returns the 24-bit entity key.
func (e EntityID) Key() uint32 { return uint32(e[0])<<16 | uint32(e[1])<<8 | uint32(e[2]) }

// Kind returns the entity kind byte.
func (e EntityID) Kind() byte { return e[3] }

// IsReader reports whether the kind denotes a reader (bit 0x04 set), the
// rule Fast DDS and rmw_fastrtps rely on.
func (e EntityID) IsReader() bool { return e[3]&0x04 != 0 }

// IsBuiltin reports whether the kind's top two bits mark a builtin entity.
func (e EntityID) IsBuiltin() bool { return e[3]&0xc0 == 0xc0 }

// String formats the id as 8 hex digits.
func (e EntityID) String() string { return fmt.Sprintf("%x", e[:]) }

// GUID identifies an entity globally.
type GUID struct {
	Prefix GuidPrefix
	Entity EntityID
}

// GUIDFromBytes returns the GUID held in the first 16 bytes of b, which
// must have at least 16 bytes.
func GUIDFromBytes(b []byte) GUID {
	var g GUID
	copy(g.Prefix[:], b[:12])
	copy(g.Entity[:], b[12:16])
	return g
}

// Bytes returns the 16 wire bytes of the GUID.
func (g GUID) Bytes() [16]byte {
	var b [16]byte
	copy(b[:12], g.Prefix[:])
	copy(b[12:], g.Entity[:])
	return b
}

// String formats the GUID as prefix|entity.
func (g GUID) String() string { return g.Prefix.String() + "|" + g.Entity.String() }

// SequenceNumber is an RTPS 64-bit sequence number; valid ones start at 1.
type SequenceNumber int64

// SeqUnknown is SEQUENCENUMBER_UNKNOWN (high -1, low 0).
const SeqUnknown SequenceNumber = -1 << 32

// Time is an RTPS Time_t: seconds and 2⁻³² s fractions since the Unix epoch.
type Time struct {
	Sec  int32
	Frac uint32
}

// Special Time values.
var (
	TimeZero     = Time{0, 0}
	TimeInvalid  = Time{-1, 0xffffffff}
	TimeInfinite = Time{0x7fffffff, 0xffffffff}
)

// TimeFrom converts t to a Time (seconds truncated to 32 bits). The
// fraction is rounded up, as Cyclone DDS does, so that a receiver that
// truncates it back to nanoseconds (Cyclone) gets t's nanoseconds exactly:
// Cyclone's ddsperf tells its pongs apart by the lowest bit of the source
// timestamp.
func TimeFrom(t time.Time) Time {
	ns := uint64(t.Nanosecond())
	return Time{Sec: int32(t.Unix()), Frac: uint32((ns<<32 + 1e9 - 1) / 1e9)}
}

// Time converts to a time.Time. TimeInvalid gives the zero time.Time.
func (t Time) Time() time.Time {
	if t == TimeInvalid {
		return time.Time{}
	}
	ns := (uint64(t.Frac)*1e9 + (1 << 31)) >> 32
	return time.Unix(int64(t.Sec), int64(ns))
}

// Duration is an RTPS Duration_t, the same layout as Time.
type Duration struct {
	Sec  int32
	Frac uint32
}

// DurationInfinite is DURATION_INFINITE, {0x7fffffff, 0xffffffff}.
var DurationInfinite = Duration{0x7fffffff, 0xffffffff}

// Infinite is the time.Duration that stands for an infinite RTPS Duration
// (math.MaxInt64, about 292 years): Duration.Duration returns it for
// DurationInfinite and DurationFrom maps it (and anything at least 2³¹ s
// long) to DurationInfinite.
const Infinite time.Duration = math.MaxInt64

// DurationFrom converts d. Negative durations become zero; Infinite and
// durations of 2³¹ s or more become DurationInfinite.
func DurationFrom(d time.Duration) Duration {
	if d <= 0 {
		return Duration{}
	}
	sec := d / time.Second
	if sec >= math.MaxInt32 {
		return DurationInfinite
	}
	ns := uint64(d % time.Second)
	return Duration{Sec: int32(sec), Frac: uint32((ns<<32 + 1e9 - 1) / 1e9)}
}

// Duration converts to a time.Duration: Infinite when the seconds are
// 0x7fffffff (any fraction), zero for negative values.
func (d Duration) Duration() time.Duration {
	if d.Sec == math.MaxInt32 {
		return Infinite
	}
	if d.Sec < 0 {
		return 0
	}
	ns := (uint64(d.Frac) * 1e9) >> 32
	return time.Duration(d.Sec)*time.Second + time.Duration(ns)
}

// Locator kinds.
const (
	LocatorKindInvalid int32 = -1
	LocatorKindUDPv4   int32 = 1
	LocatorKindUDPv6   int32 = 2
)

// Locator is an RTPS Locator_t: a transport kind, a port and a 16-byte
// address (IPv4 in the last 4 bytes).
type Locator struct {
	Kind int32
	Port uint32
	Addr [16]byte
}

// LocatorUDPv4 returns a UDPv4 locator for ip (which should be IPv4 or
// IPv4-mapped) and port.
func LocatorUDPv4(ip netip.Addr, port uint16) Locator {
	l := Locator{Kind: LocatorKindUDPv4, Port: uint32(port)}
	a := ip.Unmap().As4()
	copy(l.Addr[12:], a[:])
	return l
}

// AddrPort returns the address and port of a UDPv4 locator; ok is false for
// every other kind and for ports that do not fit 16 bits.
func (l Locator) AddrPort() (ap netip.AddrPort, ok bool) {
	if l.Kind != LocatorKindUDPv4 || l.Port == 0 || l.Port > math.MaxUint16 {
		return netip.AddrPort{}, false
	}
	return netip.AddrPortFrom(netip.AddrFrom4([4]byte(l.Addr[12:16])), uint16(l.Port)), true
}

// String formats UDPv4 locators as udpv4:addr:port and others generically.
func (l Locator) String() string {
	if ap, ok := l.AddrPort(); ok {
		return "udpv4:" + ap.String()
	}
	return fmt.Sprintf("locator(%d):%x:%d", l.Kind, l.Addr[:], l.Port)
}

// VendorID identifies the implementation that sent a message.
type VendorID [2]byte

// Known vendor ids.
var (
	VendorUnknown  = VendorID{0x00, 0x00}
	VendorRTI      = VendorID{0x01, 0x01}
	VendorOpenDDS  = VendorID{0x01, 0x03}
	VendorEProsima = VendorID{0x01, 0x0f}
	VendorCyclone  = VendorID{0x01, 0x10}
	VendorRustDDS  = VendorID{0x01, 0x12}
	// VendorAfor is the id afor sends: 01.af. The OMG registry
	// (dds-foundation.org's vendor and product id list) assigns ids in the
	// 01.xx range in order and had reached 01.16 by late 2024; 01.20 is also
	// seen in the wild (PrismTech Vortex Cloud in freertps's table). 0xaf
	// ("afor") is far above all of them, so no peer mistakes afor for
	// another implementation and applies that vendor's PIDs to us, which is
	// what happens with 00.00 (Fast DDS treats unknown as eProsima) and of
	// course with 01.0f. Wireshark shows it as "01.175 (Unknown)".
	VendorAfor = VendorID{0x01, 0xaf}
)

// String formats the id as two dotted hex bytes.
func (v VendorID) String() string { return fmt.Sprintf("%02x.%02x", v[0], v[1]) }

// ProtocolVersion is an RTPS protocol version (major, minor).
type ProtocolVersion [2]byte

// ProtocolVersion24 is the version afor sends (RTPS 2.4).
var ProtocolVersion24 = ProtocolVersion{2, 4}

// putSN appends a sequence number in little-endian wire form.
func appendSN(b []byte, sn SequenceNumber) []byte {
	b = binary.LittleEndian.AppendUint32(b, uint32(int64(sn)>>32))
	return binary.LittleEndian.AppendUint32(b, uint32(sn))
}
