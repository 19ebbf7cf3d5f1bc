package zenoh

// Private codec helpers for the parts of the Zenoh 0x09 wire format the
// session needs. They are small and self-contained so that the session does
// not depend on the order in which internal/wire grows.

import (
	"encoding/binary"
	"errors"
	"fmt"
)

const protoVersion = 0x09

// Transport message ids.
const (
	tOAM       = 0x00
	tInit      = 0x01
	tOpen      = 0x02
	tClose     = 0x03
	tKeepAlive = 0x04
	tFrame     = 0x05
	tFragment  = 0x06
	tJoin      = 0x07
)

// Network message ids.
const (
	nOAM           = 0x1f
	nDeclare       = 0x1e
	nPush          = 0x1d
	nRequest       = 0x1c
	nResponse      = 0x1b
	nResponseFinal = 0x1a
	nInterest      = 0x19
)

// Zenoh message ids.
const (
	zPut   = 0x01
	zDel   = 0x02
	zQuery = 0x03
	zReply = 0x04
	zErr   = 0x05
)

// Declaration ids.
const (
	dKeyExpr     = 0x00
	uKeyExpr     = 0x01
	dSubscriber  = 0x02
	uSubscriber  = 0x03
	dQueryable   = 0x04
	uQueryable   = 0x05
	dToken       = 0x06
	uToken       = 0x07
	dFinal       = 0x1a
	interestMask = 0x60
)

// Header flags.
const (
	flagZ   = 0x80 // extensions follow
	flagF2  = 0x40
	flagF1  = 0x20
	idMask  = 0x1f
	extZ    = 0x80
	extM    = 0x10
	extEnc  = 0x60
	encUnit = 0x00
	encZ64  = 0x20
	encZBuf = 0x40
)

// Close reasons.
const (
	closeGeneric      = 0
	closeUnsupported  = 1
	closeInvalid      = 2
	closeMaxLinks     = 4
	closeExpired      = 5
	closeConnToSelf   = 7
	closeSessionFlagS = 0x20
)

// WhatAmI values as carried in INIT.
const (
	whatRouter = 0
	whatPeer   = 1
	whatClient = 2
)

// maxZintLen is the longest zint encoding.
const maxZintLen = 9

var errShort = fmt.Errorf("%w: unexpected end of message", ErrProtocol)

// appendZint appends v as a Zenoh variable-length integer.
func appendZint(b []byte, v uint64) []byte {
	for i := 0; i < 8; i++ {
		if v < 0x80 {
			return append(b, byte(v))
		}
		b = append(b, byte(v)|0x80)
		v >>= 7
	}
	return append(b, byte(v))
}

// appendBytes appends a zint length and the bytes.
func appendBytes(b, p []byte) []byte {
	return append(appendZint(b, uint64(len(p))), p...)
}

// appendString appends a zint length and the string.
func appendString(b []byte, s string) []byte {
	return append(appendZint(b, uint64(len(s))), s...)
}

// reader decodes from a byte slice. Every method checks bounds and reports
// errShort instead of panicking.
type reader struct {
	b []byte
}

func (r *reader) len() int { return len(r.b) }

func (r *reader) u8() (byte, error) {
	if len(r.b) == 0 {
		return 0, errShort
	}
	c := r.b[0]
	r.b = r.b[1:]
	return c, nil
}

func (r *reader) u16le() (uint16, error) {
	if len(r.b) < 2 {
		return 0, errShort
	}
	v := binary.LittleEndian.Uint16(r.b)
	r.b = r.b[2:]
	return v, nil
}

func (r *reader) zint() (uint64, error) {
	var v uint64
	for i := 0; i < maxZintLen; i++ {
		if len(r.b) == 0 {
			return 0, errShort
		}
		c := r.b[0]
		r.b = r.b[1:]
		if i == maxZintLen-1 {
			return v | uint64(c)<<56, nil
		}
		v |= uint64(c&0x7f) << (7 * i)
		if c&0x80 == 0 {
			return v, nil
		}
	}
	return v, nil // unreachable
}

// zintMax reads a zint and rejects values above limit.
func (r *reader) zintMax(limit uint64) (uint64, error) {
	v, err := r.zint()
	if err != nil {
		return 0, err
	}
	if v > limit {
		return 0, fmt.Errorf("%w: integer %d above bound %d", ErrProtocol, v, limit)
	}
	return v, nil
}

// take returns the next n bytes (aliasing the input).
func (r *reader) take(n uint64) ([]byte, error) {
	if n > uint64(len(r.b)) {
		return nil, errShort
	}
	p := r.b[:n:n]
	r.b = r.b[n:]
	return p, nil
}

// bytes reads a zint length bounded by limit and that many bytes.
func (r *reader) bytes(limit uint64) ([]byte, error) {
	n, err := r.zintMax(limit)
	if err != nil {
		return nil, err
	}
	return r.take(n)
}

// ext is one decoded extension.
type ext struct {
	id        byte // 4-bit id
	mandatory bool
	enc       byte
	z64       uint64
	zbuf      []byte
}

// nextExt decodes one extension and reports whether another follows.
func (r *reader) nextExt() (e ext, more bool, err error) {
	h, err := r.u8()
	if err != nil {
		return e, false, err
	}
	e.id = h & 0x0f
	e.mandatory = h&extM != 0
	e.enc = h & extEnc
	switch e.enc {
	case encUnit:
	case encZ64:
		e.z64, err = r.zint()
	case encZBuf:
		e.zbuf, err = r.bytes(1<<32 - 1)
	default:
		err = fmt.Errorf("%w: reserved extension encoding in header %#x", ErrProtocol, h)
	}
	return e, h&extZ != 0, err
}

var errMandatoryExt = errors.New("unknown mandatory extension")

// skipExts walks an extension chain, calling visit for each one; visit
// returns false for an extension it does not know, which is then an error
// only if it is mandatory.
func (r *reader) exts(visit func(e ext) bool) error {
	for {
		e, more, err := r.nextExt()
		if err != nil {
			return err
		}
		if !visit(e) && e.mandatory {
			return fmt.Errorf("%w: %w id %#x", ErrProtocol, errMandatoryExt, e.id)
		}
		if !more {
			return nil
		}
	}
}

// skipExts skips an extension chain where only the mandatory ids listed in
// known are acceptable.
func (r *reader) skipExts(known ...byte) error {
	for {
		e, more, err := r.nextExt()
		if err != nil {
			return err
		}
		if e.mandatory {
			ok := false
			for _, k := range known {
				ok = ok || k == e.id
			}
			if !ok {
				return fmt.Errorf("%w: %w id %#x", ErrProtocol, errMandatoryExt, e.id)
			}
		}
		if !more {
			return nil
		}
	}
}

// wireExpr is a key expression as carried on the wire.
type wireExpr struct {
	scope  uint16
	suffix []byte // aliases the message
	sender bool   // M flag: scope is in the sender's table
}

// readWireExpr reads %scope% and, if hasSuffix, the suffix.
func (r *reader) wireExpr(hasSuffix, sender bool) (wireExpr, error) {
	s, err := r.zintMax(0xffff)
	if err != nil {
		return wireExpr{}, err
	}
	w := wireExpr{scope: uint16(s), sender: sender}
	if hasSuffix {
		w.suffix, err = r.bytes(0xffff)
		if err != nil {
			return wireExpr{}, err
		}
	}
	return w, nil
}

// appendKey writes a wire expression with scope 0 and the whole key as
// suffix (the caller sets N in the header).
func appendKey(b []byte, key string) []byte {
	b = append(b, 0)
	return appendString(b, key)
}
