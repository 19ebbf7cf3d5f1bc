package wire

import (
	"encoding"
	"fmt"
	"math"
	"time"
)

// NetworkMessage is one of *Declare, *Push, *Request, *Response,
// *ResponseFinal, *Interest or *NetworkOAM.
type NetworkMessage interface {
	encoding.BinaryAppender
	networkMessage()
}

// Network message flags.
const (
	// FlagNamed (N) tells that a wire expression carries a suffix.
	FlagNamed = Flag1
	// FlagMapping (M) tells that a wire expression's scope is the
	// sender's declaration.
	FlagMapping = Flag2
	// FlagInterestID (I) tells that a DECLARE answers an interest.
	FlagInterestID = Flag1
)

// NetworkExts holds the extensions shared by network messages. The zero
// value means all absent.
type NetworkExts struct {
	// HasQoS tells whether the QoS extension (0x1) is present. When it is
	// absent the receiver assumes QoSDefault.
	HasQoS bool
	// QoS is the value of the QoS extension.
	QoS QoS
	// HasTimestamp tells whether the timestamp extension (0x2) is present.
	HasTimestamp bool
	// Timestamp is the value of the timestamp extension.
	Timestamp Timestamp
	// NodeID is the node id extension (0x3, mandatory, used between
	// routers); 0 means absent.
	NodeID uint16
	// Exts holds the other, non-mandatory extensions, unchanged.
	Exts []Extension
}

// EffectiveQoS returns the QoS of the message: the extension's value, or
// QoSDefault when it is absent.
func (n *NetworkExts) EffectiveQoS() QoS {
	if n.HasQoS {
		return n.QoS
	}
	return QoSDefault
}

func (n *NetworkExts) count() int {
	c := len(n.Exts)
	if n.HasQoS {
		c++
	}
	if n.HasTimestamp {
		c++
	}
	if n.NodeID != 0 {
		c++
	}
	return c
}

// appendHead writes the QoS and timestamp extensions.
func (n *NetworkExts) appendHead(dst []byte, w *extWriter) ([]byte, error) {
	if n.HasQoS {
		dst = AppendZint(append(dst, w.next(extNetQoS)), uint64(n.QoS))
	}
	if n.HasTimestamp {
		var err error
		if dst, err = appendZBufExt(dst, w.next(extNetTstamp), n.Timestamp.appendTo); err != nil {
			return dst, err
		}
	}
	return dst, nil
}

// appendTail writes the node id and the other extensions.
func (n *NetworkExts) appendTail(dst []byte, w *extWriter) ([]byte, error) {
	if n.NodeID != 0 {
		dst = AppendZint(append(dst, w.next(extNetNodeID)), uint64(n.NodeID))
	}
	var err error
	for i := range n.Exts {
		if dst, err = appendExt(dst, &n.Exts[i], w.more()); err != nil {
			return dst, err
		}
	}
	return dst, nil
}

// appendZBufExt writes a ZBuf extension whose body is produced by body. The
// length is a zint written before the body, so the body is first appended,
// then shifted if its length needs more than one byte.
func appendZBufExt(dst []byte, h byte, body func([]byte) ([]byte, error)) ([]byte, error) {
	dst = append(dst, h, 0)
	start := len(dst)
	dst, err := body(dst)
	if err != nil {
		return dst, err
	}
	return fixLen(dst, start), nil
}

// fixLen rewrites the one-byte placeholder at dst[start-1] as the zint
// length of dst[start:], moving the body if the length needs more bytes.
func fixLen(dst []byte, start int) []byte {
	n := len(dst) - start
	ln := ZintLen(uint64(n))
	if ln == 1 {
		dst[start-1] = byte(n)
		return dst
	}
	for i := 1; i < ln; i++ {
		dst = append(dst, 0)
	}
	copy(dst[start-1+ln:], dst[start:start+n])
	AppendZint(dst[:start-1], uint64(n))
	return dst
}

// netExt decodes a shared network extension into n, reporting whether key
// was one of them.
func (n *NetworkExts) netExt(key byte, e Extension, lim Limits) (bool, error) {
	switch key {
	case extNetQoS:
		if e.Value > math.MaxUint8 {
			return false, fmt.Errorf("%w: QoS %d", ErrOverflow, e.Value)
		}
		n.HasQoS, n.QoS = true, QoS(e.Value)
	case extNetTstamp:
		sub := reader{b: e.Body, lim: lim}
		t, err := sub.timestamp()
		if err != nil {
			return false, err
		}
		if sub.remaining() != 0 {
			return false, fmt.Errorf("%w: trailing bytes in timestamp", ErrInvalid)
		}
		n.HasTimestamp, n.Timestamp = true, t
	case extNetNodeID:
		if e.Value > math.MaxUint16 {
			return false, fmt.Errorf("%w: node id %d", ErrOverflow, e.Value)
		}
		n.NodeID = uint16(e.Value)
	default:
		return false, nil
	}
	return true, nil
}

