package zenoh

import (
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/afor-go/afor/transport/zenoh/internal/wire"
)

// TestIncrementalRouteMatchesFull drives random declarations and
// undeclarations, local and from fake links (peers, clients, a router
// whose subscribers are not known yet), and link set changes, and checks
// after each step that every route cache brought up to date incrementally
// equals the route computed from scratch. It runs past the change log's
// length, so that old caches also take the full path.
func TestIncrementalRouteMatchesFull(t *testing.T) {
	for _, mode := range []Mode{ModePeer, ModeClient} {
		t.Run(mode.String(), func(t *testing.T) {
			testIncrementalRoutes(t, mode)
		})
	}
}

func testIncrementalRoutes(t *testing.T, mode Mode) {
	s := openT(t, Config{})
	if mode == ModeClient {
		s.cfg.Mode = ModeClient // a client that is not connected: only the routing matters
	}
	rng := rand.New(rand.NewPCG(17, 1))
	keys := []string{"a", "a/b", "a/*", "a/**", "**", "*/b", "a/b$*", "$*b/**", "@v/a", "@v/**", "c/d/e", "**/e"}
	links := []*link{
		{whatami: wire.Peer, remoteSubs: map[uint32]uint32{}},
		{whatami: wire.Client, remoteSubs: map[uint32]uint32{}},
		{whatami: wire.Client, remoteSubs: map[uint32]uint32{}},
		{whatami: wire.Router, remoteSubs: map[uint32]uint32{}, askedSubs: true},
	}
	var locals []*Subscriber
	var rid uint32
	caches := map[[2]int]*routeCache{} // by key index and source (0: local, i+1: links[i])
	linked := make([]bool, len(links))

	// Key 0's caches are brought up to date rarely, after more changes
	// than the log keeps.
	check := func(step int, stale bool) {
		for ki, key := range keys {
			if (ki == 0) != stale {
				continue
			}
			for si := 0; si <= len(links); si++ {
				var src *link
				if si > 0 {
					src = links[si-1]
					if !linked[si-1] {
						continue
					}
				}
				c := s.route(caches[[2]int{ki, si}], key, src)
				caches[[2]int{ki, si}] = c
				s.mu.Lock()
				want := s.fullRouteLocked(s.table.Load(), s.rt.gen.Load(), key, src)
				s.mu.Unlock()
				if !sameRoute(c, want) {
					t.Fatalf("step %d, key %q from %d: incremental route %v/%v/%d, full %v/%v/%d",
						step, key, si, c.local, c.links, c.matched, want.local, want.links, want.matched)
				}
			}
		}
	}
	for step := range 4000 {
		switch op := rng.IntN(10); {
		case op < 2: // a local subscriber
			sub, err := s.DeclareSubscriber(keys[rng.IntN(len(keys))], func(Sample) {})
			if err != nil {
				t.Fatal(err)
			}
			locals = append(locals, sub)
		case op < 4 && len(locals) > 0:
			i := rng.IntN(len(locals))
			_ = locals[i].Undeclare()
			locals = slices.Delete(locals, i, i+1)
		case op < 6: // a remote subscriber on a linked link
			i := rng.IntN(len(links))
			if !linked[i] {
				continue
			}
			l := links[i]
			s.mu.Lock()
			rid++
			e := s.addEntryLocked(keys[rng.IntN(len(keys))], l, nil)
			l.remoteSubs[rid] = e.id
			s.mu.Unlock()
		case op < 9: // a remote undeclaration
			i := rng.IntN(len(links))
			l := links[i]
			s.mu.Lock()
			for id, gid := range l.remoteSubs {
				delete(l.remoteSubs, id)
				s.removeEntryLocked(gid)
				break
			}
			s.mu.Unlock()
		case step > 500 && step < 3000:
			// No link changes here: the log grows past its length.
		default: // a link comes or goes, or the router answers
			i := rng.IntN(len(links))
			l := links[i]
			s.mu.Lock()
			switch {
			case !linked[i]:
				s.links[l] = struct{}{}
				linked[i] = true
			case l.askedSubs && !l.subsKnown && rng.IntN(2) == 0:
				l.subsKnown = true
			default:
				delete(s.links, l)
				for _, gid := range l.remoteSubs {
					s.removeEntryLocked(gid)
				}
				clear(l.remoteSubs)
				l.subsKnown = false
				linked[i] = false
			}
			s.rebuildLocked()
			s.mu.Unlock()
		}
		if step%11 == 0 || step > 3950 {
			check(step, false)
		}
		if step%1500 == 0 || step == 2000 || step > 3950 {
			check(step, true)
		}
	}
	// Leave the session as Close expects it: no fake links.
	s.mu.Lock()
	for i, l := range links {
		if linked[i] {
			delete(s.links, l)
			for _, gid := range l.remoteSubs {
				s.removeEntryLocked(gid)
			}
		}
	}
	s.rebuildLocked()
	s.mu.Unlock()
}

