package wire

import (
	"encoding"
	"fmt"
	"math"
)

// Declaration is the body of a DECLARE: one of *DeclareKeyExpr,
// *UndeclareKeyExpr, *DeclareSubscriber, *UndeclareSubscriber,
// *DeclareQueryable, *UndeclareQueryable, *DeclareToken, *UndeclareToken or
// *DeclareFinal.
type Declaration interface {
	encoding.BinaryAppender
	declaration()
}

// DeclareKeyExpr (D_KEYEXPR) binds ID, in the sender's table, to a key
// expression. Its WireExpr's Mapping is not carried on the wire.
type DeclareKeyExpr struct {
	// ID is the new expression id.
	ID uint16
	// WireExpr is the expression (scope and suffix).
	WireExpr WireExpr
}

// UndeclareKeyExpr (U_KEYEXPR) removes an expression id.
type UndeclareKeyExpr struct {
	// ID is the expression id being removed.
	ID uint16
}

// DeclareSubscriber (D_SUBSCRIBER) declares a subscriber.
type DeclareSubscriber struct {
	// ID identifies the subscriber in the sender.
	ID uint32
	// WireExpr is the subscribed key expression.
	WireExpr WireExpr
	// Exts holds the extensions, unchanged.
	Exts []Extension
}

// UndeclareSubscriber (U_SUBSCRIBER) removes a subscriber.
type UndeclareSubscriber struct {
	// ID identifies the subscriber.
	ID uint32
	// HasWireExpr tells whether the wire expression extension (0xf,
	// mandatory) is present.
	HasWireExpr bool
	// WireExpr is the subscriber's key expression.
	WireExpr WireExpr
}

// DeclareQueryable (D_QUERYABLE) declares a queryable.
type DeclareQueryable struct {
	// ID identifies the queryable in the sender.
	ID uint32
	// WireExpr is the queryable's key expression.
	WireExpr WireExpr
	// Complete and Distance form the queryable info extension (0x1),
	// written when either is not zero.
	Complete bool
	// Distance is the routing distance to the queryable.
	Distance uint16
	// Exts holds other, non-mandatory extensions, unchanged.
	Exts []Extension
}

// UndeclareQueryable (U_QUERYABLE) removes a queryable.
type UndeclareQueryable struct {
	// ID identifies the queryable.
	ID uint32
	// HasWireExpr tells whether the wire expression extension is present.
	HasWireExpr bool
	// WireExpr is the queryable's key expression.
	WireExpr WireExpr
}

// DeclareToken (D_TOKEN) declares a liveliness token.
type DeclareToken struct {
	// ID identifies the token in the sender.
	ID uint32
	// WireExpr is the token's key expression.
	WireExpr WireExpr
	// Exts holds the extensions, unchanged.
	Exts []Extension
}

// UndeclareToken (U_TOKEN) removes a liveliness token.
type UndeclareToken struct {
	// ID identifies the token.
	ID uint32
	// HasWireExpr tells whether the wire expression extension is present.
	HasWireExpr bool
	// WireExpr is the token's key expression.
	WireExpr WireExpr
}

// DeclareFinal (D_FINAL) ends the declarations answering an interest.
type DeclareFinal struct {
	// Exts holds the extensions, unchanged.
	Exts []Extension
}

func (*DeclareKeyExpr) declaration()      {}
func (*UndeclareKeyExpr) declaration()    {}
func (*DeclareSubscriber) declaration()   {}
func (*UndeclareSubscriber) declaration() {}
func (*DeclareQueryable) declaration()    {}
func (*UndeclareQueryable) declaration()  {}
func (*DeclareToken) declaration()        {}
func (*UndeclareToken) declaration()      {}
func (*DeclareFinal) declaration()        {}

// dscratch holds reusable declaration storage for a Decoder.
type dscratch struct {
	dk *DeclareKeyExpr
	uk *UndeclareKeyExpr
	ds *DeclareSubscriber
	us *UndeclareSubscriber
	dq *DeclareQueryable
	uq *UndeclareQueryable
	dt *DeclareToken
	ut *UndeclareToken
	df *DeclareFinal
}

// appendEntity writes header, a zint id, a wire expression and extensions:
// the shape of D_SUBSCRIBER and D_TOKEN.
func appendEntity(dst []byte, id byte, eid uint32, we *WireExpr, exts []Extension) ([]byte, error) {
	dst = append(dst, headerZ(id|wireExprFlags(we), len(exts)))
	dst = AppendZint(dst, uint64(eid))
	dst, err := we.appendTo(dst)
	if err != nil {
		return dst, err
	}
	return AppendExtensions(dst, exts)
}

