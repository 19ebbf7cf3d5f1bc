package zenoh

import (
	"runtime"
	"testing"
	"time"

	"github.com/afor-go/afor/transport/zenoh/internal/wire"
)

// pendingNow returns the session's requests in progress and its queries
// in flight (its own and forwarded ones).
func pendingNow(s *Session) (reqs, gets int) {
	s.pend.mu.Lock()
	reqs = s.pend.count
	s.pend.mu.Unlock()
	s.mu.Lock()
	gets = len(s.gets)
	s.mu.Unlock()
	return reqs, gets
}

// TestAttackPendingQueries: a client link sends 20,000 REQUESTs with a
// one-hour timeout, which the session forwards to another client that
// declared a queryable on q/** and never answers. Before, 500,000 of them
// (6.5 MB) pinned 455 MB, and 54 MB after both links closed. Now the
// pending queries are bounded per link and per session (the rest are
// answered at once), the forwarded ones time out within MaxQueryTimeout, a
// third link's queries get room at the session's bound, and everything
// goes with the links.
func TestAttackPendingQueries(t *testing.T) {
	const (
		n        = 20000
		perLink  = 200
		session  = 300
		clampTo  = 5 * time.Second
		attacked = "q/x"
	)
	s := attackTarget(t, Config{Limits: Limits{MaxPendingQueries: perLink, MaxSessionPendingQueries: session,
		MaxQueryTimeout: clampTo}})
	lp := startLegit(t, s, 0)
	base, g0, cpu0 := heapInuse(), runtime.NumGoroutine(), cpuTime(t)
	start := time.Now()

	answerer := dialHostile(t, s)
	if err := answerer.handshakeAs(400, wire.Client, hostileLease); err != nil {
		t.Fatal(err)
	}
	forwarded := answerer.count()
	_ = answerer.frame(appendDeclareQueryable(nil, nil, 1, "q/**", false))
	waitQ(t, s, attacked)

	asker := dialHostile(t, s)
	if err := asker.handshakeAs(401, wire.Client, hostileLease); err != nil {
		t.Fatal(err)
	}
	answered := asker.count()
	msgs := make([][]byte, 0, n)
	for i := range n {
		msgs = append(msgs, requestMsg(uint32(i+1), attacked, time.Hour))
	}
	if err := asker.frame(msgs...); err != nil {
		t.Fatal(err)
	}
	// The queries over the link's bound are answered at once.
	if !answered.waitFor(20*time.Second, func() bool { return answered.finals.Load() >= n-perLink }) {
		t.Fatalf("%d queries answered, want %d", answered.finals.Load(), n-perLink)
	}
	if !forwarded.waitFor(10*time.Second, func() bool { return forwarded.requests.Load() >= perLink }) {
		t.Fatalf("%d queries forwarded, want %d", forwarded.requests.Load(), perLink)
	}
	reqs, gets := pendingNow(s)
	grown := int64(heapInuse()) - int64(base)
	t.Logf("pending queries (%d sent, 1 h timeout): %d answered at once, %d forwarded (timeout %v), %d pending, %d in flight, heap +%.1f MiB, %v",
		n, answered.finals.Load(), forwarded.requests.Load(), time.Duration(forwarded.maxTimeout.Load()), reqs, gets,
		float64(grown)/mib, time.Since(start).Round(time.Millisecond))
	if reqs != perLink || gets > perLink+1 {
		t.Errorf("%d requests pending and %d queries in flight, want %d", reqs, gets, perLink)
	}
	if got := time.Duration(forwarded.maxTimeout.Load()); got > clampTo {
		t.Errorf("a forwarded query carries a timeout of %v, want at most %v", got, clampTo)
	}
	if grown > 16*mib {
		t.Errorf("heap grew by %.1f MiB, want under 16 MiB", float64(grown)/mib)
	}

	// A third link's queries: at the session's bound the asker, which
	// holds the most, makes room until both hold as many.
	third := dialHostile(t, s)
	if err := third.handshakeAs(402, wire.Client, hostileLease); err != nil {
		t.Fatal(err)
	}
	thirdAnswered := third.count()
	msgs = msgs[:0]
	for i := range session - perLink/2 {
		msgs = append(msgs, requestMsg(uint32(i+1), attacked, time.Hour))
	}
	msgs = append(msgs, marker("attack/done"))
	seen := collector(t, s, "attack/done")
	_ = third.frame(msgs...)
	recv(t, seen)
	s.pend.mu.Lock()
	askerHolds, thirdHolds := len(asker.pendOf(s).reqs), len(third.pendOf(s).reqs)
	s.pend.mu.Unlock()
	t.Logf("a third link's %d queries: it holds %d, the asker %d; %d of the third's answered at once",
		session-perLink/2, thirdHolds, askerHolds, thirdAnswered.finals.Load())
	if thirdHolds+askerHolds != session || thirdHolds < session/2-1 {
		t.Errorf("the third link holds %d queries and the asker %d, want %d in all, about half each", thirdHolds, askerHolds, session)
	}

	st := s.Stats()
	if st.ByLimit[LimitPendingQueries] != n-perLink || st.ByLimit[LimitQueryTimeout] == 0 || st.ByLimit[LimitSessionPendingQueries] == 0 {
		t.Errorf("Stats = %+v, want %d for %s, and %s and %s counted", st, n-perLink, LimitPendingQueries, LimitQueryTimeout, LimitSessionPendingQueries)
	}

	// Everything goes with the links.
	gone := []*link{asker.linkOf(s), third.linkOf(s), answerer.linkOf(s)}
	asker.conn.Close()
	third.conn.Close()
	answerer.conn.Close()
	for _, l := range gone {
		<-l.finished // removed, and its queries ended
	}
	reqs, gets = pendingNow(s)
	g1 := runtime.NumGoroutine()
	left := int64(heapInuse()) - int64(base)
	cpu := cpuTime(t) - cpu0
	t.Logf("after the links closed: %d pending, %d in flight, heap +%.1f MiB, goroutines %d -> %d, CPU %v",
		reqs, gets, float64(left)/mib, g0, g1, cpu)
	if reqs != 0 || gets != 0 {
		t.Errorf("%d requests pending and %d queries in flight after the links closed, want none", reqs, gets)
	}
	if left > 4*mib {
		t.Errorf("heap still +%.1f MiB after the links closed, want under 4 MiB", float64(left)/mib)
	}
	if cpu > 20*time.Second {
		t.Errorf("the attack cost %v of CPU, want under 20 s", cpu)
	}
	lp.check()
}

