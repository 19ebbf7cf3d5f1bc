// Package afor makes robot middleware feel like straight-line Go.
//
// The one primitive is [Sub], a typed stream of values that a transport feeds
// with [Sub.Input] and that user code consumes in five ways:
//
//   - [Sub.WaitForValue]: the latest value, or the first one to arrive;
//   - [Sub.WaitForNew]: the newest value received after the call;
//   - [Sub.WaitForNext]: exactly the first value received after the call;
//   - [Sub.Listen]: a range-over-func loop that always yields the latest
//     value and skips what a slow loop body missed;
//   - [Sub.ListenReliable]: a FIFO loop that yields every value, dropping
//     (and counting) the oldest when its bounded queue overflows.
//
// Everything else is built on Sub: [Rate] is a Sub of tick times that never
// drifts, [Server] is a Sub of [Responder] values that may be answered later
// from any goroutine, and [SoftWaitFor] and [SoftTimeout] report timeouts as
// values. Transports (package transport/mem, transport/zenoh, ...) only call
// Input; they never reimplement waiting or queueing.
//
// # Cancellation
//
// Every call that takes a ctx follows one rule: a ctx that has already ended
// means no more work. Such a call returns ctx's error at once and does
// nothing else, even when it could have succeeded without waiting:
// [Sub.WaitForValue] returns ctx's error although a value is held, a
// [Sub.Listen] or [Sub.ListenReliable] loop yields nothing (not even the held
// value), [Listener.Next] and [Waiter.Wait] take nothing, [Client.Call] sends
// nothing, [SoftWaitFor] and [SoftTimeout] do not run their function, and a
// transport's publisher sends nothing. Nothing is consumed either: the held
// value, a listener's queue and a server's unanswered requests stay for the
// next call with a live ctx. A ctx that ends during a call ends it with ctx's
// error; a loop checks its ctx before each iteration, so it yields nothing
// after its ctx ended, even values already queued. When a call sees both a
// value and the end of its ctx while waiting, the value wins.
//
// This package ports the Python library asyncio_for_robotics to Go: a Python
// "await sub.wait_for_next()" becomes "v, err := sub.WaitForNext(ctx)", and
// "async for msg in sub.listen_reliable()" becomes
// "for msg := range sub.ListenReliable(ctx)".
package afor

import (
	"context"
	"errors"
	"fmt"
)

// ErrClosed is returned by waits on a closed [Sub] and by calls on a closed
// server or client. When a Sub ended with an error, the error returned by a
// wait matches both ErrClosed and that cause with [errors.Is].
var ErrClosed = errors.New("afor: closed")

// ErrCallbackPanic is the cause of a Sub that ended because a callback
// registered with [Sub.OnInput] panicked.
var ErrCallbackPanic = errors.New("afor: callback panicked")

// ErrInvalidRate is returned by [NewRate] for a frequency that is not a
// positive finite number.
var ErrInvalidRate = errors.New("afor: invalid rate")

// ErrSoftTimeout reports that [SoftWaitFor] gave up after its duration.
var ErrSoftTimeout = errors.New("afor: soft timeout")

// ErrAlreadyResponded is returned by [Responder.Respond] and
// [Responder.Fail] after the first answer.
var ErrAlreadyResponded = errors.New("afor: already responded")

// ErrNoServer is returned by [Client.Call] when no server can take the
// request.
var ErrNoServer = errors.New("afor: no server")

// ErrRequestDropped is the error reply sent for a request that a server
// dropped without answering (a full queue, a stopped listener, or a server
// that closed before the request was taken).
var ErrRequestDropped = errors.New("afor: request dropped by server")

// closedError wraps the cause of a closed Sub so that it matches both
// ErrClosed and the cause.
type closedError struct{ cause error }

func (e *closedError) Error() string { return "afor: closed: " + e.cause.Error() }

func (e *closedError) Unwrap() []error { return []error{ErrClosed, e.cause} }

func closedErr(cause error) error {
	if cause == nil {
		return ErrClosed
	}
	return &closedError{cause: cause}
}

// panicError is the error of a Sub ended by a panicking callback.
type panicError struct{ value any }

func (e *panicError) Error() string { return fmt.Sprintf("afor: callback panicked: %v", e.value) }

func (e *panicError) Unwrap() error { return ErrCallbackPanic }

// ctxDone returns ctx's error if ctx has ended, without blocking: the check
// every blocking call makes before doing any work.
func ctxDone(ctx context.Context) error {
	if done := ctx.Done(); done != nil {
		select {
		case <-done:
			return ctx.Err()
		default:
		}
	}
	return nil
}
