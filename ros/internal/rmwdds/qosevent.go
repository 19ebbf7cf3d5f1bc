package rmwdds

import (
	"context"
	"sync"

	"github.com/afor-go/afor/ros/internal/rmw"
	"github.com/afor-go/afor/transport/dds"
)

// qosWatch reports an endpoint's incompatible QoS events (rmw.QoSEventSource)
// from a goroutine of its own, started by the first OnIncompatibleQoS and
// ended when the endpoint closes (its WaitStatus then fails).
// The endpoint's Close waits for it, so the callback must not close the
// endpoint.
type qosWatch struct {
	once sync.Once
	done chan struct{} // closed when the goroutine ends; nil if never started
}

// start runs the goroutine watching the status that wait waits on.
func (q *qosWatch) start(wait func(context.Context, func(dds.MatchStatus) bool) error, f func(rmw.IncompatibleQoS)) {
	q.once.Do(func() {
		q.done = make(chan struct{})
		go func() {
			defer close(q.done)
			seen := 0
			for {
				var st dds.MatchStatus
				if err := wait(context.Background(), func(s dds.MatchStatus) bool {
					st = s
					return s.Incompatible.Count > seen
				}); err != nil {
					return // closed
				}
				n := st.Incompatible.Count
				f(rmw.IncompatibleQoS{TotalCount: n, TotalCountChange: n - seen, LastPolicy: st.Incompatible.LastPolicy})
				seen = n
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
func (p *publisher) OnIncompatibleQoS(f func(rmw.IncompatibleQoS)) { p.qw.start(p.w.WaitStatus, f) }

// OnIncompatibleQoS calls f for every writer on the topic whose offered
// QoS does not satisfy the reader's request.
func (s *subscription) OnIncompatibleQoS(f func(rmw.IncompatibleQoS)) { s.qw.start(s.r.WaitStatus, f) }

var (
	_ rmw.QoSEventSource = (*publisher)(nil)
	_ rmw.QoSEventSource = (*subscription)(nil)
)
