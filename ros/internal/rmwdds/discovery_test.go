package rmwdds

import (
	"testing"

	"github.com/afor-go/afor/transport/dds"
)

func TestRequestFormByVendor(t *testing.T) {
	s := &Session{requestReaders: make(map[string]map[dds.GUID][2]byte)}
	topic := "rq/set_flagRequest"
	reader := func(b byte, vendor [2]byte) dds.DiscoveredEndpoint {
		g := dds.GUID{0: b, 15: 0x04}
		return dds.DiscoveredEndpoint{GUID: g, Reader: true, Topic: dds.Topic{Name: topic}, Vendor: vendor}
	}
	if f := s.requestForm(topic); f != CorrelationSampleIdentity {
		t.Errorf("no server: %v", f)
	}
	cyc := reader(1, VendorCyclone)
	s.trackRequestReaderLocked(cyc, true)
	if f := s.requestForm(topic); f != CorrelationHeader {
		t.Errorf("Cyclone server: %v", f)
	}
	fast := reader(2, VendorFastDDS)
	s.trackRequestReaderLocked(fast, true)
	if f := s.requestForm(topic); f != CorrelationSampleIdentity {
		t.Errorf("Cyclone and Fast DDS servers: %v", f)
	}
	s.trackRequestReaderLocked(fast, false)
	if f := s.requestForm(topic); f != CorrelationHeader {
		t.Errorf("Fast DDS server gone: %v", f)
	}
	s.trackRequestReaderLocked(cyc, false)
	if len(s.requestReaders) != 0 {
		t.Errorf("readers left: %v", s.requestReaders)
	}
	// Readers of other topics, and writers, are not tracked.
	s.trackRequestReaderLocked(dds.DiscoveredEndpoint{Reader: true, Topic: dds.Topic{Name: "rt/chatter"}}, true)
	s.trackRequestReaderLocked(dds.DiscoveredEndpoint{Topic: dds.Topic{Name: topic}}, true)
	if len(s.requestReaders) != 0 {
		t.Errorf("tracked %v", s.requestReaders)
	}
}
