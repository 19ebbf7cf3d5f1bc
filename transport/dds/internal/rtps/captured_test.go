package rtps

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/hex"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// capHandler decodes every discovery body and disposal it sees.
type capHandler struct {
	t                        testing.TB
	vendor                   VendorID
	data, frags, hbs, acks   int
	gaps, nackFrags, hbFrags int
	spdp, sedp, disposals    int
	failures                 []string
}

func (h *capHandler) fail(what string, err error) {
	h.failures = append(h.failures, what+": "+err.Error())
}

func (h *capHandler) Data(c *Context, d *Data) {
	h.data++
	disp, ok, err := ParseDisposal(d, c.SourceVendor)
	if err != nil {
		h.fail("disposal", err)
	}
	if ok {
		h.disposals++
		if disp.GUID.Prefix == (GuidPrefix{}) {
			h.fail("disposal", ErrMalformed)
		}
		return
	}
	switch d.WriterID {
	case EntitySPDPWriter:
		h.spdp++
		p, err := ParseParticipantData(d.Payload, c.SourceVendor)
		if err != nil {
			h.fail("SPDP", err)
		} else if os.Getenv("RTPS_CAPTURE_LOG") != "" {
			h.t.Logf("SPDP from %v: %v domain %d meta %v/%v default %v/%v lease %v set %#x props %q",
				c.SourceVendor, p.GUID, p.DomainID, p.MetatrafficUnicast, p.MetatrafficMulticast,
				p.DefaultUnicast, p.DefaultMulticast, p.LeaseDuration, p.BuiltinEndpoints, p.Properties)
		}
	case EntitySEDPPubWriter, EntitySEDPSubWriter:
		h.sedp++
		e, err := ParseEndpointData(d.Payload, c.SourceVendor)
		if os.Getenv("RTPS_CAPTURE_LOG") != "" && err == nil {
			h.t.Logf("SEDP from %v: %s %s %v reliability %v durability %v history %v/%d (sent %v) locators %v repr %v",
				c.SourceVendor, e.TopicName, e.TypeName, e.EndpointGUID, e.QoS.Reliability, e.QoS.Durability,
				e.QoS.History, e.QoS.Depth, e.QoS.HistoryPresent, e.UnicastLocators, e.DataRepresentation)
		}
		if err != nil {
			h.fail("SEDP", err)
		} else if e.TopicName == "" || e.TypeName == "" {
			h.fail("SEDP "+e.EndpointGUID.String(), ErrMalformed)
		}
	}
}
func (h *capHandler) DataFrag(*Context, *DataFrag)           { h.frags++ }
func (h *capHandler) Heartbeat(*Context, *Heartbeat)         { h.hbs++ }
func (h *capHandler) AckNack(*Context, *AckNack)             { h.acks++ }
func (h *capHandler) NackFrag(*Context, *NackFrag)           { h.nackFrags++ }
func (h *capHandler) HeartbeatFrag(*Context, *HeartbeatFrag) { h.hbFrags++ }
func (h *capHandler) Gap(*Context, *Gap)                     { h.gaps++ }

// TestCapturedTraffic parses datagrams captured on loopback in a private
// network namespace between Cyclone DDS 11 (cyclonedds-python), Cyclone
// DDS 0.10 (ddsperf ping/pong) and rclpy on Fast DDS 3.2, domain 42: every
// datagram must parse, and every SPDP and SEDP body decode. The checked-in
// sample is testdata/captured.hex.gz (gzipped, one datagram in hex per
// line, # comments); RTPS_CAPTURE_HEX names a larger plain file to check
// instead.
func TestCapturedTraffic(t *testing.T) {
	in, closeIn := captureReader(t)
	defer closeIn()
	h := capHandler{t: t}
	var r Receiver
	vendors := map[VendorID]int{}
	sc := bufio.NewScanner(in)
	sc.Buffer(nil, 1<<20)
	n := 0
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		msg, err := hex.DecodeString(line)
		if err != nil {
			t.Fatalf("line %d: %v", n+1, err)
		}
		n++
		hd, err := ParseHeader(msg)
		if err != nil {
			t.Errorf("datagram %d: %v", n, err)
			continue
		}
		vendors[hd.Vendor]++
		if err := r.Parse(msg, &h); err != nil {
			t.Errorf("datagram %d from %v: %v\n%x", n, hd.Vendor, err, msg)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	for _, f := range h.failures {
		t.Error(f)
	}
	t.Logf("%d datagrams (by vendor %v): %d DATA (%d SPDP, %d SEDP, %d disposals), %d DATA_FRAG, %d HEARTBEAT, %d ACKNACK, %d GAP, %d NACK_FRAG, %d HEARTBEAT_FRAG",
		n, vendors, h.data, h.spdp, h.sedp, h.disposals, h.frags, h.hbs, h.acks, h.gaps, h.nackFrags, h.hbFrags)
	if h.spdp == 0 || h.sedp == 0 || h.frags == 0 || h.acks == 0 || h.hbs == 0 {
		t.Errorf("the capture lacks a kind of traffic")
	}
}

// captureReader opens RTPS_CAPTURE_HEX or the gzipped checked-in sample.
func captureReader(tb testing.TB) (io.Reader, func()) {
	if path := os.Getenv("RTPS_CAPTURE_HEX"); path != "" {
		f, err := os.Open(path)
		if err != nil {
			tb.Fatal(err)
		}
		return f, func() { f.Close() }
	}
	f, err := os.Open(filepath.Join("testdata", "captured.hex.gz"))
	if err != nil {
		tb.Fatal(err)
	}
	zr, err := gzip.NewReader(f)
	if err != nil {
		tb.Fatal(err)
	}
	return zr, func() { f.Close() }
}

// capturedDatagrams returns the checked-in captured datagrams of at most
// max bytes, for fuzz seeds.
func capturedDatagrams(tb testing.TB, max int) [][]byte {
	in, closeIn := captureReader(tb)
	defer closeIn()
	var out [][]byte
	sc := bufio.NewScanner(in)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") || len(line) > 2*max {
			continue
		}
		b, err := hex.DecodeString(line)
		if err != nil {
			tb.Fatal(err)
		}
		out = append(out, b)
	}
	return out
}

// discoverySink collects the SPDP and SEDP payloads of parsed datagrams.
type discoverySink struct {
	NopHandler
	spdp, sedp [][]byte
}

func (s *discoverySink) Data(_ *Context, d *Data) {
	if d.Key || d.Payload == nil {
		return
	}
	switch d.WriterID {
	case EntitySPDPWriter:
		s.spdp = append(s.spdp, bytes.Clone(d.Payload))
	case EntitySEDPPubWriter, EntitySEDPSubWriter:
		s.sedp = append(s.sedp, bytes.Clone(d.Payload))
	}
}

// capturedDiscovery returns the SPDP and SEDP bodies of the capture.
func capturedDiscovery(tb testing.TB) (spdp, sedp [][]byte) {
	var s discoverySink
	for _, m := range capturedDatagrams(tb, 1<<16) {
		_ = Parse(m, &s)
	}
	return s.spdp, s.sedp
}
