package rtps

import (
	"fmt"
	"math"
)

// Parameter ids (PIDs) used by this package.
const (
	PIDPad                         uint16 = 0x0000
	PIDSentinel                    uint16 = 0x0001
	PIDParticipantLeaseDuration    uint16 = 0x0002
	PIDTimeBasedFilter             uint16 = 0x0004
	PIDTopicName                   uint16 = 0x0005
	PIDOwnershipStrength           uint16 = 0x0006
	PIDTypeName                    uint16 = 0x0007
	PIDDomainID                    uint16 = 0x000f
	PIDProtocolVersion             uint16 = 0x0015
	PIDVendorID                    uint16 = 0x0016
	PIDReliability                 uint16 = 0x001a
	PIDLiveliness                  uint16 = 0x001b
	PIDDurability                  uint16 = 0x001d
	PIDDurabilityService           uint16 = 0x001e
	PIDOwnership                   uint16 = 0x001f
	PIDPresentation                uint16 = 0x0021
	PIDDeadline                    uint16 = 0x0023
	PIDDestinationOrder            uint16 = 0x0025
	PIDLatencyBudget               uint16 = 0x0027
	PIDPartition                   uint16 = 0x0029
	PIDLifespan                    uint16 = 0x002b
	PIDUserData                    uint16 = 0x002c
	PIDGroupData                   uint16 = 0x002d
	PIDTopicData                   uint16 = 0x002e
	PIDUnicastLocator              uint16 = 0x002f
	PIDMulticastLocator            uint16 = 0x0030
	PIDDefaultUnicastLocator       uint16 = 0x0031
	PIDMetatrafficUnicastLocator   uint16 = 0x0032
	PIDMetatrafficMulticastLocator uint16 = 0x0033
	PIDManualLivelinessCount       uint16 = 0x0034
	PIDHistory                     uint16 = 0x0040
	PIDResourceLimits              uint16 = 0x0041
	PIDExpectsInlineQoS            uint16 = 0x0043
	PIDDefaultMulticastLocator     uint16 = 0x0048
	PIDTransportPriority           uint16 = 0x0049
	PIDParticipantGUID             uint16 = 0x0050
	PIDGroupGUID                   uint16 = 0x0052
	PIDBuiltinEndpointSet          uint16 = 0x0058
	PIDPropertyList                uint16 = 0x0059
	PIDEndpointGUID                uint16 = 0x005a
	PIDTypeMaxSizeSerialized       uint16 = 0x0060
	PIDEntityName                  uint16 = 0x0062
	PIDKeyHash                     uint16 = 0x0070
	PIDStatusInfo                  uint16 = 0x0071
	PIDDataRepresentation          uint16 = 0x0073
	PIDTypeConsistency             uint16 = 0x0074
	PIDTypeInformation             uint16 = 0x0075
	PIDBuiltinEndpointQoS          uint16 = 0x0077
	PIDRelatedSampleIdentity       uint16 = 0x0083
	PIDDomainTag                   uint16 = 0x4014
	// PIDCustomRelatedSampleIdentity is eProsima's vendor twin of
	// PIDRelatedSampleIdentity, read only from eProsima and RTI senders.
	PIDCustomRelatedSampleIdentity uint16 = 0x800f

	pidVendorBit      uint16 = 0x8000
	pidMustUnderstand uint16 = 0x4000
)

// ParsePL walks a ParameterList (no encapsulation header) in the given byte
// order, calling fn with each parameter's id and value (which aliases b and
// includes any padding). PAD parameters are skipped; SENTINEL ends the list,
// whatever its length field says. It returns ErrMalformed if a length runs
// past b or the list has no SENTINEL, and stops at the first error fn
// returns, returning it.
func ParsePL(b []byte, littleEndian bool, fn func(pid uint16, value []byte) error) error {
	_, err := walkPL(b, littleEndian, fn)
	return err
}

