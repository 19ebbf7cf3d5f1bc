package wire

import (
	"errors"
	"fmt"
	"io"
)

// netScratch holds storage for one decoded network message and its body.
type netScratch struct {
	push     *Push
	req      *Request
	resp     *Response
	final    *ResponseFinal
	interest *Interest
	decl     *Declare
	oam      *NetworkOAM
	z        *zscratch
	d        *dscratch
}

// network decodes one network message into s.
func (r *reader) network(s *netScratch) (NetworkMessage, error) {
	h, err := r.u8()
	if err != nil {
		return nil, err
	}
	switch HeaderID(h) {
	case IDPush:
		return get(&s.push), r.push(h, get(&s.push), get(&s.z))
	case IDRequest:
		return get(&s.req), r.request(h, get(&s.req))
	case IDResponse:
		return get(&s.resp), r.response(h, get(&s.resp), get(&s.z))
	case IDResponseFinal:
		return get(&s.final), r.responseFinal(h, get(&s.final))
	case IDInterest:
		return get(&s.interest), r.interest(h, get(&s.interest))
	case IDDeclare:
		return get(&s.decl), r.declare(h, get(&s.decl), get(&s.d))
	case IDNetworkOAM:
		return get(&s.oam), r.networkOAM(h, get(&s.oam))
	}
	return nil, fmt.Errorf("%w: network message %#02x", ErrUnknownMessage, h)
}

// tpScratch holds storage for one decoded transport message.
type tpScratch struct {
	init  *Init
	open  *Open
	close *Close
	ka    *KeepAlive
	frame *Frame
	frag  *Fragment
	oam   *TransportOAM
}

// transport decodes one transport message into s. For a FRAME it decodes
// only the header.
func (r *reader) transport(s *tpScratch) (TransportMessage, error) {
	h, err := r.u8()
	if err != nil {
		return nil, err
	}
	switch HeaderID(h) {
	case IDInit:
		return get(&s.init), r.init(h, get(&s.init))
	case IDOpen:
		return get(&s.open), r.open(h, get(&s.open))
	case IDClose:
		return get(&s.close), r.close(h, get(&s.close))
	case IDKeepAlive:
		return get(&s.ka), r.keepAlive(h, get(&s.ka))
	case IDFrame:
		return get(&s.frame), r.frameHeader(h, get(&s.frame))
	case IDFragment:
		return get(&s.frag), r.fragment(h, get(&s.frag))
	case IDTransportOAM:
		return get(&s.oam), r.transportOAM(h, get(&s.oam))
	}
	return nil, fmt.Errorf("%w: transport message %#02x", ErrUnknownMessage, h)
}

// atNetwork reports whether the next byte starts a network message.
func (r *reader) atNetwork() bool {
	c, err := r.peek()
	return err == nil && IsNetworkID(HeaderID(c))
}

// DecodeTransport decodes the transport message at the front of b and
// returns it with the number of bytes consumed. A FRAME is decoded whole:
// its network messages fill Frame.Messages, each in its own storage. A
// batch may hold several transport messages; call DecodeTransport again on
// b[n:]. The result aliases b.
func DecodeTransport(b []byte, lim Limits) (TransportMessage, int, error) {
	r := reader{b: b, lim: lim.withDefaults()}
	m, err := r.transport(new(tpScratch))
	if err != nil {
		return nil, 0, err
	}
	if f, ok := m.(*Frame); ok {
		for r.atNetwork() {
			if len(f.Messages) >= r.lim.MaxMessagesPerFrame {
				return nil, 0, fmt.Errorf("%w: more than %d messages in a frame", ErrLimit, r.lim.MaxMessagesPerFrame)
			}
			nm, err := r.network(new(netScratch))
			if err != nil {
				return nil, 0, err
			}
			f.Messages = append(f.Messages, nm)
		}
	}
	return m, r.off, nil
}

// DecodeNetwork decodes the network message at the front of b and returns
// it with the number of bytes consumed. The result aliases b.
func DecodeNetwork(b []byte, lim Limits) (NetworkMessage, int, error) {
	r := reader{b: b, lim: lim.withDefaults()}
	m, err := r.network(new(netScratch))
	if err != nil {
		return nil, 0, err
	}
	return m, r.off, nil
}

