package zenoh

import (
	"fmt"
	"sync"
	"time"
)

// Queries from remote nodes hold the session's memory until they are
// finished: the request's key, parameters, payload and attachment, the
// queries handed to local queryables and, for a query forwarded to other
// nodes, its state and timer. Those a link has in progress are bounded per
// link (Limits.MaxPendingQueries and MaxPendingQueryBytes) and for the
// session (MaxSessionPendingQueries and MaxSessionPendingQueryBytes). A
// request over its link's bounds is answered at once with RESPONSE_FINAL
// (no reply) and counted. At the session's bounds, the link holding the
// most pending queries pays: if it holds more than the newcomer's link,
// its oldest query is finished to make room; otherwise the new one is
// refused. A query ends with the link it came from, and a forwarded
// query's timeout is clamped to MaxQueryTimeout.

// queryOverhead is what a pending query holds besides the bytes it
// carries: its state, maps entries and timer (about 1 KB, measured).
const queryOverhead = 1024

// Names of the query limits in Stats.ByLimit.
const (
	LimitPendingQueries           = "MaxPendingQueries"
	LimitPendingQueryBytes        = "MaxPendingQueryBytes"
	LimitSessionPendingQueries    = "MaxSessionPendingQueries"
	LimitSessionPendingQueryBytes = "MaxSessionPendingQueryBytes"
	LimitQueryTimeout             = "MaxQueryTimeout"
)

// pendingReq is a request received on a link that the session has not
// finished (a field of its linkSink).
type pendingReq struct {
	src   *link
	bytes int
	start time.Time
	// end finishes the request early (its link went, or the session
	// needed room); set once the request is under way.
	end  requestEnder
	gone bool
}

// requestEnder finishes a request early: *inRequest (the queries handed to
// local queryables) or *getState (a forwarded query).
type requestEnder interface{ endRequest() }

// endRequest finishes the queries of r.
func (r *inRequest) endRequest() {
	for _, q := range r.qs {
		q.Finish()
	}
}

// endRequest finishes g.
func (g *getState) endRequest() { g.finish() }

// pendingQueries counts the pending requests of the whole session; each
// link keeps its own (link.pend), under the same lock.
type pendingQueries struct {
	mu    sync.Mutex
	count int
	bytes int
	links map[*link]struct{} // the links with pending requests
}

// linkPending is the part of a link's state about its pending requests
// (guarded by Session.pend.mu).
type linkPending struct {
	reqs  map[*pendingReq]struct{}
	bytes int
	peak  int // the most reqs held since reqs was made
}

// admitRequest admits pr, a request of size bytes from src, making room at
// the session's bounds if src holds fewer queries than the link holding
// the most. It returns the limit's name when the request is refused.
func (s *Session) admitRequest(pr *pendingReq, src *link, size int) string {
	lm := &s.cfg.Limits
	size += queryOverhead
	pq := &s.pend
	pq.mu.Lock()
	lp := &src.pend
	switch {
	case len(lp.reqs) >= lm.MaxPendingQueries:
		pq.mu.Unlock()
		return LimitPendingQueries
	case lp.bytes+size > lm.MaxPendingQueryBytes:
		pq.mu.Unlock()
		return LimitPendingQueryBytes
	}
	var victims []*pendingReq
	for pq.count >= lm.MaxSessionPendingQueries || pq.bytes+size > lm.MaxSessionPendingQueryBytes {
		v := s.oldestOfBusiestLocked(src)
		if v == nil {
			limit := LimitSessionPendingQueries
			if pq.count < lm.MaxSessionPendingQueries {
				limit = LimitSessionPendingQueryBytes
			}
			pq.mu.Unlock()
			s.endRequests(victims)
			return limit
		}
		victims = append(victims, v)
		s.dropRequestLocked(v)
	}
	*pr = pendingReq{src: src, bytes: size, start: time.Now()}
	if lp.reqs == nil {
		lp.reqs = make(map[*pendingReq]struct{})
	}
	if pq.links == nil {
		pq.links = make(map[*link]struct{})
	}
	lp.reqs[pr] = struct{}{}
	lp.peak = max(lp.peak, len(lp.reqs))
	pq.links[src] = struct{}{}
	lp.bytes += size
	pq.count++
	pq.bytes += size
	pq.mu.Unlock()
	s.endRequests(victims)
	return ""
}