// wireExprFlags returns the N and M header flags of w.
func wireExprFlags(w *WireExpr) byte {
	var h byte
	if w.HasSuffix() {
		h |= FlagNamed
	}
	if w.Mapping == MappingSender {
		h |= FlagMapping
	}
	return h
}

func mappingOf(h byte) Mapping {
	if h&FlagMapping != 0 {
		return MappingSender
	}
	return MappingReceiver
}

// Push is a PUSH message: a PUT or DEL published on a key expression.
type Push struct {
	// WireExpr is the key expression.
	WireExpr WireExpr
	NetworkExts
	// Body is *Put or *Del.
	Body ZenohMessage
}

// QueryTarget selects which queryables a REQUEST reaches.
type QueryTarget uint8

// Query targets.
const (
	TargetBestMatching QueryTarget = 0
	TargetAll          QueryTarget = 1
	TargetAllComplete  QueryTarget = 2
)

// Request is a REQUEST message carrying a QUERY.
type Request struct {
	// ID identifies the request; replies carry it back.
	ID uint32
	// WireExpr is the queried key expression.
	WireExpr WireExpr
	NetworkExts
	// Target is the target extension (0x4, mandatory); the default
	// TargetBestMatching is not written.
	Target QueryTarget
	// Budget is the budget extension (0x5); 0 means absent.
	Budget uint32
	// Timeout is the timeout extension (0x6), written in milliseconds; 0
	// means absent.
	Timeout time.Duration
	// Body is the query.
	Body Query
}

// Response is a RESPONSE message carrying a REPLY or an ERR.
type Response struct {
	// RequestID is the id of the request being answered.
	RequestID uint32
	// WireExpr is the key expression of the reply.
	WireExpr WireExpr
	NetworkExts
	// HasResponder tells whether the responder id extension (0x3) is
	// present.
	HasResponder bool
	// Responder identifies the queryable that answered.
	Responder EntityGlobalID
	// Body is *Reply or *Err.
	Body ZenohMessage
}

// ResponseFinal is a RESPONSE_FINAL message: no more responses will come
// for the request from this peer.
type ResponseFinal struct {
	// RequestID is the id of the request being closed.
	RequestID uint32
	NetworkExts
}

// InterestMode is the mode of an INTEREST (bits 5-6 of its header).
type InterestMode uint8

// Interest modes.
const (
	// InterestFinal cancels a previous interest with the same id.
	InterestFinal InterestMode = 0
	// InterestCurrent asks for the current declarations.
	InterestCurrent InterestMode = 1
	// InterestFuture asks for future declarations.
	InterestFuture InterestMode = 2
	// InterestCurrentFuture asks for both.
	InterestCurrentFuture InterestMode = 3
)

// InterestOptions is the options byte of an INTEREST. The N and M bits are
// derived from the WireExpr when encoding and cleared when decoding.
type InterestOptions uint8

// Interest option bits.
const (
	InterestKeyExprs    InterestOptions = 0x01
	InterestSubscribers InterestOptions = 0x02
	InterestQueryables  InterestOptions = 0x04
	InterestTokens      InterestOptions = 0x08
	InterestRestricted  InterestOptions = 0x10
	interestNamed       InterestOptions = 0x20
	interestMapping     InterestOptions = 0x40
	InterestAggregate   InterestOptions = 0x80
)

// Interest is an INTEREST message: a request for declarations.
type Interest struct {
	// ID identifies the interest; answering DECLAREs carry it.
	ID uint32
	// Mode is final, current, future or both.
	Mode InterestMode
	// Options selects what is asked for (ignored when Mode is final).
	Options InterestOptions
	// WireExpr restricts the interest when Options has InterestRestricted.
	WireExpr WireExpr
	NetworkExts
}

// Declare is a DECLARE message carrying one declaration.
type Declare struct {
	// HasInterestID tells whether the message answers an interest (I
	// flag).
	HasInterestID bool
	// InterestID is the interest answered.
	InterestID uint32
	NetworkExts
	// Body is the declaration.
	Body Declaration
}

// NetworkOAM is a network-level OAM message, kept as an opaque body.
type NetworkOAM struct {
	// ID identifies the OAM message.
	ID uint16
	// Encoding tells which of Value or Body is meaningful.
	Encoding ExtEncoding
	// Value is the body of an ExtZ64 OAM.
	Value uint64
	// Body is the body of an ExtZBuf OAM; decoded bodies alias the input.
	Body []byte
	NetworkExts
}

