package msgsync_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/afor-go/afor"
	"github.com/afor-go/afor/msgsync"
)

// TestCloseDetaches: closing the synchronizer removes its callbacks from
// the inputs and lets go of the messages it held, counted as dropped.
func TestCloseDetaches(t *testing.T) {
	for _, approximate := range []bool{false, true} {
		h := newHarness(t, approximate, 2)
		h.feed(in{0, 1}, in{0, 2})
		h.sync.Close()
		st := h.checkStats()
		if st.Pending[0] != 0 || st.Dropped[0] != 2 {
			t.Errorf("approximate %v: after Close: %+v", approximate, st)
		}
		h.feed(in{0, 3}, in{1, 3})
		if st := h.sync.Stats(); st.Inputs[0] != 2 || st.Inputs[1] != 0 {
			t.Errorf("approximate %v: inputs after Close were counted: %+v", approximate, st)
		}
		if _, err := h.sync.WaitForNext(context.Background()); !errors.Is(err, afor.ErrClosed) {
			t.Errorf("approximate %v: WaitForNext on a closed synchronizer: %v", approximate, err)
		}
	}
}

// TestSourceCloseEnds: closing an input closes the synchronizer with the
// input's error, and an input closed already closes it at once.
func TestSourceCloseEnds(t *testing.T) {
	boom := errors.New("boom")
	a, b := afor.NewSub[msg](), afor.NewSub[msg]()
	s := msgsync.Approximate(msgsync.In(a, msgStamp), msgsync.In(b, msgStamp))
	b.CloseWithError(boom)
	<-s.Done()
	if !errors.Is(s.Err(), boom) {
		t.Errorf("Err() = %v, want %v", s.Err(), boom)
	}
	if _, err := s.WaitForValue(context.Background()); !errors.Is(err, boom) || !errors.Is(err, afor.ErrClosed) {
		t.Errorf("WaitForValue: %v", err)
	}

	e := msgsync.Exact(msgsync.In(a, msgStamp), msgsync.In(b, msgStamp))
	select {
	case <-e.Done():
	default:
		t.Fatal("a synchronizer of a closed input is open")
	}
	if !errors.Is(e.Err(), boom) {
		t.Errorf("Err() = %v, want %v", e.Err(), boom)
	}
}

// TestStampPanic: a stamp function that panics closes only the
// synchronizer, with an error matching afor.ErrCallbackPanic.
func TestStampPanic(t *testing.T) {
	a, b := afor.NewSub[msg](), afor.NewSub[msg]()
	bad := func(m msg) time.Time {
		if m.stamp < 0 {
			panic("negative")
		}
		return msgStamp(m)
	}
	s := msgsync.Exact(msgsync.In(a, bad), msgsync.In(b, msgStamp))
	a.Input(msg{stamp: 1})
	a.Input(msg{stamp: -1})
	<-s.Done()
	if !errors.Is(s.Err(), afor.ErrCallbackPanic) {
		t.Errorf("Err() = %v, want ErrCallbackPanic", s.Err())
	}
	select {
	case <-a.Done():
		t.Error("the input closed too")
	default:
	}
}

// TestConfigPanics: programming errors panic at construction.
func TestConfigPanics(t *testing.T) {
	a, b := afor.NewSub[msg](), afor.NewSub[msg]()
	for name, f := range map[string]func(){
		"queue 0":           func() { msgsync.QueueSize(0) },
		"negative interval": func() { msgsync.MaxInterval(-1) },
		"negative penalty":  func() { msgsync.AgePenalty(-0.5) },
		"bound on input 2": func() {
			msgsync.Approximate(msgsync.In(a, msgStamp), msgsync.In(b, msgStamp), msgsync.InterMessageLowerBound(2, 1))
		},
		"penalty on exact": func() { msgsync.Exact(msgsync.In(a, msgStamp), msgsync.In(b, msgStamp), msgsync.AgePenalty(1)) },
		"no stamp":         func() { msgsync.Exact(msgsync.In(a, msgStamp), msgsync.In[msg](b, nil)) },
		"one input":        func() { msgsync.ApproximateN([]msgsync.Source{msgsync.In(a, msgStamp)}) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic", name)
				}
			}()
			f()
		}()
	}
}

// TestConcurrentInputs: inputs fed from their own goroutines, a consumer
// listening: every stamp pairs (exact) and the counters add up.
func TestConcurrentInputs(t *testing.T) {
	const count = 2000
	a, b := afor.NewSub[msg](), afor.NewSub[msg]()
	for _, approximate := range []bool{false, true} {
		var s *msgsync.Sync[msgsync.Pair[msg, msg]]
		if approximate {
			s = msgsync.Approximate(msgsync.In(a, msgStamp), msgsync.In(b, msgStamp), msgsync.QueueSize(count+2))
		} else {
			s = msgsync.Exact(msgsync.In(a, msgStamp), msgsync.In(b, msgStamp), msgsync.QueueSize(count+2))
		}
		ctx, cancel := context.WithCancel(context.Background())
		got := make(chan int, 1)
		ready := make(chan struct{})
		go func() {
			n := 0
			l := s.Listener(ctx, afor.QueueSize(0))
			close(ready)
			for {
				p, err := l.Next(ctx)
				if err != nil {
					got <- n
					return
				}
				if p.A.stamp != p.B.stamp {
					t.Errorf("pair %v", p)
				}
				n++
			}
		}()
		<-ready
		var wg sync.WaitGroup
		for i, sub := range []*afor.Sub[msg]{a, b} {
			wg.Go(func() {
				for k := range count + 1 {
					sub.Input(msg{topic: i, seq: k, stamp: int64(k)})
				}
			})
		}
		wg.Wait()
		s.Close() // the listener yields what it queued, then ends
		n := <-got
		cancel()
		// The approximate policy holds the last pair until a later message.
		if want := count + 1; n != want && !(approximate && n == count) {
			t.Errorf("approximate %v: %d pairs, want %d", approximate, n, want)
		}
		st := s.Stats()
		for i := range 2 {
			if st.Inputs[i] != st.Sets+st.Dropped[i]+uint64(st.Pending[i]) {
				t.Errorf("approximate %v: stats %+v", approximate, st)
			}
		}
	}
}
