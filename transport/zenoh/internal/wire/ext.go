package wire

import (
	"fmt"
	"math"
)

// ExtEncoding is how an extension's value is encoded (bits 5-6 of its
// header).
type ExtEncoding uint8

// Extension encodings.
const (
	// ExtUnit carries no value.
	ExtUnit ExtEncoding = 0
	// ExtZ64 carries one zint.
	ExtZ64 ExtEncoding = 1
	// ExtZBuf carries a zint length and that many bytes.
	ExtZBuf ExtEncoding = 2
)

// Extension header bits.
const (
	// ExtIDMask selects the extension id (bits 0-3).
	ExtIDMask = 0x0f
	// ExtFlagM marks a mandatory extension: a receiver that does not know
	// it must reject the message.
	ExtFlagM = 0x10
	// ExtEncMask selects the encoding bits.
	ExtEncMask = 0x60
	// ExtFlagZ tells that another extension follows in the chain.
	ExtFlagZ = 0x80
)

// Extension is one element of a message's extension chain. Messages decode
// the extensions they know into typed fields and keep the others (unknown,
// non-mandatory) in their Exts field, so they are re-encoded unchanged.
type Extension struct {
	// ID is the extension id, 0 to 15.
	ID uint8
	// Mandatory is the M flag.
	Mandatory bool
	// Encoding tells which of Value or Body is meaningful.
	Encoding ExtEncoding
	// Value is the value of an ExtZ64 extension.
	Value uint64
	// Body is the content of an ExtZBuf extension; decoded bodies alias the
	// input.
	Body []byte
}

// Header returns the extension's header byte without the Z (more) flag.
func (e *Extension) Header() byte {
	h := e.ID&ExtIDMask | byte(e.Encoding)<<5&ExtEncMask
	if e.Mandatory {
		h |= ExtFlagM
	}
	return h
}

// Extension keys (header bytes without Z) of the extensions this package
// decodes into typed fields.
const (
	extZ64Patch    = 0x27 // INIT patch
	extFrameQoS    = 0x31 // FRAME/FRAGMENT QoS, mandatory Z64 id 1
	extFragFirst   = 0x02 // FRAGMENT first, unit id 2
	extFragDrop    = 0x03 // FRAGMENT drop, unit id 3
	extNetQoS      = 0x21 // network QoS, Z64 id 1
	extNetTstamp   = 0x42 // network timestamp, ZBuf id 2
	extNetNodeID   = 0x33 // network node id, mandatory Z64 id 3
	extReqTarget   = 0x34 // REQUEST target, mandatory Z64 id 4
	extReqBudget   = 0x25 // REQUEST budget, Z64 id 5
	extReqTimeout  = 0x26 // REQUEST timeout, Z64 id 6
	extRespID      = 0x43 // RESPONSE responder id, ZBuf id 3
	extSourceInfo  = 0x41 // PUT/DEL/QUERY/ERR source info, ZBuf id 1
	extPutAttach   = 0x43 // PUT attachment, ZBuf id 3
	extDelAttach   = 0x42 // DEL attachment, ZBuf id 2
	extQueryBody   = 0x43 // QUERY body, ZBuf id 3
	extQueryAttach = 0x45 // QUERY attachment, ZBuf id 5
	extQblInfo     = 0x21 // D_QUERYABLE info, Z64 id 1
	extUndeclWE    = 0x5f // U_* wire expr, mandatory ZBuf id 15
)

// appendExt appends one extension with the given more (Z) flag.
func appendExt(dst []byte, e *Extension, more bool) ([]byte, error) {
	h := e.Header()
	if more {
		h |= ExtFlagZ
	}
	switch e.Encoding {
	case ExtUnit:
		return append(dst, h), nil
	case ExtZ64:
		return AppendZint(append(dst, h), e.Value), nil
	case ExtZBuf:
		return appendLenBytes(append(dst, h), e.Body, math.MaxUint32)
	}
	return dst, fmt.Errorf("%w: extension encoding %d", ErrInvalid, e.Encoding)
}

// AppendExtensions appends exts as a chain, setting the Z flag on every
// extension but the last. The caller sets the Z flag of the message header
// when exts is not empty.
func AppendExtensions(dst []byte, exts []Extension) ([]byte, error) {
	var err error
	for i := range exts {
		if dst, err = appendExt(dst, &exts[i], i < len(exts)-1); err != nil {
			return dst, err
		}
	}
	return dst, nil
}

// ReadExtensions decodes an extension chain from the front of b (the bytes
// after a message whose Z flag is set) and returns the extensions and the
// number of bytes consumed. It keeps every extension, known or not; message
// decoders use the same reader and reject unknown mandatory ones.
func ReadExtensions(b []byte, lim Limits) ([]Extension, int, error) {
	r := reader{b: b, lim: lim.withDefaults()}
	var exts []Extension
	for more := true; more; {
		if len(exts) >= r.lim.MaxExtensions {
			return nil, 0, fmt.Errorf("%w: more than %d extensions", ErrLimit, r.lim.MaxExtensions)
		}
		var e Extension
		var err error
		if e, more, err = r.ext(); err != nil {
			return nil, 0, err
		}
		exts = append(exts, e)
	}
	return exts, r.off, nil
}

// ext reads one extension and reports whether another follows.
func (r *reader) ext() (Extension, bool, error) {
	var e Extension
	h, err := r.u8()
	if err != nil {
		return e, false, err
	}
	e.ID = h & ExtIDMask
	e.Mandatory = h&ExtFlagM != 0
	e.Encoding = ExtEncoding((h & ExtEncMask) >> 5)
	switch e.Encoding {
	case ExtUnit:
	case ExtZ64:
		e.Value, err = r.zint()
	case ExtZBuf:
		e.Body, err = r.lenBytes(math.MaxUint32, r.lim.MaxExtension)
	default:
		err = fmt.Errorf("%w: extension encoding 0b11", ErrInvalid)
	}
	return e, h&ExtFlagZ != 0, err
}

// extChain walks an extension chain, calling known for each extension. known
// returns false for an extension it does not handle; such an extension is
// rejected if mandatory and otherwise appended to *other. If tolerateEmpty
// is set, a chain announced by the message header but absent because the
// input ends is accepted (zenoh-pico sends this in INIT ack).
func (r *reader) extChain(other *[]Extension, tolerateEmpty bool, known func(key byte, e Extension) (bool, error)) error {
	if tolerateEmpty && r.remaining() == 0 {
		return nil
	}
	for n, more := 0, true; more; n++ {
		if n >= r.lim.MaxExtensions {
			return fmt.Errorf("%w: more than %d extensions", ErrLimit, r.lim.MaxExtensions)
		}
		var e Extension
		var err error
		if e, more, err = r.ext(); err != nil {
			return err
		}
		ok, err := known(e.Header(), e)
		if err != nil {
			return err
		}
		if ok {
			continue
		}
		if e.Mandatory {
			return fmt.Errorf("%w: header %#02x", ErrMandatoryExtension, e.Header())
		}
		*other = append(*other, e)
	}
	return nil
}

// extWriter sets the Z flag on every extension header but the last of a
// chain whose length is known in advance.
type extWriter struct{ n, i int }

// next returns h with the Z flag set unless it is the last extension.
func (w *extWriter) next(h byte) byte {
	w.i++
	if w.i < w.n {
		h |= ExtFlagZ
	}
	return h
}

// more reports whether an extension is still to be written after the
// current one (used with appendExt).
func (w *extWriter) more() bool {
	w.i++
	return w.i < w.n
}
