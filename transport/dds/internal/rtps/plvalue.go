package rtps

import (
	"fmt"
	"time"
)

// Decoders of parameter values. Each checks the value's length and returns
// an error wrapping ErrMalformed or ErrLimit; strings and byte sequences are
// copied out of the datagram.

func errValue(pid uint16, n int) error {
	return fmt.Errorf("%w: parameter %#04x of %d bytes", ErrMalformed, pid, n)
}

func plUint32(pid uint16, v []byte, le bool) (uint32, error) {
	if len(v) < 4 {
		return 0, errValue(pid, len(v))
	}
	return u32(v, le), nil
}

func plGUID(pid uint16, v []byte) (GUID, error) {
	if len(v) < 16 {
		return GUID{}, errValue(pid, len(v))
	}
	return GUIDFromBytes(v), nil
}

func plDuration(pid uint16, v []byte, le bool) (time.Duration, error) {
	if len(v) < 8 {
		return 0, errValue(pid, len(v))
	}
	return durationAt(v, le).Duration(), nil
}

func plLocator(pid uint16, v []byte, le bool) (Locator, error) {
	if len(v) < 24 {
		return Locator{}, errValue(pid, len(v))
	}
	return locatorAt(v, le), nil
}

// cdrString decodes a CDR string at the start of v and returns it with the
// bytes after it. The trailing NUL is dropped if present.
func cdrString(pid uint16, v []byte, le bool) (string, []byte, error) {
	if len(v) < 4 {
		return "", nil, errValue(pid, len(v))
	}
	n := u32(v, le)
	v = v[4:]
	if uint64(n) > uint64(len(v)) {
		return "", nil, fmt.Errorf("%w: parameter %#04x string of %d bytes in %d", ErrMalformed, pid, n, len(v))
	}
	s := v[:n]
	if n > 0 && s[n-1] == 0 {
		s = s[:n-1]
	}
	return string(s), v[n:], nil
}

// align4 drops the padding that brings v, a suffix of value, to a multiple
// of 4 bytes from the value's start.
func align4(value, v []byte) []byte {
	pad := (4 - (len(value)-len(v))%4) % 4
	return v[min(pad, len(v)):]
}

func plString(pid uint16, v []byte, le bool) (string, error) {
	s, _, err := cdrString(pid, v, le)
	return s, err
}

func plOctets(pid uint16, v []byte, le bool) ([]byte, error) {
	if len(v) < 4 {
		return nil, errValue(pid, len(v))
	}
	n := u32(v, le)
	if uint64(n) > uint64(len(v)-4) {
		return nil, fmt.Errorf("%w: parameter %#04x sequence of %d bytes in %d", ErrMalformed, pid, n, len(v)-4)
	}
	return append([]byte{}, v[4:4+n]...), nil
}

// plCount reads a sequence length and checks it against limit.
func plCount(pid uint16, v []byte, le bool, limit int) (int, []byte, error) {
	if len(v) < 4 {
		return 0, nil, errValue(pid, len(v))
	}
	n := u32(v, le)
	if uint64(n) > uint64(limit) {
		return 0, nil, fmt.Errorf("%w: parameter %#04x with %d entries (limit %d)", ErrLimit, pid, n, limit)
	}
	return int(n), v[4:], nil
}

func plStrings(pid uint16, value []byte, le bool, limit int) ([]string, error) {
	n, v, err := plCount(pid, value, le, limit)
	if err != nil {
		return nil, err
	}
	if n == 0 {
		return nil, nil
	}
	out := make([]string, 0, n)
	for range n {
		v = align4(value, v)
		var s string
		if s, v, err = cdrString(pid, v, le); err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, nil
}

func plProperties(pid uint16, value []byte, le bool) ([][2]string, error) {
	n, v, err := plCount(pid, value, le, MaxProperties)
	if err != nil {
		return nil, err
	}
	if n == 0 {
		return nil, nil
	}
	out := make([][2]string, 0, n)
	for range n {
		var p [2]string
		for i := range p {
			v = align4(value, v)
			if p[i], v, err = cdrString(pid, v, le); err != nil {
				return nil, err
			}
		}
		out = append(out, p)
	}
	return out, nil
}

func plInt16s(pid uint16, value []byte, le bool, limit int) ([]int16, error) {
	n, v, err := plCount(pid, value, le, limit)
	if err != nil {
		return nil, err
	}
	if len(v) < 2*n {
		return nil, errValue(pid, len(value))
	}
	out := make([]int16, n)
	for i := range out {
		out[i] = int16(u16(v[2*i:], le))
	}
	return out, nil
}

func appendLocator(dst []Locator, pid uint16, v []byte, le bool) ([]Locator, error) {
	l, err := plLocator(pid, v, le)
	if err != nil {
		return dst, err
	}
	if len(dst) >= MaxLocators {
		return dst, fmt.Errorf("%w: more than %d locators", ErrLimit, MaxLocators)
	}
	return append(dst, l), nil
}

// encapsulation checks the 4-byte encapsulation header of a
// ParameterList body and returns its byte order and the list.
func encapsulation(payload []byte) (le bool, pl []byte, err error) {
	if len(payload) < 4 || payload[0] != 0 || (payload[1] != 2 && payload[1] != 3) {
		return false, nil, fmt.Errorf("%w: not a PL_CDR payload (%x)", ErrMalformed, payload[:min(len(payload), 4)])
	}
	return payload[1] == 3, payload[4:], nil
}

// unknownPID is the rule for a parameter a parser does not interpret:
// vendor-specific ones are ignored, standard ones with the must-understand
// bit make the entity incompatible, the rest are ignored.
func unknownPID(pid uint16) error {
	if pid&pidVendorBit == 0 && pid&pidMustUnderstand != 0 {
		return fmt.Errorf("%w: parameter %#04x", ErrIncompatible, pid)
	}
	return nil
}

// vendorIs reports whether v is one of vs.
func vendorIs(v VendorID, vs ...VendorID) bool {
	for _, x := range vs {
		if v == x {
			return true
		}
	}
	return false
}
