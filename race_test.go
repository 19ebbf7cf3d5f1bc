package afor_test

import (
	"runtime"
	"testing"

	"github.com/afor-go/afor"
)

// TestWaitForValueRacingInputLosesNothing races WaitForValue against the
// first Input many times. After Input has returned, Close must not be able
// to overtake the value: WaitForValue returns the value, never ErrClosed.
// Before the check and the registration of the waiter were one step, an
// Input landing between them was lost (about 1 in 450 runs).
func TestWaitForValueRacingInputLosesNothing(t *testing.T) {
	const runs = 5000
	ctx := t.Context()
	for i := range runs {
		s := afor.NewSub[int]()
		got := make(chan error, 1)
		go func() {
			v, err := s.WaitForValue(ctx)
			if err == nil && v != 1 {
				t.Errorf("run %d: value %d, want 1", i, v)
			}
			got <- err
		}()
		runtime.Gosched()
		s.Input(1)
		s.Close()
		if err := <-got; err != nil {
			t.Fatalf("run %d: WaitForValue = %v, want the value given to Input", i, err)
		}
	}
}