// appendUndecl writes the shape of U_SUBSCRIBER, U_QUERYABLE and U_TOKEN.
func appendUndecl(dst []byte, id byte, eid uint32, has bool, we *WireExpr) ([]byte, error) {
	h := byte(id)
	if has {
		h |= FlagZ
	}
	dst = AppendZint(append(dst, h), uint64(eid))
	if !has {
		return dst, nil
	}
	return appendZBufExt(dst, extUndeclWE, func(dst []byte) ([]byte, error) {
		var flags byte
		if we.HasSuffix() {
			flags |= 0x01
		}
		if we.Mapping == MappingSender {
			flags |= 0x02
		}
		dst = AppendZint(append(dst, flags), uint64(we.Scope))
		if len(we.Suffix) > MaxSuffix {
			return dst, fmt.Errorf("%w: suffix of %d bytes", ErrInvalid, len(we.Suffix))
		}
		return append(dst, we.Suffix...), nil
	})
}

// undecl reads the body of U_SUBSCRIBER, U_QUERYABLE or U_TOKEN.
func (r *reader) undecl(h byte, eid *uint32, has *bool, we *WireExpr) error {
	*has, *we = false, WireExpr{}
	var err error
	if *eid, err = r.z32(); err != nil {
		return err
	}
	if h&FlagZ == 0 {
		return nil
	}
	var other []Extension
	err = r.extChain(&other, false, func(key byte, e Extension) (bool, error) {
		if key != extUndeclWE {
			return false, nil
		}
		sub := reader{b: e.Body, lim: r.lim}
		flags, err := sub.u8()
		if err != nil {
			return false, err
		}
		// Bits 2-7 of the flags are reserved and ignored.
		w := WireExpr{Mapping: mappingOf(flags << 5)}
		if w.Scope, err = sub.z16(); err != nil {
			return false, err
		}
		if flags&0x01 != 0 {
			w.Suffix = e.Body[sub.off:]
			if len(w.Suffix) > MaxSuffix {
				return false, fmt.Errorf("%w: suffix of %d bytes", ErrOverflow, len(w.Suffix))
			}
		} else if sub.remaining() != 0 {
			return false, fmt.Errorf("%w: trailing bytes in wire expr", ErrInvalid)
		}
		*has, *we = true, w
		return true, nil
	})
	if err != nil {
		return err
	}
	// Unknown optional extensions of undeclarations are dropped.
	return nil
}

// AppendBinary appends the declaration to dst.
func (m *DeclareKeyExpr) AppendBinary(dst []byte) ([]byte, error) {
	h := byte(IDDeclKeyExpr)
	if m.WireExpr.HasSuffix() {
		h |= FlagNamed
	}
	dst = AppendZint(append(dst, h), uint64(m.ID))
	return m.WireExpr.appendTo(dst)
}

// AppendBinary appends the declaration to dst.
func (m *UndeclareKeyExpr) AppendBinary(dst []byte) ([]byte, error) {
	return AppendZint(append(dst, IDUndeclKeyExpr), uint64(m.ID)), nil
}

// AppendBinary appends the declaration to dst.
func (m *DeclareSubscriber) AppendBinary(dst []byte) ([]byte, error) {
	return appendEntity(dst, IDDeclSubscriber, m.ID, &m.WireExpr, m.Exts)
}

// AppendBinary appends the declaration to dst.
func (m *UndeclareSubscriber) AppendBinary(dst []byte) ([]byte, error) {
	return appendUndecl(dst, IDUndeclSubscriber, m.ID, m.HasWireExpr, &m.WireExpr)
}

// AppendBinary appends the declaration to dst.
func (m *DeclareQueryable) AppendBinary(dst []byte) ([]byte, error) {
	info := m.Complete || m.Distance != 0
	n := len(m.Exts)
	if info {
		n++
	}
	dst = append(dst, headerZ(IDDeclQueryable|wireExprFlags(&m.WireExpr), n))
	dst = AppendZint(dst, uint64(m.ID))
	dst, err := m.WireExpr.appendTo(dst)
	if err != nil {
		return dst, err
	}
	w := extWriter{n: n}
	if info {
		v := uint64(m.Distance) << 8
		if m.Complete {
			v |= 1
		}
		dst = AppendZint(append(dst, w.next(extQblInfo)), v)
	}
	for i := range m.Exts {
		if dst, err = appendExt(dst, &m.Exts[i], w.more()); err != nil {
			return dst, err
		}
	}
	return dst, nil
}