func (*Push) networkMessage()          {}
func (*Request) networkMessage()       {}
func (*Response) networkMessage()      {}
func (*ResponseFinal) networkMessage() {}
func (*Interest) networkMessage()      {}
func (*Declare) networkMessage()       {}
func (*NetworkOAM) networkMessage()    {}

// AppendBinary appends the PUSH message to dst.
func (m *Push) AppendBinary(dst []byte) ([]byte, error) {
	switch m.Body.(type) {
	case *Put, *Del:
	default:
		return dst, fmt.Errorf("%w: PUSH body %T", ErrInvalid, m.Body)
	}
	n := m.count()
	dst = append(dst, headerZ(IDPush|wireExprFlags(&m.WireExpr), n))
	dst, err := m.WireExpr.appendTo(dst)
	if err != nil {
		return dst, err
	}
	w := extWriter{n: n}
	if dst, err = m.appendHead(dst, &w); err != nil {
		return dst, err
	}
	if dst, err = m.appendTail(dst, &w); err != nil {
		return dst, err
	}
	return m.Body.AppendBinary(dst)
}

func (r *reader) push(h byte, m *Push, s *zscratch) error {
	m.NetworkExts = NetworkExts{Exts: m.Exts[:0]}
	m.Body = nil
	var err error
	if err = r.wireExpr(&m.WireExpr, h&FlagNamed != 0, mappingOf(h)); err != nil {
		return err
	}
	if h&FlagZ != 0 {
		lim := r.lim
		if err = r.extChain(&m.Exts, false, func(key byte, e Extension) (bool, error) {
			return m.netExt(key, e, lim)
		}); err != nil {
			return err
		}
	}
	m.Body, err = r.pushBody(s)
	return err
}

// AppendBinary appends the REQUEST message to dst.
func (m *Request) AppendBinary(dst []byte) ([]byte, error) {
	if m.Timeout < 0 {
		return dst, fmt.Errorf("%w: negative timeout", ErrInvalid)
	}
	n := m.count()
	for _, b := range [...]bool{m.Target != TargetBestMatching, m.Budget != 0, m.Timeout != 0} {
		if b {
			n++
		}
	}
	dst = append(dst, headerZ(IDRequest|wireExprFlags(&m.WireExpr), n))
	dst = AppendZint(dst, uint64(m.ID))
	dst, err := m.WireExpr.appendTo(dst)
	if err != nil {
		return dst, err
	}
	w := extWriter{n: n}
	if dst, err = m.appendHead(dst, &w); err != nil {
		return dst, err
	}
	if m.Target != TargetBestMatching {
		dst = AppendZint(append(dst, w.next(extReqTarget)), uint64(m.Target))
	}
	if m.Budget != 0 {
		dst = AppendZint(append(dst, w.next(extReqBudget)), uint64(m.Budget))
	}
	if m.Timeout != 0 {
		dst = AppendZint(append(dst, w.next(extReqTimeout)), uint64(m.Timeout/time.Millisecond))
	}
	if dst, err = m.appendTail(dst, &w); err != nil {
		return dst, err
	}
	return m.Body.AppendBinary(dst)
}

func (r *reader) request(h byte, m *Request) error {
	exts := m.Exts[:0]
	qexts := m.Body.Exts[:0]
	*m = Request{}
	m.Exts = exts
	m.Body.Exts = qexts
	var err error
	if m.ID, err = r.z32(); err != nil {
		return err
	}
	if err = r.wireExpr(&m.WireExpr, h&FlagNamed != 0, mappingOf(h)); err != nil {
		return err
	}
	if h&FlagZ != 0 {
		lim := r.lim
		err = r.extChain(&m.Exts, false, func(key byte, e Extension) (bool, error) {
			switch key {
			case extReqTarget:
				if e.Value > uint64(TargetAllComplete) {
					return false, fmt.Errorf("%w: query target %d", ErrInvalid, e.Value)
				}
				m.Target = QueryTarget(e.Value)
			case extReqBudget:
				if e.Value > math.MaxUint32 {
					return false, fmt.Errorf("%w: budget %d", ErrOverflow, e.Value)
				}
				m.Budget = uint32(e.Value)
			case extReqTimeout:
				// Peers send u64::MAX ms for "no timeout" (rmw_zenoh's
				// history queries and action get_result calls): a value
				// past what a Duration holds saturates instead of failing.
				if e.Value > uint64(math.MaxInt64/int64(time.Millisecond)) {
					m.Timeout = time.Duration(math.MaxInt64)
				} else {
					m.Timeout = time.Duration(e.Value) * time.Millisecond
				}
			default:
				return m.netExt(key, e, lim)
			}
			return true, nil
		})
		if err != nil {
			return err
		}
	}
	qh, err := r.u8()
	if err != nil {
		return err
	}
	if HeaderID(qh) != IDQuery {
		return fmt.Errorf("%w: REQUEST body %#02x", ErrUnknownMessage, qh)
	}
	return r.query(qh, &m.Body)
}

