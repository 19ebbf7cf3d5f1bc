package afor

import "fmt"

// Map returns a sub that receives f(v) for every value v given to src after
// the call, in src's producer goroutine. When Map is src's first consumer,
// the values src kept for it ([WithBacklog]) are mapped first, and the
// derived sub keeps as many for its own first consumer. An error (or a panic) from f closes
// only the derived sub, with that error. Closing the derived sub detaches it
// from src; closing src closes the derived sub with src's error.
func Map[In, Out any](src *Sub[In], f func(In) (Out, error), opts ...Option) *Sub[Out] {
	return derive(src, func(v In) (Out, bool, error) {
		out, err := f(v)
		return out, true, err
	}, opts)
}

// Filter returns a sub that receives the values of src for which keep
// returns true. It follows the same lifetime rules as [Map].
func Filter[T any](src *Sub[T], keep func(T) bool, opts ...Option) *Sub[T] {
	return derive(src, func(v T) (T, bool, error) { return v, keep(v), nil }, opts)
}

// derive is Map and Filter: f converts a value and says whether to pass it.
func derive[In, Out any](src *Sub[In], f func(In) (Out, bool, error), opts []Option) *Sub[Out] {
	if n := src.earlyLimit; n > 0 {
		opts = append([]Option{WithBacklog(n)}, opts...)
	}
	dst := NewSub[Out](opts...)
	remove := src.OnInput(func(v In) {
		out, pass, err := call(f, v)
		if err != nil {
			dst.CloseWithError(err)
			return
		}
		if pass {
			dst.Input(out)
		}
	})
	removeHook := src.OnClose(func() { dst.CloseWithError(src.Err()) })
	dst.OnClose(func() {
		remove()
		removeHook()
	})
	return dst
}

// call runs f, turning a panic into an error matching ErrCallbackPanic.
func call[In, Out any](f func(In) (Out, bool, error), v In) (out Out, pass bool, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("afor: Map or Filter function panicked: %v: %w", r, ErrCallbackPanic)
		}
	}()
	return f(v)
}
