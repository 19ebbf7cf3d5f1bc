package rmwdds

import (
	"bytes"
	"errors"
	"testing"

	"github.com/afor-go/afor/ros/internal/rmw"
	"github.com/afor-go/afor/transport/dds"
)

func TestCorrelationFor(t *testing.T) {
	cases := map[[2]byte]Correlation{
		VendorFastDDS: CorrelationSampleIdentity,
		VendorCyclone: CorrelationHeader,
		{0x01, 0x01}:  CorrelationSampleIdentity, // RTI Connext
		{0x01, 0x12}:  CorrelationSampleIdentity,
		{}:            CorrelationSampleIdentity,
	}
	for v, want := range cases {
		if got := CorrelationFor(v); got != want {
			t.Errorf("CorrelationFor(%x) = %v, want %v", v, got, want)
		}
	}
}

// The inline QoS of a request and its reply between rclpy processes on
// Fast DDS [cap ns_srv_act] (dds-rtps.md §5.5): the related sample
// identity names the client's reply reader, SN unknown on the request and
// the request's SN on the reply.
func TestGoldenSampleIdentity(t *testing.T) {
	replyReader := guid(t, "010f7f01 f523a307 00000000 00001304")
	reqValue := unhex(t, "010f7f01 f523a307 00000000 00001304 ffffffff 00000000")
	repValue := unhex(t, "010f7f01 f523a307 00000000 00001304 00000000 01000000")

	req := RequestIdentity(replyReader)
	if got := AppendSampleIdentity(nil, req, true); !bytes.Equal(got, reqValue) {
		t.Errorf("request identity %x, want %x", got, reqValue)
	}
	if req.SN != SNUnknown {
		t.Errorf("request SN %d", req.SN)
	}
	// The server's take: the request's writer was the client's request
	// writer with SN 1; the related GUID replaces the writer GUID.
	requestWriter := guid(t, "010f7f01 f523a307 00000000 00001203")
	related, err := ParseSampleIdentity(reqValue, true)
	if err != nil || related != req {
		t.Fatalf("ParseSampleIdentity = %+v, %v", related, err)
	}
	id := RequestID(requestWriter, 1, related, true)
	if id != (SampleIdentity{GUID: replyReader, SN: 1}) {
		t.Fatalf("RequestID = %+v", id)
	}
	rep, wait := ReplyIdentity(id)
	if !wait {
		t.Error("a reply to a reader GUID must wait for the match")
	}
	if got := AppendSampleIdentity(nil, rep, true); !bytes.Equal(got, repValue) {
		t.Errorf("reply identity %x, want %x", got, repValue)
	}
	c := ClientIdentity{RequestWriter: requestWriter, ReplyReader: replyReader}
	if sn, ok := c.Accept(rep); !ok || sn != 1 {
		t.Errorf("client Accept = %d, %v", sn, ok)
	}
}

// A Fast DDS server answers a request without inline QoS (a Cyclone or
// DDS-RPC-less writer) with the writer's GUID [cap svc].
func TestRequestWithoutInlineQoS(t *testing.T) {
	writer := guid(t, "01104d95 00000000 00000000 00000403")
	id := RequestID(writer, 1, SampleIdentity{}, false)
	if id != (SampleIdentity{GUID: writer, SN: 1}) {
		t.Errorf("RequestID = %+v", id)
	}
	if _, wait := ReplyIdentity(id); wait {
		t.Error("a reply to a writer GUID goes out at once")
	}
	// A zero related GUID (GUID_UNKNOWN) does not replace the writer.
	if id := RequestID(writer, 7, SampleIdentity{SN: SNUnknown}, true); id != (SampleIdentity{GUID: writer, SN: 7}) {
		t.Errorf("RequestID with unknown related = %+v", id)
	}
	c := ClientIdentity{RequestWriter: writer, ReplyReader: guid(t, "01104d95 00000000 00000000 00000504")}
	if sn, ok := c.Accept(id); !ok || sn != 1 {
		t.Errorf("Accept by request writer = %d, %v", sn, ok)
	}
	if _, ok := c.Accept(SampleIdentity{GUID: guid(t, "01104d95 00000000 00000000 00000604"), SN: 1}); ok {
		t.Error("accepted a reply for another client")
	}
}