// walkPL is ParsePL that also returns the length of the list, SENTINEL
// included. fn may be nil.
func walkPL(b []byte, le bool, fn func(pid uint16, value []byte) error) (int, error) {
	p := 0
	for {
		if len(b)-p < 4 {
			return 0, fmt.Errorf("%w: parameter list without sentinel", ErrMalformed)
		}
		pid, n := u16(b[p:], le), int(u16(b[p+2:], le))
		if pid == PIDSentinel {
			return p + 4, nil
		}
		if len(b)-p-4 < n {
			return 0, fmt.Errorf("%w: parameter %#04x length %d past the end", ErrMalformed, pid, n)
		}
		if pid != PIDPad && fn != nil {
			if err := fn(pid, b[p+4:p+4+n]); err != nil {
				return 0, err
			}
		}
		p += 4 + n
	}
}

// PLWriter appends a little-endian ParameterList to a buffer. Every value is
// zero-padded to a multiple of 4 bytes. A value over 65535 bytes is not
// written and sets Err to ErrTooLarge; later calls are then no-ops.
type PLWriter struct {
	buf []byte
	err error
}

// Reset makes w append to dst (which may be nil) and clears Err.
func (w *PLWriter) Reset(dst []byte) { w.buf, w.err = dst, nil }

// Bytes returns the buffer with everything appended so far.
func (w *PLWriter) Bytes() []byte { return w.buf }

// Err returns the first encoding error, or nil.
func (w *PLWriter) Err() error { return w.err }

// begin appends the header of parameter pid and returns its offset.
func (w *PLWriter) begin(pid uint16) int {
	off := len(w.buf)
	w.buf = append(w.buf, byte(pid), byte(pid>>8), 0, 0)
	return off
}

// end pads the value begun at off and patches its length.
func (w *PLWriter) end(off int) {
	for len(w.buf)%4 != off%4 {
		w.buf = append(w.buf, 0)
	}
	n := len(w.buf) - off - 4
	if n > math.MaxUint16 {
		w.buf = w.buf[:off]
		if w.err == nil {
			w.err = fmt.Errorf("%w: parameter of %d bytes", ErrTooLarge, n)
		}
		return
	}
	w.buf[off+2], w.buf[off+3] = byte(n), byte(n>>8)
}

// Param appends parameter pid with the raw value v.
func (w *PLWriter) Param(pid uint16, v []byte) {
	if w.err != nil {
		return
	}
	off := w.begin(pid)
	w.buf = append(w.buf, v...)
	w.end(off)
}

// Uint32 appends a 4-byte unsigned parameter.
func (w *PLWriter) Uint32(pid uint16, v uint32) {
	if w.err != nil {
		return
	}
	w.buf = append(w.buf, byte(pid), byte(pid>>8), 4, 0)
	w.buf = le32(w.buf, v)
}

// Bool appends a boolean parameter (one byte and 3 bytes of padding).
func (w *PLWriter) Bool(pid uint16, v bool) {
	var b byte
	if v {
		b = 1
	}
	w.Param(pid, []byte{b})
}

// String appends a CDR string parameter: length with NUL, bytes, NUL.
func (w *PLWriter) String(pid uint16, s string) {
	if w.err != nil {
		return
	}
	off := w.begin(pid)
	w.appendString(s)
	w.end(off)
}

func (w *PLWriter) appendString(s string) {
	w.buf = le32(w.buf, uint32(len(s)+1))
	w.buf = append(w.buf, s...)
	w.buf = append(w.buf, 0)
}

// Strings appends a sequence of strings (PARTITION).
func (w *PLWriter) Strings(pid uint16, ss []string) {
	if w.err != nil {
		return
	}
	off := w.begin(pid)
	w.buf = le32(w.buf, uint32(len(ss)))
	for _, s := range ss {
		for len(w.buf)%4 != off%4 {
			w.buf = append(w.buf, 0)
		}
		w.appendString(s)
	}
	w.end(off)
}

