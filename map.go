package afor

import "fmt"

// Map returns a sub that receives f(v) for every value v given to src after
// the call, in src's producer goroutine. An error (or a panic) from f closes
// only the derived sub, with that error. Closing the derived sub detaches it
// from src; closing src closes the derived sub with src's error.
func Map[In, Out any](src *Sub[In], f func(In) (Out, error), opts ...Option) *Sub[Out] {
	dst := NewSub[Out](opts...)
	remove := src.OnInput(func(v In) {
		out, err := callMap(f, v)
		if err != nil {
			dst.CloseWithError(err)
			return
		}
		dst.Input(out)
	})
	removeHook := src.OnClose(func() { dst.CloseWithError(src.Err()) })
	dst.OnClose(func() {
		remove()
		removeHook()
	})
	return dst
}

func callMap[In, Out any](f func(In) (Out, error), v In) (out Out, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("afor: Map function panicked: %v: %w", r, ErrCallbackPanic)
		}
	}()
	return f(v)
}

// Filter returns a sub that receives the values of src for which keep
// returns true. It follows the same lifetime rules as [Map].
func Filter[T any](src *Sub[T], keep func(T) bool, opts ...Option) *Sub[T] {
	dst := NewSub[T](opts...)
	remove := src.OnInput(func(v T) {
		ok, err := callMap(func(v T) (bool, error) { return keep(v), nil }, v)
		if err != nil {
			dst.CloseWithError(err)
			return
		}
		if ok {
			dst.Input(v)
		}
	})
	removeHook := src.OnClose(func() { dst.CloseWithError(src.Err()) })
	dst.OnClose(func() {
		remove()
		removeHook()
	})
	return dst
}
