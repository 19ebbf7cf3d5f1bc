package afor

import "context"

// Requester is what a transport implements to carry the requests of a
// [Client].
type Requester[Req, Res any] interface {
	// Send starts the request and arranges for reply to be called at most
	// once with the response or an error. It returns an error (such as one
	// matching ErrNoServer) when the request cannot be sent. The returned
	// cancel function abandons the request: after it, reply may still be
	// called but its result is ignored.
	Send(ctx context.Context, req Req, reply func(Res, error)) (cancel func(), err error)
	// WaitReady blocks until a server can take requests or ctx ends.
	WaitReady(ctx context.Context) error
}

// Client sends requests to a server through a transport and waits for
// replies. Concurrent calls are independent. Create one with the transport's
// constructor (for example mem.NewClient) or with [NewClient].
type Client[Req, Res any] struct {
	r Requester[Req, Res]
}

// NewClient returns a client that sends its requests through r.
func NewClient[Req, Res any](r Requester[Req, Res]) *Client[Req, Res] {
	return &Client[Req, Res]{r: r}
}

type result[Res any] struct {
	res Res
	err error
}

// Call sends req and waits for the reply. It returns the server's error
// reply as an error, an error matching [ErrNoServer] when no server can take
// the request, and ctx's error when ctx ends first (or when the request
// fails because ctx ended), in which case the pending request is abandoned
// and a late reply is ignored.
func (c *Client[Req, Res]) Call(ctx context.Context, req Req) (Res, error) {
	var zero Res
	if err := ctx.Err(); err != nil {
		return zero, err
	}
	ch := make(chan result[Res], 1)
	cancel, err := c.r.Send(ctx, req, func(res Res, err error) {
		select {
		case ch <- result[Res]{res, err}:
		default: // a second reply is ignored
		}
	})
	if err != nil {
		return zero, err
	}
	select {
	case r := <-ch:
		cancel()
		if r.err != nil && ctx.Err() != nil {
			// A failure that comes with the caller's own cancellation (a
			// transport ending the request because ctx ended) is reported
			// as that cancellation.
			return zero, ctx.Err()
		}
		return r.res, r.err
	case <-ctx.Done():
		cancel()
		return zero, ctx.Err()
	}
}

// WaitForServer blocks until a server can take requests or ctx ends.
func (c *Client[Req, Res]) WaitForServer(ctx context.Context) error {
	return c.r.WaitReady(ctx)
}