// AppendBinary appends the declaration to dst.
func (m *UndeclareQueryable) AppendBinary(dst []byte) ([]byte, error) {
	return appendUndecl(dst, IDUndeclQueryable, m.ID, m.HasWireExpr, &m.WireExpr)
}

// AppendBinary appends the declaration to dst.
func (m *DeclareToken) AppendBinary(dst []byte) ([]byte, error) {
	return appendEntity(dst, IDDeclToken, m.ID, &m.WireExpr, m.Exts)
}

// AppendBinary appends the declaration to dst.
func (m *UndeclareToken) AppendBinary(dst []byte) ([]byte, error) {
	return appendUndecl(dst, IDUndeclToken, m.ID, m.HasWireExpr, &m.WireExpr)
}

// AppendBinary appends the declaration to dst.
func (m *DeclareFinal) AppendBinary(dst []byte) ([]byte, error) {
	dst = append(dst, headerZ(IDDeclFinal, len(m.Exts)))
	return AppendExtensions(dst, m.Exts)
}

// declaration decodes one declaration into the scratch storage.
func (r *reader) declaration(s *dscratch) (Declaration, error) {
	h, err := r.u8()
	if err != nil {
		return nil, err
	}
	named, mapping := h&FlagNamed != 0, mappingOf(h)
	switch HeaderID(h) {
	case IDDeclKeyExpr:
		m := get(&s.dk)
		if m.ID, err = r.z16(); err != nil {
			return nil, err
		}
		if err = r.wireExpr(&m.WireExpr, named, MappingReceiver); err != nil {
			return nil, err
		}
		return m, r.skipExts(h)
	case IDUndeclKeyExpr:
		m := get(&s.uk)
		if m.ID, err = r.z16(); err != nil {
			return nil, err
		}
		return m, r.skipExts(h)
	case IDDeclSubscriber:
		m := get(&s.ds)
		m.Exts = m.Exts[:0]
		if m.ID, err = r.z32(); err != nil {
			return nil, err
		}
		if err = r.wireExpr(&m.WireExpr, named, mapping); err != nil {
			return nil, err
		}
		return m, r.keepExts(h, &m.Exts)
	case IDUndeclSubscriber:
		m := get(&s.us)
		return m, r.undecl(h, &m.ID, &m.HasWireExpr, &m.WireExpr)
	case IDDeclQueryable:
		m := get(&s.dq)
		m.Exts, m.Complete, m.Distance = m.Exts[:0], false, 0
		if m.ID, err = r.z32(); err != nil {
			return nil, err
		}
		if err = r.wireExpr(&m.WireExpr, named, mapping); err != nil {
			return nil, err
		}
		if h&FlagZ == 0 {
			return m, nil
		}
		return m, r.extChain(&m.Exts, false, func(key byte, e Extension) (bool, error) {
			if key != extQblInfo {
				return false, nil
			}
			if e.Value>>8 > math.MaxUint16 {
				return false, fmt.Errorf("%w: queryable distance %d", ErrOverflow, e.Value>>8)
			}
			m.Complete, m.Distance = e.Value&1 != 0, uint16(e.Value>>8)
			return true, nil
		})
	case IDUndeclQueryable:
		m := get(&s.uq)
		return m, r.undecl(h, &m.ID, &m.HasWireExpr, &m.WireExpr)
	case IDDeclToken:
		m := get(&s.dt)
		m.Exts = m.Exts[:0]
		if m.ID, err = r.z32(); err != nil {
			return nil, err
		}
		if err = r.wireExpr(&m.WireExpr, named, mapping); err != nil {
			return nil, err
		}
		return m, r.keepExts(h, &m.Exts)
	case IDUndeclToken:
		m := get(&s.ut)
		return m, r.undecl(h, &m.ID, &m.HasWireExpr, &m.WireExpr)
	case IDDeclFinal:
		m := get(&s.df)
		m.Exts = m.Exts[:0]
		return m, r.keepExts(h, &m.Exts)
	}
	return nil, fmt.Errorf("%w: declaration %#02x", ErrUnknownMessage, h)
}

// keepExts reads an extension chain of unknown extensions into exts.
func (r *reader) keepExts(h byte, exts *[]Extension) error {
	if h&FlagZ == 0 {
		return nil
	}
	return r.extChain(exts, false, noKnownExt)
}

// skipExts reads and drops an extension chain (rejecting mandatory ones).
func (r *reader) skipExts(h byte) error {
	if h&FlagZ == 0 {
		return nil
	}
	var other []Extension
	return r.extChain(&other, false, noKnownExt)
}
