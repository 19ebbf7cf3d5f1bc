package afor

import (
	"errors"
	"sync/atomic"
)

// Responder is one request received by a [Server]. The code that takes it
// may answer at any later time, from any goroutine, with exactly one call to
// [Responder.Respond] or [Responder.Fail].
type Responder[Req, Res any] struct {
	// Request is the request as the client sent it.
	Request Req

	reply     func(res Res, err error) error
	responded atomic.Bool
}

// NewResponder returns a responder for req whose answer is passed to reply,
// once. Transports call it for every incoming request; reply sends the
// response (err == nil) or an error reply to the client.
func NewResponder[Req, Res any](req Req, reply func(res Res, err error) error) *Responder[Req, Res] {
	return &Responder[Req, Res]{Request: req, reply: reply}
}

// Respond sends res to the client. Only the first answer is sent: later
// calls return [ErrAlreadyResponded].
func (r *Responder[Req, Res]) Respond(res Res) error {
	if !r.responded.CompareAndSwap(false, true) {
		return ErrAlreadyResponded
	}
	return r.reply(res, nil)
}

// Fail sends an error reply carrying err's text to the client, whose Call
// returns an error. Only the first answer is sent: later calls return
// [ErrAlreadyResponded].
func (r *Responder[Req, Res]) Fail(err error) error {
	if err == nil {
		err = errors.New("afor: request failed")
	}
	if !r.responded.CompareAndSwap(false, true) {
		return ErrAlreadyResponded
	}
	var zero Res
	return r.reply(zero, err)
}

// Responded reports whether an answer was sent.
func (r *Responder[Req, Res]) Responded() bool { return r.responded.Load() }

// Server is a [Sub] of requests, each a [Responder] to answer now or later.
// Transports create servers and feed them with Input.
//
// A server never loses a request silently: requests that arrive while no
// listener, waiter or [Sub.OnInput] callback is registered are kept (up to
// [MaxBacklog]) for the first listener (a new
// listener yields them, instead of the current value, unless [Fresh]); its
// reliable listeners are unbounded by default; and a request that is dropped
// anyway (a full bounded queue, a latest-value Listen that skipped it, a
// listener stopped with requests queued, a server closed before anyone took
// it) is answered with an error matching [ErrRequestDropped]. Consume a server with one
// ListenReliable loop; with several, a request dropped by one listener is
// failed even if another listener took it.
//
//	for req := range server.ListenReliable(ctx) {
//		go func() { req.Respond(handle(req.Request)) }() // answer later
//	}
type Server[Req, Res any] struct {
	*Sub[*Responder[Req, Res]]
}

// NewServer returns an open server with no request.
func NewServer[Req, Res any](opts ...Option) *Server[Req, Res] {
	all := append([]Option{WithDefaultQueueSize(0)}, opts...)
	all = append(all, withServerBacklog(), withOnDrop(func(r *Responder[Req, Res]) {
		_ = r.Fail(ErrRequestDropped)
	}))
	return &Server[Req, Res]{Sub: NewSub[*Responder[Req, Res]](all...)}
}
