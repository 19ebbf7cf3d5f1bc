package msgsync

import (
	"fmt"
	"time"

	"github.com/afor-go/afor"
)

// Input is a sub to synchronize, with the function that reads the stamp
// of its values (for a ROS message, its header's stamp: see package
// rossync). Stamps must lie between the years 1678 and 2262 (the range of
// [time.Time.UnixNano]); ROS stamps always do.
type Input[T any] struct {
	Sub   *afor.Sub[T]
	Stamp func(T) time.Time
}

// In returns the Input of sub stamped by stamp.
func In[T any](sub *afor.Sub[T], stamp func(T) time.Time) Input[T] {
	return Input[T]{Sub: sub, Stamp: stamp}
}

// Source is an [Input] of any type, for the synchronizers of any number of
// inputs ([ExactN], [ApproximateN]).
type Source interface {
	check(i int)
	hookAny(c *core, out *afor.Sub[[]any], i int, col *col[any]) (remove func())
}

func (in Input[T]) check(i int) {
	if in.Sub == nil || in.Stamp == nil {
		panic(fmt.Sprintf("msgsync: input %d has no Sub or no Stamp function", i))
	}
}

func (in Input[T]) hookAny(c *core, out *afor.Sub[[]any], i int, col *col[any]) func() {
	return hook(c, out, in.Sub, in.Stamp, i, func(at int, v T) { col.put(at, v) })
}

// hook feeds the values of sub, input i of the synchronizer c with output
// out, to c's policy, from sub's producer goroutine; put stores a value
// where the policy places it. Closing sub closes out with sub's error. It
// returns the function that detaches from sub.
func hook[T, Out any](c *core, out *afor.Sub[Out], sub *afor.Sub[T], stamp func(T) time.Time, i int, put func(at int, v T)) (remove func()) {
	removeInput := sub.OnInput(func(v T) {
		st, err := stampOf(stamp, v)
		if err != nil {
			out.CloseWithError(fmt.Errorf("msgsync: input %d: %w", i, err))
			return
		}
		c.mu.Lock()
		defer c.mu.Unlock()
		if c.closed {
			return
		}
		c.observe(i, st)
		at, ok := c.pol.place(i, st)
		if !ok {
			return
		}
		put(at, v)
		c.pol.commit(i, st, at)
	})
	removeHook := sub.OnClose(func() { out.CloseWithError(sub.Err()) })
	return func() {
		removeInput()
		removeHook()
	}
}

// stampOf returns the stamp of v in nanoseconds since the Unix epoch,
// turning a panic of stamp into an error matching [afor.ErrCallbackPanic].
func stampOf[T any](stamp func(T) time.Time, v T) (ns int64, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("stamp function panicked: %v: %w", r, afor.ErrCallbackPanic)
		}
	}()
	return stamp(v).UnixNano(), nil
}
