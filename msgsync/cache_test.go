package msgsync_test

import (
	"cmp"
	"context"
	"errors"
	"math/rand/v2"
	"slices"
	"testing"
	"testing/synctest"
	"time"

	"github.com/afor-go/afor"
	"github.com/afor-go/afor/msgsync"
)

func ns(n int64) time.Time { return time.Unix(0, n) }

// cacheModel is what a cache of size must hold: the size messages of
// latest stamps, in stamp order, equal stamps in arrival order; a message
// older than a full cache is not kept.
type cacheModel struct {
	size  int
	items []msg
}

func (m *cacheModel) add(v msg) {
	if len(m.items) == m.size {
		if v.stamp < m.items[0].stamp {
			return
		}
		m.items = m.items[1:]
	}
	m.items = append(m.items, v)
	slices.SortStableFunc(m.items, func(a, b msg) int { return cmp.Compare(a.stamp, b.stamp) })
}

func (m *cacheModel) filter(keep func(msg) bool) []msg {
	var out []msg
	for _, v := range m.items {
		if keep(v) {
			out = append(out, v)
		}
	}
	return out
}

// TestCacheLookups compares every lookup of the cache with a linear scan
// of the model, on random streams with equal and out-of-order stamps.
func TestCacheLookups(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for it := range 300 {
		size := 1 + r.IntN(8)
		sub := afor.NewSub[msg]()
		c := msgsync.NewCache(msgsync.In(sub, msgStamp), size)
		model := &cacheModel{size: size}
		for k := range 30 {
			v := msg{seq: k, stamp: int64(k + r.IntN(10) - 3)}
			sub.Input(v)
			model.add(v)
			if got := c.Len(); got != len(model.items) {
				t.Fatalf("iteration %d: Len %d, want %d", it, got, len(model.items))
			}
			a, b := int64(r.IntN(40)-5), int64(r.IntN(40)-5)
			if a > b {
				a, b = b, a
			}
			if got, want := c.Interval(ns(a), ns(b)), model.filter(func(v msg) bool { return v.stamp >= a && v.stamp <= b }); !slices.Equal(got, want) {
				t.Fatalf("iteration %d: Interval(%d, %d) = %v, want %v (cache %v)", it, a, b, got, want, model.items)
			}
			before := model.filter(func(v msg) bool { return v.stamp < a })
			if got, ok := c.Before(ns(a)); ok != (len(before) > 0) || ok && got != before[len(before)-1] {
				t.Fatalf("iteration %d: Before(%d) = %v %v, cache %v", it, a, got, ok, model.items)
			}
			after := model.filter(func(v msg) bool { return v.stamp > a })
			if got, ok := c.After(ns(a)); ok != (len(after) > 0) || ok && got != after[0] {
				t.Fatalf("iteration %d: After(%d) = %v %v, cache %v", it, a, got, ok, model.items)
			}
			if got, ok := c.Oldest(); !ok || got != model.items[0] {
				t.Fatalf("iteration %d: Oldest() = %v, cache %v", it, got, model.items)
			}
			if got, ok := c.Latest(); !ok || got != model.items[len(model.items)-1] {
				t.Fatalf("iteration %d: Latest() = %v, cache %v", it, got, model.items)
			}
			// Surrounding: from the latest at or before a (else the first)
			// to the earliest at or after b from there (else the last).
			lo := 0
			for i, v := range model.items {
				if v.stamp <= a {
					lo = i
				}
			}
			hi := len(model.items) - 1
			for i := len(model.items) - 1; i >= lo; i-- {
				if model.items[i].stamp >= b {
					hi = i
				}
			}
			if got, want := c.Surrounding(ns(a), ns(b)), model.items[lo:hi+1]; !slices.Equal(got, want) {
				t.Fatalf("iteration %d: Surrounding(%d, %d) = %v, want %v (cache %v)", it, a, b, got, want, model.items)
			}
		}
		st := c.Stats()
		if st.Inputs != 30 || st.Evicted+st.Rejected+uint64(st.Len) != 30 {
			t.Fatalf("iteration %d: stats %+v", it, st)
		}
		c.Close()
	}
}

// TestCacheEmpty: lookups in an empty cache find nothing.
func TestCacheEmpty(t *testing.T) {
	c := msgsync.NewCache(msgsync.In(afor.NewSub[msg](), msgStamp), 3)
	defer c.Close()
	if _, ok := c.Oldest(); ok {
		t.Error("Oldest in an empty cache")
	}
	if _, ok := c.Latest(); ok {
		t.Error("Latest in an empty cache")
	}
	if _, ok := c.Before(ns(10)); ok {
		t.Error("Before in an empty cache")
	}
	if _, ok := c.After(ns(10)); ok {
		t.Error("After in an empty cache")
	}
	if got := c.Interval(ns(0), ns(10)); got != nil {
		t.Errorf("Interval in an empty cache: %v", got)
	}
	if got := c.Surrounding(ns(0), ns(10)); got != nil {
		t.Errorf("Surrounding in an empty cache: %v", got)
	}
}

