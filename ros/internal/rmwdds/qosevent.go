package rmwdds

import (
	"context"
	"sync"

	"github.com/afor-go/afor/ros/internal/rmw"
	"github.com/afor-go/afor/transport/dds"
)

// qosWatch reports an endpoint's incompatible QoS events
// (rmw.QoSEventSource) and its status changes (rmw.StatusSource) from a
// goroutine of its own, started by the first OnIncompatibleQoS or OnStatus
// and ended when the endpoint closes (its WaitStatus then fails). The
// endpoint's Close waits for it, so the callbacks must not close the
// endpoint.
type qosWatch struct {
	mu           sync.Mutex
	incompatible func(rmw.IncompatibleQoS)
	status       func(rmw.EndpointStatus)
	once         sync.Once
	done         chan struct{} // closed when the goroutine ends; nil if never started
}

// endpointStatus is the rmw view of a DDS match status.
func endpointStatus(s dds.MatchStatus) rmw.EndpointStatus {
	return rmw.EndpointStatus{Matched: s.Matched, TotalMatched: s.TotalMatched, Alive: s.Alive, NotAlive: s.NotAlive}
}

// start runs the goroutine watching the status that wait waits on.
func (q *qosWatch) start(wait func(context.Context, func(dds.MatchStatus) bool) error) {
	q.once.Do(func() {
		q.done = make(chan struct{})
		go func() {
			defer close(q.done)
			seen := 0
			var last rmw.EndpointStatus
			first := true
			for {
				var st dds.MatchStatus
				if err := wait(context.Background(), func(s dds.MatchStatus) bool {
					st = s
					q.mu.Lock()
					want := (q.incompatible != nil && s.Incompatible.Count > seen) ||
						(q.status != nil && (first || endpointStatus(s) != last))
					q.mu.Unlock()
					return want
				}); err != nil {
					return // closed
				}
				q.mu.Lock()
				inc, stf := q.incompatible, q.status
				q.mu.Unlock()
				if n := st.Incompatible.Count; inc != nil && n > seen {
					inc(rmw.IncompatibleQoS{TotalCount: n, TotalCountChange: n - seen, LastPolicy: st.Incompatible.LastPolicy})
					seen = n
				}
				if es := endpointStatus(st); stf != nil && (first || es != last) {
					stf(es)
					last, first = es, false
				}
			}
		}()
	})
}

// wait waits for the goroutine to end, once the endpoint is closed.
func (q *qosWatch) wait() {
	q.once.Do(func() {}) // no start after this
	if q.done != nil {
		<-q.done
	}
}

// OnIncompatibleQoS calls f for every reader on the topic whose requested
// QoS the writer cannot offer.
func (p *publisher) OnIncompatibleQoS(f func(rmw.IncompatibleQoS)) {
	p.qw.mu.Lock()
	p.qw.incompatible = f
	p.qw.mu.Unlock()
	p.qw.start(p.w.WaitStatus)
}

// OnIncompatibleQoS calls f for every writer on the topic whose offered
// QoS does not satisfy the reader's request.
func (s *subscription) OnIncompatibleQoS(f func(rmw.IncompatibleQoS)) {
	s.qw.mu.Lock()
	s.qw.incompatible = f
	s.qw.mu.Unlock()
	s.qw.start(s.r.WaitStatus)
}

// OnStatus calls f with the writer's matched readers, now and on every
// change.
func (p *publisher) OnStatus(f func(rmw.EndpointStatus)) {
	p.qw.mu.Lock()
	p.qw.status = f
	p.qw.mu.Unlock()
	p.qw.start(p.w.WaitStatus)
}

// OnStatus calls f with the reader's matched writers and their
// liveliness, now and on every change.
func (s *subscription) OnStatus(f func(rmw.EndpointStatus)) {
	s.qw.mu.Lock()
	s.qw.status = f
	s.qw.mu.Unlock()
	s.qw.start(s.r.WaitStatus)
}

var (
	_ rmw.QoSEventSource = (*publisher)(nil)
	_ rmw.QoSEventSource = (*subscription)(nil)
	_ rmw.StatusSource   = (*subscription)(nil)
	_ rmw.StatusSource   = (*publisher)(nil)
)