func TestSampleIdentityBigEndian(t *testing.T) {
	si := SampleIdentity{GUID: dds.GUID{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 0, 0, 1, 3}, SN: 5<<32 | 7}
	b := AppendSampleIdentity(nil, si, false)
	if !bytes.Equal(b[16:], []byte{0, 0, 0, 5, 0, 0, 0, 7}) {
		t.Errorf("big endian SN %x", b[16:])
	}
	for _, le := range []bool{false, true} {
		for _, sn := range []int64{1, SNUnknown, 1 << 40, -1} {
			si.SN = sn
			back, err := ParseSampleIdentity(append(AppendSampleIdentity(nil, si, le), 0, 0, 0, 0), le)
			if err != nil || back != si {
				t.Errorf("round trip %+v (le %v) = %+v, %v", si, le, back, err)
			}
		}
	}
	if _, err := ParseSampleIdentity(make([]byte, 23), true); !errors.Is(err, ErrMalformed) {
		t.Errorf("23 bytes: %v", err)
	}
}

func TestCycloneHeader(t *testing.T) {
	// SetBool true in CDR_LE, padded as Fast DDS pads it.
	payload := unhex(t, "00010000 01000000")
	h := CycloneHeader{ClientID: 0x0102030405060708, Seq: 3}
	out, err := AppendCyclone(nil, payload, h)
	if err != nil {
		t.Fatal(err)
	}
	want := unhex(t, "00010000 08070605 04030201 03000000 00000000 01000000")
	if !bytes.Equal(out, want) {
		t.Fatalf("AppendCyclone = %x, want %x", out, want)
	}
	gotH, rest, err := CutCyclone(out)
	if err != nil || gotH != h || !bytes.Equal(rest, payload) {
		t.Fatalf("CutCyclone = %+v %x, %v", gotH, rest, err)
	}
	// Big endian bodies carry a big endian header.
	be := unhex(t, "00000000 01000000")
	out, err = AppendCyclone(nil, be, CycloneHeader{ClientID: 1, Seq: -2})
	if err != nil {
		t.Fatal(err)
	}
	if want := unhex(t, "00000000 00000000 00000001 ffffffff fffffffe 01000000"); !bytes.Equal(out, want) {
		t.Fatalf("big endian = %x, want %x", out, want)
	}
	if gotH, rest, err := CutCyclone(out); err != nil || gotH != (CycloneHeader{ClientID: 1, Seq: -2}) || !bytes.Equal(rest, be) {
		t.Fatalf("CutCyclone big endian = %+v %x, %v", gotH, rest, err)
	}
	for _, bad := range [][]byte{nil, {0, 1}, {1, 1, 0, 0}, {0, 0x0c, 0, 0}, unhex(t, "00010000 00000000 00000000 000000")} {
		if _, _, err := CutCyclone(bytes.Clone(bad)); !errors.Is(err, ErrMalformed) {
			t.Errorf("CutCyclone(%x): %v", bad, err)
		}
		if len(bad) < 4 || bad[0] != 0 || bad[1] > 0x0b {
			if _, err := AppendCyclone(nil, bad, h); !errors.Is(err, ErrMalformed) {
				t.Errorf("AppendCyclone(%x): %v", bad, err)
			}
		}
	}
	// The requester's GID, as rmw_cyclonedds reports it.
	want2 := rmw.GID{8, 7, 6, 5, 4, 3, 2, 1}
	if g := h.GID(); g != want2 {
		t.Errorf("GID = %x", g)
	}
	w1, w2 := guid(t, "01100000 00000000 00000001 00000103"), guid(t, "01100000 00000000 00000001 00000203")
	if CycloneClientID(w1) == CycloneClientID(w2) || CycloneClientID(w1) != CycloneClientID(w1) {
		t.Error("CycloneClientID does not tell two writers apart")
	}
}

func TestGID(t *testing.T) {
	g := guid(t, "010f7f01 c54f9185 00000000 00000303")
	gid := GIDOf(g)
	if !bytes.Equal(gid[:], g[:]) || GUIDOf(gid) != g {
		t.Errorf("GIDOf = %x", gid)
	}
	if isReader(g) || !isReader(guid(t, "010f7f01 c54f9185 00000000 00000304")) ||
		!isReader(guid(t, "010f7f01 c54f9185 00000000 000004c7")) || isReader(guid(t, "010f7f01 c54f9185 00000000 000003c2")) {
		t.Error("isReader")
	}
}
