package dds

import (
	"context"
	"sync"
)

// IncompatibleQoSStatus counts the remote endpoints on the same topic and
// type that were not matched because their QoS is incompatible.
type IncompatibleQoSStatus struct {
	// Count is the number of incompatible remote endpoints seen.
	Count int
	// LastPolicy names the policy of the last incompatibility, such as
	// "RELIABILITY" or "DURABILITY".
	LastPolicy string
	// LastRemote is the GUID of the last incompatible remote endpoint.
	LastRemote GUID
}

// MatchStatus is the matching state of an endpoint.
type MatchStatus struct {
	// Matched is the number of remote endpoints currently matched,
	// TotalMatched the number of matches since the endpoint was created
	// (an endpoint that goes and comes back counts twice).
	Matched      int
	TotalMatched int
	// Alive and NotAlive count, for a reader, the matched writers whose
	// liveliness is asserted, and those whose lease ran out since their
	// last assertion (see liveliness.go).
	Alive, NotAlive int
	// Incompatible counts the endpoints not matched because of QoS.
	Incompatible IncompatibleQoSStatus
}

// endpointStatus is the match state shared by writers and readers.
type endpointStatus struct {
	mu      sync.Mutex
	st      MatchStatus
	changed chan struct{} // closed and replaced on every change
	closed  bool
}

func newEndpointStatus() *endpointStatus {
	return &endpointStatus{changed: make(chan struct{})}
}

func (s *endpointStatus) notifyLocked() {
	close(s.changed)
	s.changed = make(chan struct{})
}

func (s *endpointStatus) setMatched(n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.st.Matched != n {
		if n > s.st.Matched {
			s.st.TotalMatched += n - s.st.Matched
		}
		s.st.Matched = n
		s.notifyLocked()
	}
}

func (s *endpointStatus) setLiveliness(alive, notAlive int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.st.Alive != alive || s.st.NotAlive != notAlive {
		s.st.Alive, s.st.NotAlive = alive, notAlive
		s.notifyLocked()
	}
}

func (s *endpointStatus) incompatible(remote GUID, policy string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.st.Incompatible.Count++
	s.st.Incompatible.LastPolicy = policy
	s.st.Incompatible.LastRemote = remote
	s.notifyLocked()
}

func (s *endpointStatus) close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.closed {
		s.closed = true
		s.notifyLocked()
	}
}

func (s *endpointStatus) get() MatchStatus {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.st
}

// waitFor waits until cond holds for the status, the endpoint closes or
// ctx ends.
func (s *endpointStatus) waitFor(ctx context.Context, cond func(MatchStatus) bool) error {
	for {
		s.mu.Lock()
		st, ch, closed := s.st, s.changed, s.closed
		s.mu.Unlock()
		if cond(st) {
			return nil
		}
		if closed {
			return ErrClosed
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return context.Cause(ctx)
		}
	}
}