// AppendBinary appends the RESPONSE message to dst.
func (m *Response) AppendBinary(dst []byte) ([]byte, error) {
	switch m.Body.(type) {
	case *Reply, *Err:
	default:
		return dst, fmt.Errorf("%w: RESPONSE body %T", ErrInvalid, m.Body)
	}
	n := m.count()
	if m.HasResponder {
		n++
	}
	dst = append(dst, headerZ(IDResponse|wireExprFlags(&m.WireExpr), n))
	dst = AppendZint(dst, uint64(m.RequestID))
	dst, err := m.WireExpr.appendTo(dst)
	if err != nil {
		return dst, err
	}
	w := extWriter{n: n}
	if dst, err = m.appendHead(dst, &w); err != nil {
		return dst, err
	}
	if m.HasResponder {
		if dst, err = appendZBufExt(dst, w.next(extRespID), m.Responder.appendTo); err != nil {
			return dst, err
		}
	}
	if dst, err = m.appendTail(dst, &w); err != nil {
		return dst, err
	}
	return m.Body.AppendBinary(dst)
}

func (g *EntityGlobalID) appendTo(dst []byte) ([]byte, error) {
	dst, err := g.ID.appendNibbleID(dst, 0)
	if err != nil {
		return dst, err
	}
	return AppendZint(dst, uint64(g.EntityID)), nil
}

func (r *reader) entityGlobalID() (EntityGlobalID, error) {
	var g EntityGlobalID
	var err error
	// The low nibble of the control byte is reserved and ignored.
	if g.ID, _, err = r.nibbleID(); err != nil {
		return g, err
	}
	g.EntityID, err = r.z32()
	return g, err
}

func (r *reader) response(h byte, m *Response, s *zscratch) error {
	m.NetworkExts = NetworkExts{Exts: m.Exts[:0]}
	m.HasResponder, m.Responder, m.Body = false, EntityGlobalID{}, nil
	var err error
	if m.RequestID, err = r.z32(); err != nil {
		return err
	}
	if err = r.wireExpr(&m.WireExpr, h&FlagNamed != 0, mappingOf(h)); err != nil {
		return err
	}
	if h&FlagZ != 0 {
		lim := r.lim
		err = r.extChain(&m.Exts, false, func(key byte, e Extension) (bool, error) {
			if key != extRespID {
				return m.netExt(key, e, lim)
			}
			sub := reader{b: e.Body, lim: lim}
			g, err := sub.entityGlobalID()
			if err != nil {
				return false, err
			}
			if sub.remaining() != 0 {
				return false, fmt.Errorf("%w: trailing bytes in responder id", ErrInvalid)
			}
			m.HasResponder, m.Responder = true, g
			return true, nil
		})
		if err != nil {
			return err
		}
	}
	bh, err := r.u8()
	if err != nil {
		return err
	}
	switch HeaderID(bh) {
	case IDReply:
		err = r.reply(bh, get(&s.reply), s)
		m.Body = get(&s.reply)
	case IDErr:
		err = r.err(bh, get(&s.err))
		m.Body = get(&s.err)
	default:
		return fmt.Errorf("%w: RESPONSE body %#02x", ErrUnknownMessage, bh)
	}
	return err
}

// appendSimpleNet appends a message made of a header, one zint and the
// shared extensions.
func appendSimpleNet(dst []byte, h byte, id uint64, n *NetworkExts) ([]byte, error) {
	c := n.count()
	dst = AppendZint(append(dst, headerZ(h, c)), id)
	w := extWriter{n: c}
	dst, err := n.appendHead(dst, &w)
	if err != nil {
		return dst, err
	}
	return n.appendTail(dst, &w)
}

// netExtChain reads the shared extensions of a network message.
func (r *reader) netExtChain(h byte, n *NetworkExts) error {
	*n = NetworkExts{Exts: n.Exts[:0]}
	if h&FlagZ == 0 {
		return nil
	}
	lim := r.lim
	return r.extChain(&n.Exts, false, func(key byte, e Extension) (bool, error) {
		return n.netExt(key, e, lim)
	})
}