// DecodeZenoh decodes the zenoh message (PUT, DEL, QUERY, REPLY or ERR) at
// the front of b and returns it with the number of bytes consumed. The
// result aliases b.
func DecodeZenoh(b []byte, lim Limits) (ZenohMessage, int, error) {
	r := reader{b: b, lim: lim.withDefaults()}
	h, err := r.u8()
	if err != nil {
		return nil, 0, err
	}
	s := new(zscratch)
	var m ZenohMessage
	switch HeaderID(h) {
	case IDPut:
		m, err = get(&s.put), r.put(h, get(&s.put))
	case IDDel:
		m, err = get(&s.del), r.del(h, get(&s.del))
	case IDQuery:
		q := new(Query)
		m, err = q, r.query(h, q)
	case IDReply:
		m, err = get(&s.reply), r.reply(h, get(&s.reply), s)
	case IDErr:
		m, err = get(&s.err), r.err(h, get(&s.err))
	default:
		err = fmt.Errorf("%w: zenoh message %#02x", ErrUnknownMessage, h)
	}
	if err != nil {
		return nil, 0, err
	}
	return m, r.off, nil
}

// Decoder walks the transport messages of a batch, and the network
// messages of each FRAME, without allocating in the steady state. The zero
// Decoder is ready to use with DefaultLimits. The
// messages it returns live in storage owned by the Decoder and stay valid
// only until the next call to Next or NextNetwork; their byte slices alias
// the batch. A Decoder is not safe for concurrent use.
type Decoder struct {
	r        reader
	inFrame  bool
	nInFrame int
	failed   bool
	tp       tpScratch
	net      netScratch
}

// NewDecoder returns a Decoder that enforces lim.
func NewDecoder(lim Limits) *Decoder {
	return &Decoder{r: reader{lim: lim.withDefaults()}}
}

// Reset starts decoding a new batch (without its stream length prefix).
func (d *Decoder) Reset(batch []byte) {
	d.r.b, d.r.off = batch, 0
	d.inFrame, d.nInFrame, d.failed = false, 0, false
	if d.r.lim == (Limits{}) {
		d.r.lim = DefaultLimits()
	}
}

// Remaining returns the number of undecoded bytes of the batch.
func (d *Decoder) Remaining() int { return d.r.remaining() }

// Next returns the next transport message of the batch, or io.EOF at its
// end. After a *Frame, call NextNetwork to read its messages; any left
// unread are decoded and dropped by the next call to Next. After an error
// the rest of the batch is abandoned and Next returns io.EOF.
func (d *Decoder) Next() (TransportMessage, error) {
	if d.failed {
		return nil, io.EOF
	}
	for d.inFrame {
		if _, err := d.NextNetwork(); err != nil {
			if errors.Is(err, io.EOF) {
				break
			}
			return nil, err
		}
	}
	if d.r.remaining() == 0 {
		return nil, io.EOF
	}
	m, err := d.r.transport(&d.tp)
	if err != nil {
		return nil, d.fail(err)
	}
	if _, ok := m.(*Frame); ok {
		d.inFrame, d.nInFrame = true, 0
	}
	return m, nil
}

// NextNetwork returns the next network message of the FRAME last returned
// by Next, or io.EOF when the frame has no more.
func (d *Decoder) NextNetwork() (NetworkMessage, error) {
	if !d.inFrame || d.failed {
		return nil, io.EOF
	}
	if !d.r.atNetwork() {
		d.inFrame = false
		return nil, io.EOF
	}
	if d.nInFrame >= d.r.lim.MaxMessagesPerFrame {
		return nil, d.fail(fmt.Errorf("%w: more than %d messages in a frame", ErrLimit, d.r.lim.MaxMessagesPerFrame))
	}
	d.nInFrame++
	m, err := d.r.network(&d.net)
	if err != nil {
		return nil, d.fail(err)
	}
	return m, nil
}

func (d *Decoder) fail(err error) error {
	d.failed, d.inFrame = true, false
	return err
}

// get returns *p, allocating it on first use. Scratch storage is allocated
// lazily so that a one-shot decode allocates only the message it returns,
// while a Decoder reuses it.
func get[T any](p **T) *T {
	if *p == nil {
		*p = new(T)
	}
	return *p
}

// DecodeNetwork decodes the network message at the front of b, as the
// package-level DecodeNetwork does, but into the Decoder's storage: the
// result stays valid only until the next call on d, and it aliases b. It
// resets d.
func (d *Decoder) DecodeNetwork(b []byte) (NetworkMessage, int, error) {
	d.Reset(b)
	m, err := d.r.network(&d.net)
	if err != nil {
		return nil, 0, d.fail(err)
	}
	return m, d.r.off, nil
}
