package afor_test

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/afor-go/afor"
)

func inputRange(s *afor.Sub[int], from, to int) {
	for i := from; i < to; i++ {
		s.Input(i)
	}
}

// take collects n values from a reliable listener.
func take(t *testing.T, l *afor.Listener[int], n int) []int {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var got []int
	for range n {
		v, err := l.Next(ctx)
		if err != nil {
			t.Fatalf("after %v: %v", got, err)
		}
		got = append(got, v)
	}
	return got
}

func seq(from, to int) []int {
	var s []int
	for i := from; i < to; i++ {
		s = append(s, i)
	}
	return s
}

func TestBacklogFirstReliableListenerGetsAll(t *testing.T) {
	s := afor.NewSub[int](afor.WithBacklog(10))
	inputRange(s, 0, 15)
	if st := s.Stats(); st.Backlog != 10 || st.Dropped != 5 || st.Inputs != 15 {
		t.Fatalf("stats %+v, want a backlog of 10, 5 dropped, 15 inputs", st)
	}
	if v, _ := s.Value(); v != 14 {
		t.Fatalf("Value %d, want the latest, 14", v)
	}
	// WaitForValue reads the latest value and takes nothing.
	if v, err := s.WaitForValue(context.Background()); v != 14 || err != nil {
		t.Fatalf("WaitForValue = %d, %v", v, err)
	}
	l := s.Listener(context.Background(), afor.QueueSize(0))
	defer l.Stop()
	inputRange(s, 15, 20)
	if got := take(t, l, 15); !slices.Equal(got, seq(5, 20)) {
		t.Fatalf("first listener got %v, want 5..19", got)
	}
	if st := s.Stats(); st.Backlog != 0 {
		t.Fatalf("backlog %d after the first listener", st.Backlog)
	}
	// A second listener starts as usual: with the latest value.
	l2 := s.Listener(context.Background())
	defer l2.Stop()
	s.Input(20)
	if got := take(t, l2, 2); !slices.Equal(got, []int{19, 20}) {
		t.Fatalf("second listener got %v, want [19 20]", got)
	}
}

func TestBacklogOtherFirstConsumersEndIt(t *testing.T) {
	ctx := context.Background()
	t.Run("Listen", func(t *testing.T) {
		s := afor.NewSub[int](afor.WithBacklog(10))
		inputRange(s, 0, 5)
		for v := range s.Listen(ctx) {
			if v != 4 {
				t.Fatalf("Listen yielded %d first, want the latest, 4", v)
			}
			break
		}
		assertNoBacklog(t, s)
	})
	t.Run("Fresh", func(t *testing.T) {
		s := afor.NewSub[int](afor.WithBacklog(10))
		inputRange(s, 0, 5)
		l := s.Listener(ctx, afor.Fresh())
		defer l.Stop()
		s.Input(5)
		if got := take(t, l, 1); got[0] != 5 {
			t.Fatalf("fresh listener got %v, want [5]", got)
		}
		assertNoBacklog(t, s)
	})
	t.Run("WaitForNext", func(t *testing.T) {
		s := afor.NewSub[int](afor.WithBacklog(10))
		inputRange(s, 0, 5)
		w := s.ArmNext(ctx)
		s.Input(5)
		if v, err := w.Wait(ctx); v != 5 || err != nil {
			t.Fatalf("WaitForNext = %d, %v; want 5", v, err)
		}
		assertNoBacklog(t, s)
	})
	t.Run("CanceledListenerTakesNothing", func(t *testing.T) {
		s := afor.NewSub[int](afor.WithBacklog(10))
		inputRange(s, 0, 5)
		done, cancel := context.WithCancel(ctx)
		cancel()
		for range s.ListenReliable(done) {
			t.Fatal("a loop with an ended ctx yielded")
		}
		if st := s.Stats(); st.Backlog != 5 {
			t.Fatalf("backlog %d after a cancelled listener, want 5", st.Backlog)
		}
	})
	t.Run("Close", func(t *testing.T) {
		s := afor.NewSub[int](afor.WithBacklog(10))
		inputRange(s, 0, 5)
		s.Close()
		assertNoBacklog(t, s)
		if s.Input(6) {
			t.Fatal("Input after Close")
		}
	})
}

func assertNoBacklog(t *testing.T, s *afor.Sub[int]) {
	t.Helper()
	s.Input(100)
	if st := s.Stats(); st.Backlog != 0 {
		t.Fatalf("backlog %d, want none once a consumer registered", st.Backlog)
	}
}

func TestBacklogOnInputReplaysInOrder(t *testing.T) {
	s := afor.NewSub[int](afor.WithBacklog(5))
	inputRange(s, 0, 8)
	var got []int
	remove := s.OnInput(func(v int) { got = append(got, v) })
	defer remove()
	inputRange(s, 8, 10)
	if !slices.Equal(got, seq(3, 10)) {
		t.Fatalf("callback got %v, want 3..9", got)
	}
}

func TestBacklogMapCarriesIt(t *testing.T) {
	src := afor.NewSub[int](afor.WithBacklog(4))
	inputRange(src, 0, 6)
	dst := afor.Map(src, func(v int) (int, error) { return 10 * v, nil })
	defer dst.Close()
	src.Input(6)
	l := dst.Listener(context.Background())
	defer l.Stop()
	if got := take(t, l, 4); !slices.Equal(got, []int{30, 40, 50, 60}) {
		t.Fatalf("derived listener got %v, want [30 40 50 60] (as deep as src)", got)
	}
}

// Whenever the first consumer registers while a producer is running, it
// gets a gap-free run of values up to the last one: nothing is lost at
// subscribe time, whichever kind of consumer comes first.
func TestBacklogNoGapUnderRace(t *testing.T) {
	const n = 2000
	for round := range 50 {
		for _, kind := range []string{"listener", "callback"} {
			s := afor.NewSub[int](afor.WithBacklog(n))
			var wg sync.WaitGroup
			wg.Go(func() { inputRange(s, 0, n) })
			for range round * 7 {
				if _, ok := s.Value(); ok {
					break
				}
			}
			var got []int
			switch kind {
			case "listener":
				l := s.Listener(context.Background(), afor.QueueSize(0))
				wg.Wait()
				s.Close()
				for v := range l.All() {
					got = append(got, v)
				}
			case "callback":
				var mu sync.Mutex
				s.OnInput(func(v int) { mu.Lock(); got = append(got, v); mu.Unlock() })
				wg.Wait()
				mu.Lock()
			}
			if len(got) == 0 || got[0] != 0 {
				t.Fatalf("round %d, %s: first value %v, want 0 (backlog holds all)", round, kind, got[:min(1, len(got))])
			}
			if !slices.Equal(got, seq(0, n)) {
				t.Fatalf("round %d, %s: got %d values with a gap or a reorder", round, kind, len(got))
			}
		}
	}
}