// oldestOfBusiestLocked returns the oldest pending request under way of
// the link holding the most, if that link holds more than src, or nil
// (s.pend.mu held).
func (s *Session) oldestOfBusiestLocked(src *link) *pendingReq {
	var busiest *link
	for l := range s.pend.links {
		if busiest == nil || len(l.pend.reqs) > len(busiest.pend.reqs) {
			busiest = l
		}
	}
	if busiest == nil || len(busiest.pend.reqs) <= len(src.pend.reqs)+1 {
		return nil
	}
	var old *pendingReq
	for pr := range busiest.pend.reqs {
		if pr.end != nil && (old == nil || pr.start.Before(old.start)) {
			old = pr
		}
	}
	return old
}

// dropRequestLocked stops counting pr (s.pend.mu held).
func (s *Session) dropRequestLocked(pr *pendingReq) {
	if pr.gone {
		return
	}
	pr.gone = true
	lp := &pr.src.pend
	delete(lp.reqs, pr)
	lp.bytes -= pr.bytes
	if len(lp.reqs) == 0 {
		if lp.peak > 64 {
			lp.reqs, lp.peak = nil, 0 // a map does not shrink: a link's burst is not kept
		}
		delete(s.pend.links, pr.src)
	}
	s.pend.count--
	s.pend.bytes -= pr.bytes
}

// endRequests finishes requests dropped to make room.
func (s *Session) endRequests(prs []*pendingReq) {
	for _, pr := range prs {
		if n, log := s.countLimit(LimitSessionPendingQueries); log {
			pr.src.log.Warn("zenoh: finishing the oldest query of the link holding the most, to make room for another link's",
				"link", pr.src.String(), "limit", LimitSessionPendingQueries, "count", n)
		}
		pr.end.endRequest()
	}
}

// releaseRequest stops counting pr once it is finished. It is
// idempotent; nil is ignored.
func (s *Session) releaseRequest(pr *pendingReq) {
	if pr == nil {
		return
	}
	s.pend.mu.Lock()
	s.dropRequestLocked(pr)
	s.pend.mu.Unlock()
}

// startRequest records how pr ends early; if pr was dropped meanwhile
// (its link went), it ends it at once.
func (s *Session) startRequest(pr *pendingReq, end requestEnder) {
	s.pend.mu.Lock()
	gone := pr.gone
	if !gone {
		pr.end = end
	}
	s.pend.mu.Unlock()
	if gone {
		end.endRequest()
	}
}

// endLinkRequests finishes the requests of a link that went.
func (s *Session) endLinkRequests(l *link) {
	s.pend.mu.Lock()
	var ends []requestEnder
	for pr := range l.pend.reqs {
		if pr.end != nil {
			ends = append(ends, pr.end)
		}
		s.dropRequestLocked(pr)
	}
	s.pend.mu.Unlock()
	for _, end := range ends {
		end.endRequest()
	}
}

// refuseRequest answers a request refused over limit with RESPONSE_FINAL,
// logging and counting it.
func (s *Session) refuseRequest(sink *linkSink, limit string) {
	if n, log := s.countLimit(limit); log {
		sink.l.log.Warn("zenoh: refusing a query over a limit", "link", sink.l.String(), "limit", limit,
			"max", s.queryLimit(limit), "count", n)
	}
	sink.final()
}

// queryLimit is the value of the query limit named limit.
func (s *Session) queryLimit(limit string) string {
	lm := &s.cfg.Limits
	switch limit {
	case LimitPendingQueries:
		return fmt.Sprint(lm.MaxPendingQueries)
	case LimitPendingQueryBytes:
		return fmt.Sprint(lm.MaxPendingQueryBytes)
	case LimitSessionPendingQueries:
		return fmt.Sprint(lm.MaxSessionPendingQueries)
	case LimitSessionPendingQueryBytes:
		return fmt.Sprint(lm.MaxSessionPendingQueryBytes)
	}
	return ""
}

// clampQueryTimeout applies MaxQueryTimeout to the timeout of a query the
// session forwards for src, counting a clamp.
func (s *Session) clampQueryTimeout(src *link, d time.Duration) time.Duration {
	max := s.cfg.Limits.MaxQueryTimeout
	if d <= max {
		return d
	}
	if n, log := s.countLimit(LimitQueryTimeout); log {
		src.log.Warn("zenoh: clamping the timeout of a forwarded query", "link", src.String(), "timeout", d,
			"limit", LimitQueryTimeout, "max", max, "count", n)
	}
	return max
}