// TestCacheWaitFor: WaitFor returns a cached message at once, else the
// first to arrive at or after the time; a deadline ends it and unregisters
// it; a close ends it with ErrClosed and the sub's error.
func TestCacheWaitFor(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		sub := afor.NewSub[msg]()
		c := msgsync.NewCache(msgsync.In(sub, msgStamp), 4)
		defer c.Close()
		ctx := context.Background()
		sub.Input(msg{stamp: 3})
		sub.Input(msg{stamp: 7})
		if v, err := c.WaitFor(ctx, ns(5)); err != nil || v.stamp != 7 {
			t.Errorf("WaitFor(5) with 3 and 7 cached = %v, %v", v, err)
		}

		got := make(chan msg, 1)
		go func() {
			v, err := c.WaitFor(ctx, ns(10))
			if err != nil {
				t.Errorf("WaitFor(10): %v", err)
			}
			got <- v
		}()
		synctest.Wait()
		if st := c.Stats(); st.Waiters != 1 {
			t.Fatalf("waiters %d, want 1", st.Waiters)
		}
		sub.Input(msg{stamp: 8})
		sub.Input(msg{stamp: 1}) // cached, but before 10
		synctest.Wait()
		select {
		case v := <-got:
			t.Fatalf("WaitFor(10) returned %v early", v)
		default:
		}
		sub.Input(msg{stamp: 12})
		if v := <-got; v.stamp != 12 {
			t.Errorf("WaitFor(10) = %v, want stamp 12", v)
		}

		dctx, cancel := context.WithTimeout(ctx, time.Second)
		defer cancel()
		start := time.Now()
		if _, err := c.WaitFor(dctx, ns(100)); !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("WaitFor with a deadline: %v", err)
		}
		if d := time.Since(start); d != time.Second {
			t.Errorf("WaitFor waited %v, want the 1 s deadline", d)
		}
		if st := c.Stats(); st.Waiters != 0 {
			t.Errorf("a timed-out WaitFor left %d waiters", st.Waiters)
		}
		if _, err := c.WaitFor(dctx, ns(0)); !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("WaitFor with an ended ctx: %v", err)
		}

		boom := errors.New("boom")
		errc := make(chan error, 1)
		go func() {
			_, err := c.WaitFor(ctx, ns(100))
			errc <- err
		}()
		synctest.Wait()
		sub.CloseWithError(boom)
		if err := <-errc; !errors.Is(err, afor.ErrClosed) || !errors.Is(err, boom) {
			t.Errorf("WaitFor when the sub closes: %v", err)
		}
		if _, err := c.WaitFor(ctx, ns(0)); !errors.Is(err, afor.ErrClosed) {
			t.Errorf("WaitFor on a closed cache: %v", err)
		}
		if c.Len() != 0 || !errors.Is(c.Err(), boom) {
			t.Errorf("closed cache: %d cached, Err %v", c.Len(), c.Err())
		}
	})
}

// TestCacheClose: Close detaches the cache and ends waits.
func TestCacheClose(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		sub := afor.NewSub[msg]()
		c := msgsync.NewCache(msgsync.In(sub, msgStamp), 4)
		errc := make(chan error, 1)
		go func() {
			_, err := c.WaitFor(context.Background(), ns(100))
			errc <- err
		}()
		synctest.Wait()
		c.Close()
		if err := <-errc; !errors.Is(err, afor.ErrClosed) || c.Err() != nil {
			t.Errorf("WaitFor after Close: %v; Err %v", err, c.Err())
		}
		sub.Input(msg{stamp: 1})
		if c.Len() != 0 || c.Stats().Inputs != 0 {
			t.Errorf("a closed cache took a message: %+v", c.Stats())
		}
		<-c.Done()
		// A cache of a closed sub is closed at once.
		c2 := msgsync.NewCache(msgsync.In(sub, msgStamp), 4)
		sub.Close()
		c3 := msgsync.NewCache(msgsync.In(sub, msgStamp), 4)
		<-c2.Done()
		<-c3.Done()
	})
}

// TestCacheConcurrent: waits and lookups from several goroutines while
// the producer feeds the cache.
func TestCacheConcurrent(t *testing.T) {
	sub := afor.NewSub[msg]()
	c := msgsync.NewCache(msgsync.In(sub, msgStamp), 16)
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	errc := make(chan error, 8)
	for g := range 8 {
		go func() {
			at := int64(100 * (g + 1))
			v, err := c.WaitFor(ctx, ns(at))
			if err == nil && v.stamp < at {
				err = errors.New("WaitFor returned an earlier stamp")
			}
			c.Interval(ns(at-10), ns(at))
			c.Before(ns(at))
			errc <- err
		}()
	}
	for k := range 1000 {
		sub.Input(msg{seq: k, stamp: int64(k)})
	}
	for range 8 {
		if err := <-errc; err != nil {
			t.Error(err)
		}
	}
}