// Locator appends a Locator_t parameter.
func (w *PLWriter) Locator(pid uint16, l Locator) {
	if w.err != nil {
		return
	}
	w.buf = append(w.buf, byte(pid), byte(pid>>8), 24, 0)
	w.buf = le32(w.buf, uint32(l.Kind))
	w.buf = le32(w.buf, l.Port)
	w.buf = append(w.buf, l.Addr[:]...)
}

// GUID appends a 16-byte GUID parameter.
func (w *PLWriter) GUID(pid uint16, g GUID) {
	if w.err != nil {
		return
	}
	w.buf = append(w.buf, byte(pid), byte(pid>>8), 16, 0)
	w.buf = append(w.buf, g.Prefix[:]...)
	w.buf = append(w.buf, g.Entity[:]...)
}

// Duration appends a Duration_t parameter.
func (w *PLWriter) Duration(pid uint16, d Duration) {
	if w.err != nil {
		return
	}
	w.buf = append(w.buf, byte(pid), byte(pid>>8), 8, 0)
	w.buf = le32(w.buf, uint32(d.Sec))
	w.buf = le32(w.buf, d.Frac)
}

// Octets appends a sequence<octet> parameter (USER_DATA and the like).
func (w *PLWriter) Octets(pid uint16, b []byte) {
	if w.err != nil {
		return
	}
	off := w.begin(pid)
	w.buf = le32(w.buf, uint32(len(b)))
	w.buf = append(w.buf, b...)
	w.end(off)
}

// Int16s appends a sequence<int16> parameter (DATA_REPRESENTATION).
func (w *PLWriter) Int16s(pid uint16, v []int16) {
	if w.err != nil {
		return
	}
	off := w.begin(pid)
	w.buf = le32(w.buf, uint32(len(v)))
	for _, x := range v {
		w.buf = le16(w.buf, uint16(x))
	}
	w.end(off)
}

// Properties appends a PROPERTY_LIST of name/value string pairs (without
// the binary-property part).
func (w *PLWriter) Properties(pid uint16, props [][2]string) {
	if w.err != nil {
		return
	}
	off := w.begin(pid)
	w.buf = le32(w.buf, uint32(len(props)))
	for _, p := range props {
		for _, s := range p {
			for len(w.buf)%4 != off%4 {
				w.buf = append(w.buf, 0)
			}
			w.appendString(s)
		}
	}
	w.end(off)
}

// KeyHash appends a KEY_HASH holding the 16 bytes of g.
func (w *PLWriter) KeyHash(g GUID) { w.GUID(PIDKeyHash, g) }

// StatusInfo appends a STATUS_INFO with the given flags (StatusDisposed,
// StatusUnregistered, StatusFiltered) in its last byte.
func (w *PLWriter) StatusInfo(flags uint32) {
	if w.err != nil {
		return
	}
	w.buf = append(w.buf, byte(PIDStatusInfo), byte(PIDStatusInfo>>8), 4, 0,
		byte(flags>>24), byte(flags>>16), byte(flags>>8), byte(flags))
}

// SampleIdentity appends a sample identity (GUID and sequence number), the
// layout of PIDRelatedSampleIdentity and PIDCustomRelatedSampleIdentity.
func (w *PLWriter) SampleIdentity(pid uint16, si SampleIdentity) {
	if w.err != nil {
		return
	}
	w.buf = append(w.buf, byte(pid), byte(pid>>8), 24, 0)
	w.buf = append(w.buf, si.Writer.Prefix[:]...)
	w.buf = append(w.buf, si.Writer.Entity[:]...)
	w.buf = appendSN(w.buf, si.SN)
}

// Sentinel appends PID_SENTINEL, ending the list.
func (w *PLWriter) Sentinel() {
	if w.err != nil {
		return
	}
	w.buf = append(w.buf, 1, 0, 0, 0)
}
