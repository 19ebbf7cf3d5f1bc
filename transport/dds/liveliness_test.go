package dds

import (
	"testing"
	"time"

	"github.com/afor-go/afor/transport/dds/internal/rtps"
)

// lastAssert returns when reader r last heard an assertion of writer w.
func lastAssert(r *Reader, w *Writer) (time.Time, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	wp := r.proxies[w.guid]
	if wp == nil {
		return time.Time{}, false
	}
	return wp.lastAssert, wp.alive
}

// An AUTOMATIC writer with a lease stays alive with no samples (its
// participant asserts it through WLP), and is not alive once its
// participant is gone silently, long before the participant's lease.
func TestLivelinessAutomatic(t *testing.T) {
	d := nextDomain()
	a := newTestParticipant(t, Config{DomainID: d, Range: RangeLocalhost, Lease: 30 * time.Second})
	b := newTestParticipant(t, Config{DomainID: d, Range: RangeLocalhost})
	ctx := waitCtx(t)
	const lease = 300 * time.Millisecond
	w, err := NewWriter(a, chatter, QoS{Liveliness: Automatic, LivelinessLease: lease})
	if err != nil {
		t.Fatal(err)
	}
	r, err := NewReader(b, chatter, QoS{Liveliness: Automatic, LivelinessLease: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if err := r.WaitStatus(ctx, func(s MatchStatus) bool { return s.Matched == 1 && s.Alive == 1 }); err != nil {
		t.Fatal(err)
	}
	matched, _ := lastAssert(r, w)
	// Assertions keep coming, with no sample written: wait for one two
	// leases after the match.
	for {
		at, alive := lastAssert(r, w)
		if !alive {
			t.Fatal("the writer went not alive while its participant asserted it")
		}
		if at.Sub(matched) > 2*lease {
			break
		}
		select {
		case <-ctx.Done():
			t.Fatal("no liveliness assertion")
		case <-time.After(lease / 4): // polling the reader's state
		}
	}
	if st := r.Status(); st.Alive != 1 || st.NotAlive != 0 {
		t.Fatalf("status %+v", st)
	}
	a.close(false) // a crash: no dispose, a 30 s participant lease
	if err := r.WaitStatus(ctx, func(s MatchStatus) bool { return s.Alive == 0 && s.NotAlive == 1 && s.Matched == 1 }); err != nil {
		t.Fatalf("the crashed writer is still alive: %v (%+v)", err, r.Status())
	}
}

// A MANUAL_BY_TOPIC writer is alive while it writes within its lease, not
// alive when it stops, and alive again when it writes.
func TestLivelinessManualByTopic(t *testing.T) {
	a, b := localhostPair(t)
	ctx := waitCtx(t)
	const lease = 200 * time.Millisecond
	w, err := NewWriter(a, chatter, QoS{Liveliness: ManualByTopic, LivelinessLease: lease})
	if err != nil {
		t.Fatal(err)
	}
	r, err := NewReader(b, chatter, QoS{Liveliness: ManualByTopic, LivelinessLease: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if err := r.WaitStatus(ctx, func(s MatchStatus) bool { return s.Matched == 1 }); err != nil {
		t.Fatal(err)
	}
	if err := r.WaitStatus(ctx, func(s MatchStatus) bool { return s.NotAlive == 1 }); err != nil {
		t.Fatalf("a silent manual writer stays alive: %v", err)
	}
	if err := w.Write(ctx, cdrString("here")); err != nil {
		t.Fatal(err)
	}
	if err := r.WaitStatus(ctx, func(s MatchStatus) bool { return s.Alive == 1 && s.NotAlive == 0 }); err != nil {
		t.Fatalf("a writing manual writer is not alive: %v", err)
	}
	w.Close()
	if err := r.WaitStatus(ctx, func(s MatchStatus) bool { return s.Matched == 0 && s.Alive == 0 && s.NotAlive == 0 }); err != nil {
		t.Fatalf("after the writer closed: %v (%+v)", err, r.Status())
	}
	if st := r.Status(); st.TotalMatched != 1 {
		t.Errorf("total matched %d", st.TotalMatched)
	}
}

func FuzzParseWLP(f *testing.F) {
	msg := make([]byte, wlpMessageLen)
	msg[1] = 1
	msg[19] = 1
	f.Add(msg, false)
	f.Add(msg[:20], true)
	f.Add([]byte{0, 0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 0, 0, 0, 2, 0, 0, 0, 4, 1, 2, 3, 4}, false)
	f.Add([]byte{0, 1, 0, 0}, false)
	f.Fuzz(func(t *testing.T, payload []byte, key bool) {
		prefix, lk, ok, err := parseWLP(payload, key)
		if err != nil && ok {
			t.Fatal("ok with an error")
		}
		if ok && lk != Automatic && lk != ManualByParticipant {
			t.Fatalf("kind %v", lk)
		}
		if ok && !key && prefix != rtps.GuidPrefix(payload[4:16]) {
			t.Fatal("wrong prefix")
		}
	})
}

// A ParticipantMessageData that does not decode is counted and dropped;
// one from another participant than its sender asserts nothing.
func TestWLPMalformed(t *testing.T) {
	a, _ := localhostPair(t)
	before := a.Stats().Malformed
	a.onWLP(&inSample{payload: []byte{0, 1, 0, 0, 1, 2}})
	if a.Stats().Malformed != before+1 {
		t.Error("a short WLP message was not counted")
	}
	other := rtps.GuidPrefix{9, 9, 9}
	msg := make([]byte, wlpMessageLen)
	msg[1] = 1
	copy(msg[4:], other[:])
	msg[19] = 1
	a.onWLP(&inSample{payload: msg, writer: rtps.GUID{Prefix: rtps.GuidPrefix{1}, Entity: rtps.EntityWLPWriter}})
}
