package afor

import (
	"context"
	"errors"
	"time"
)

// SoftWaitFor runs fn with a context that ends after d, in the calling
// goroutine, and returns its result. If fn failed because that soft deadline
// passed, the error matches [ErrSoftTimeout] (and context.DeadlineExceeded),
// so the caller can tell a timeout from a real failure. If ctx itself ended,
// ctx's error is returned instead: an outer cancellation is never reported
// as a soft timeout, and fn does not run if ctx had already ended. fn must
// return when its context ends.
//
// This is the Go form of Python's afor.soft_wait_for.
func SoftWaitFor[T any](ctx context.Context, d time.Duration, fn func(context.Context) (T, error)) (T, error) {
	if err := ctxDone(ctx); err != nil {
		var zero T
		return zero, err
	}
	inner, cancel := context.WithTimeoutCause(ctx, d, ErrSoftTimeout)
	defer cancel()
	v, err := fn(inner)
	if err == nil {
		return v, nil
	}
	if ctx.Err() != nil {
		return v, ctx.Err()
	}
	if errors.Is(context.Cause(inner), ErrSoftTimeout) && isCtxErr(err) {
		return v, softTimeoutError{}
	}
	return v, err
}

// SoftTimeout runs fn with a context that ends after d and reports whether
// that soft deadline cut it short. A timeout is not an error: it returns
// (true, nil) when fn returned a context error because of it. It returns
// ctx's error when ctx itself ended (without running fn if it had already
// ended), and fn's error otherwise.
//
// This is the Go form of Python's "async with afor.soft_timeout(d)".
func SoftTimeout(ctx context.Context, d time.Duration, fn func(context.Context) error) (timedOut bool, err error) {
	if err := ctxDone(ctx); err != nil {
		return false, err
	}
	inner, cancel := context.WithTimeoutCause(ctx, d, ErrSoftTimeout)
	defer cancel()
	err = fn(inner)
	if ctx.Err() != nil {
		return false, ctx.Err()
	}
	if err != nil && errors.Is(context.Cause(inner), ErrSoftTimeout) {
		if isCtxErr(err) {
			return true, nil
		}
		return true, err
	}
	return false, err
}

func isCtxErr(err error) bool {
	return errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) || errors.Is(err, ErrSoftTimeout)
}

// softTimeoutError matches both ErrSoftTimeout and context.DeadlineExceeded.
type softTimeoutError struct{}

func (softTimeoutError) Error() string { return ErrSoftTimeout.Error() }

func (softTimeoutError) Unwrap() []error { return []error{ErrSoftTimeout, context.DeadlineExceeded} }
