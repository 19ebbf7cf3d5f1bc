package rmwdds

import (
	"strings"

	"github.com/afor-go/afor/transport/dds"
)

// onDiscovery follows transport/dds's discovery events: participants
// (their enclaves, and their nodes' removal when they leave) and the
// remote endpoints SEDP announces, which make the graph's topics and
// services. The session's own endpoints are recorded when it creates
// them, with their node.
func (s *Session) onDiscovery(ev dds.DiscoveryEvent) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return
	}
	changed := false
	switch ev.Kind {
	case dds.ParticipantFound:
		s.remotes[ev.Participant.GUID] = ev.Participant.Vendor
		changed = s.cache.AddParticipant(ev.Participant.GUID, ev.Participant.UserData)
		if e, ok := s.early[ev.Participant.GUID]; ok {
			delete(s.early, ev.Participant.GUID)
			changed = s.cache.UpdateInfo(e.info) || changed
		}
	case dds.ParticipantLost:
		delete(s.remotes, ev.Participant.GUID)
		delete(s.early, ev.Participant.GUID)
		s.infoMu.Lock()
		delete(s.infoIn, ev.Participant.GUID)
		s.infoMu.Unlock()
		changed = s.cache.RemoveParticipant(ev.Participant.GUID)
	case dds.EndpointFound:
		e := ev.Endpoint
		if e.Local {
			return
		}
		s.trackRequestReaderLocked(e, true)
		changed = s.cache.AddEndpoint(Endpoint{
			GUID: e.GUID, Topic: e.Topic.Name, TypeName: e.Topic.TypeName,
			QoS: e.QoS, HistoryKnown: e.HistoryAnnounced, UserData: e.QoS.UserData,
		})
	case dds.EndpointLost:
		if ev.Endpoint.Local {
			return
		}
		s.trackRequestReaderLocked(ev.Endpoint, false)
		changed = s.cache.RemoveEndpoint(ev.Endpoint.GUID)
	}
	if changed {
		s.markDirtyLocked()
	}
}

// trackRequestReaderLocked records (or forgets) a remote reader of a
// service's requests with its vendor, for clients to pick the form of
// their requests. s.mu must be held.
func (s *Session) trackRequestReaderLocked(e dds.DiscoveredEndpoint, found bool) {
	if !e.Reader {
		return
	}
	if !found {
		for topic, m := range s.requestReaders {
			if _, ok := m[e.GUID]; ok {
				delete(m, e.GUID)
				if len(m) == 0 {
					delete(s.requestReaders, topic)
				}
			}
		}
		return
	}
	if !strings.HasPrefix(e.Topic.Name, "rq/") {
		return
	}
	m := s.requestReaders[e.Topic.Name]
	if m == nil {
		m = make(map[dds.GUID][2]byte)
		s.requestReaders[e.Topic.Name] = m
	}
	m[e.GUID] = e.Vendor
}

// requestForm returns the form a client's requests on topic take: the
// Cyclone header when every remote reader of the topic is Cyclone's, the
// sample identity otherwise (Fast DDS, other Go sessions, no reader yet).
func (s *Session) requestForm(topic string) Correlation {
	s.mu.Lock()
	defer s.mu.Unlock()
	m := s.requestReaders[topic]
	if len(m) == 0 {
		return CorrelationSampleIdentity
	}
	for _, v := range m {
		if CorrelationFor(v) != CorrelationHeader {
			return CorrelationSampleIdentity
		}
	}
	return CorrelationHeader
}