// sameRoute reports whether two routes have the same destinations: the
// same local subscribers in the same order, the same links in any order,
// and the same count of matched links.
func sameRoute(a, b *routeCache) bool {
	if !slices.Equal(a.local, b.local) || a.matched != b.matched || len(a.links) != len(b.links) {
		return false
	}
	for _, l := range a.links {
		if !slices.Contains(b.links, l) {
			return false
		}
	}
	return true
}

// declEvent is a declaration a raw peer received, in short.
type declEvent struct {
	undeclare bool
	final     bool
	id        uint32
	key       string
}

// readDecls decodes the declarations that h receives and sends them to
// the returned channel, until the connection ends.
func readDecls(t *testing.T, h *cpuPeer) <-chan declEvent {
	ch := make(chan declEvent, 256)
	go func() {
		defer close(ch)
		d := wire.NewDecoder(wire.DefaultLimits())
		buf := make([]byte, 65535)
		for {
			b, err := readBatch(h.br, buf)
			if err != nil {
				return
			}
			d.Reset(b)
			for {
				m, err := d.Next()
				if err != nil {
					break
				}
				if _, ok := m.(*wire.Frame); !ok {
					continue
				}
				for {
					nm, err := d.NextNetwork()
					if err != nil {
						break
					}
					decl, ok := nm.(*wire.Declare)
					if !ok {
						continue
					}
					switch b := decl.Body.(type) {
					case *wire.DeclareSubscriber:
						ch <- declEvent{id: b.ID, key: string(b.WireExpr.Suffix)}
					case *wire.UndeclareSubscriber:
						ch <- declEvent{undeclare: true, id: b.ID}
					case *wire.DeclareFinal:
						ch <- declEvent{final: true, id: decl.InterestID}
					}
				}
			}
		}
	}()
	return ch
}

// TestAggregatedInterestIncremental: a remote's aggregated interest in
// "agg/**" is answered with one declaration of "agg/**" while at least one
// subscriber intersects it, kept while others remain, and withdrawn with
// the last one.
func TestAggregatedInterestIncremental(t *testing.T) {
	s := openT(t, Config{Listen: []string{"tcp/127.0.0.1:0"}})
	h := dialCPUPeer(t, s)
	_ = h.conn.SetReadDeadline(time.Time{})
	events := readDecls(t, h)
	next := func(what string, ok func(declEvent) bool) declEvent {
		t.Helper()
		for {
			select {
			case e, open := <-events:
				if !open {
					t.Fatalf("connection ended waiting for %s", what)
				}
				if ok(e) {
					return e
				}
			case <-time.After(10 * time.Second):
				t.Fatalf("no %s within 10 s", what)
			}
		}
	}
	in, err := (&wire.Interest{ID: 5, Mode: wire.InterestCurrentFuture,
		Options:  wire.InterestAggregate | wire.InterestRestricted | wire.InterestSubscribers,
		WireExpr: wire.WireExpr{Suffix: []byte("agg/**")}}).AppendBinary(nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := h.sendNet(in); err != nil {
		t.Fatal(err)
	}
	next("D_FINAL of interest 5", func(e declEvent) bool { return e.final && e.id == 5 })
	// marker declares a subscriber on key and waits for its declaration,
	// failing on any event about the aggregate (id aggID) on the way.
	var aggID uint32
	marker := func(key string) *Subscriber {
		t.Helper()
		sub, err := s.DeclareSubscriber(key, func(Sample) {})
		if err != nil {
			t.Fatal(err)
		}
		next(key, func(e declEvent) bool {
			if aggID != 0 && e.id == aggID {
				t.Fatalf("unexpected event on the aggregate before %q: %+v", key, e)
			}
			return e.key == key
		})
		return sub
	}
	a, err := s.DeclareSubscriber("agg/a", func(Sample) {})
	if err != nil {
		t.Fatal(err)
	}
	aggID = next("the aggregate's declaration", func(e declEvent) bool { return !e.undeclare && e.key == "agg/**" }).id
	b, err := s.DeclareSubscriber("agg/b/**", func(Sample) {})
	if err != nil {
		t.Fatal(err)
	}
	marker("m1")
	if err := a.Undeclare(); err != nil {
		t.Fatal(err)
	}
	marker("m2") // agg/b/** still intersects agg/**
	if err := b.Undeclare(); err != nil {
		t.Fatal(err)
	}
	next("the aggregate's withdrawal", func(e declEvent) bool { return e.undeclare && e.id == aggID })
	old := aggID
	aggID = 0
	if _, err := s.DeclareSubscriber("agg/c", func(Sample) {}); err != nil {
		t.Fatal(err)
	}
	aggID = next("the aggregate's declaration again", func(e declEvent) bool { return !e.undeclare && e.key == "agg/**" }).id
	if aggID == old {
		t.Errorf("the aggregate was declared again with its old id %d", old)
	}
	_ = h.conn.Close()
}