// AppendBinary appends the RESPONSE_FINAL message to dst.
func (m *ResponseFinal) AppendBinary(dst []byte) ([]byte, error) {
	return appendSimpleNet(dst, IDResponseFinal, uint64(m.RequestID), &m.NetworkExts)
}

func (r *reader) responseFinal(h byte, m *ResponseFinal) error {
	var err error
	if m.RequestID, err = r.z32(); err != nil {
		return err
	}
	return r.netExtChain(h, &m.NetworkExts)
}

// AppendBinary appends the INTEREST message to dst.
func (m *Interest) AppendBinary(dst []byte) ([]byte, error) {
	if m.Mode > InterestCurrentFuture {
		return dst, fmt.Errorf("%w: interest mode %d", ErrInvalid, m.Mode)
	}
	c := m.count()
	dst = append(dst, headerZ(IDInterest|byte(m.Mode)<<5, c))
	dst = AppendZint(dst, uint64(m.ID))
	var err error
	if m.Mode != InterestFinal {
		opts := m.Options &^ (interestNamed | interestMapping)
		if opts&InterestRestricted != 0 {
			opts |= InterestOptions(wireExprFlags(&m.WireExpr))
		}
		dst = append(dst, byte(opts))
		if opts&InterestRestricted != 0 {
			if dst, err = m.WireExpr.appendTo(dst); err != nil {
				return dst, err
			}
		}
	}
	w := extWriter{n: c}
	if dst, err = m.appendHead(dst, &w); err != nil {
		return dst, err
	}
	return m.appendTail(dst, &w)
}

func (r *reader) interest(h byte, m *Interest) error {
	m.Mode = InterestMode(h >> 5 & 0x03)
	m.Options, m.WireExpr = 0, WireExpr{}
	var err error
	if m.ID, err = r.z32(); err != nil {
		return err
	}
	if m.Mode != InterestFinal {
		o, err := r.u8()
		if err != nil {
			return err
		}
		opts := InterestOptions(o)
		m.Options = opts &^ (interestNamed | interestMapping)
		if opts&InterestRestricted != 0 {
			if err = r.wireExpr(&m.WireExpr, opts&interestNamed != 0, mappingOf(byte(opts))); err != nil {
				return err
			}
		}
	}
	return r.netExtChain(h, &m.NetworkExts)
}

// AppendBinary appends the DECLARE message to dst.
func (m *Declare) AppendBinary(dst []byte) ([]byte, error) {
	if m.Body == nil {
		return dst, fmt.Errorf("%w: DECLARE without body", ErrInvalid)
	}
	h := byte(IDDeclare)
	if m.HasInterestID {
		h |= FlagInterestID
	}
	c := m.count()
	dst = append(dst, headerZ(h, c))
	if m.HasInterestID {
		dst = AppendZint(dst, uint64(m.InterestID))
	}
	w := extWriter{n: c}
	dst, err := m.appendHead(dst, &w)
	if err != nil {
		return dst, err
	}
	if dst, err = m.appendTail(dst, &w); err != nil {
		return dst, err
	}
	return m.Body.AppendBinary(dst)
}

func (r *reader) declare(h byte, m *Declare, s *dscratch) error {
	m.HasInterestID = h&FlagInterestID != 0
	m.InterestID, m.Body = 0, nil
	var err error
	if m.HasInterestID {
		if m.InterestID, err = r.z32(); err != nil {
			return err
		}
	}
	if err = r.netExtChain(h, &m.NetworkExts); err != nil {
		return err
	}
	m.Body, err = r.declaration(s)
	return err
}

// AppendBinary appends the network OAM message to dst.
func (m *NetworkOAM) AppendBinary(dst []byte) ([]byte, error) {
	if m.Encoding > ExtZBuf {
		return dst, fmt.Errorf("%w: OAM encoding %d", ErrInvalid, m.Encoding)
	}
	h := byte(IDNetworkOAM) | byte(m.Encoding)<<5
	dst, err := appendSimpleNet(dst, h, uint64(m.ID), &m.NetworkExts)
	if err != nil {
		return dst, err
	}
	return appendOAMBody(dst, m.Encoding, m.Value, m.Body)
}

func (r *reader) networkOAM(h byte, m *NetworkOAM) error {
	m.Encoding = oamEnc(h)
	var err error
	if m.ID, err = r.z16(); err != nil {
		return err
	}
	if err = r.netExtChain(h, &m.NetworkExts); err != nil {
		return err
	}
	m.Value, m.Body, err = r.oamBody(m.Encoding)
	return err
}