// pendOf returns the pending requests of the session's link to h (s.pend.mu
// held).
func (h *hostile) pendOf(s *Session) *linkPending {
	if l := h.linkOf(s); l != nil {
		return &l.pend
	}
	return &linkPending{}
}

// linkOf returns the session's link to h, or nil.
func (h *hostile) linkOf(s *Session) *link {
	s.mu.Lock()
	defer s.mu.Unlock()
	for l := range s.links {
		if l.conn.RemoteAddr().String() == h.conn.LocalAddr().String() {
			return l
		}
	}
	return nil
}

// Queries handed to a local queryable that never answers are bounded the
// same way, and finished when their link goes.
func TestPendingQueriesLocal(t *testing.T) {
	const (
		n       = 50
		perLink = 10
	)
	s := attackTarget(t, Config{Limits: Limits{MaxPendingQueries: perLink}})
	got := make(chan *Query, n)
	qa := declareQ(t, s, "local/**", func(q *Query) { got <- q })
	h := dialHostile(t, s)
	if err := h.handshake(500, hostileLease); err != nil {
		t.Fatal(err)
	}
	answered := h.count()
	msgs := make([][]byte, 0, n)
	for i := range n {
		msgs = append(msgs, requestMsg(uint32(i+1), "local/x", time.Hour))
	}
	_ = h.frame(msgs...)
	if !answered.waitFor(10*time.Second, func() bool { return answered.finals.Load() >= n-perLink }) {
		t.Fatalf("%d queries answered at once, want %d", answered.finals.Load(), n-perLink)
	}
	qs := make([]*Query, 0, perLink)
	for range perLink {
		select {
		case q := <-got:
			qs = append(qs, q)
		case <-time.After(10 * time.Second):
			t.Fatal("the queryable got fewer queries than the link may have pending")
		}
	}
	if reqs, _ := pendingNow(s); reqs != perLink {
		t.Errorf("%d requests pending, want %d", reqs, perLink)
	}
	gone := h.linkOf(s)
	h.conn.Close()
	<-gone.finished // removed, and its queries ended
	for _, q := range qs {
		if !q.isFinished() {
			t.Error("a query from the closed link is not finished")
		}
	}
	qa.mu.Lock()
	left := len(qa.pending)
	qa.mu.Unlock()
	if reqs, _ := pendingNow(s); reqs != 0 || left != 0 {
		t.Errorf("%d requests pending, %d queries held by the queryable after the link closed, want none", reqs, left)
	}
}
