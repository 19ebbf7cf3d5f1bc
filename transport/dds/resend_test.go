package dds

import (
	"sync"
	"testing"
	"time"

	"github.com/afor-go/afor/transport/dds/internal/rtps"
)

// holeReader plays, in front of a Go reader, a reader that keeps only
// reorderMax samples beyond a hole, as Cyclone DDS does: it loses the
// first datagram of at least holeMin samples, then drops every datagram with only
// samples more than reorderMax beyond the first sample missing (one with
// some nearer it takes whole). It counts
// what it dropped that way, and the datagrams and samples that came again.
type holeReader struct {
	rtps.NopHandler
	mu       sync.Mutex
	rcv      rtps.Receiver
	sns      []rtps.SequenceNumber // the user samples of the datagram parsed
	got      map[rtps.SequenceNumber]bool
	next     rtps.SequenceNumber // the first sample missing
	top      rtps.SequenceNumber // the highest sample seen
	dgrams   int
	holed    bool
	overrun  int // datagrams dropped beyond the hole
	resentDg int // datagrams that carried samples seen before
	resent   int // samples in those
}

const (
	holeMin    = 16
	reorderMax = 128
)

func (h *holeReader) Data(_ *rtps.Context, d *rtps.Data) {
	if !d.WriterID.IsBuiltin() {
		h.sns = append(h.sns, d.SN)
	}
}

// drop is the participant's dropIn.
func (h *holeReader) drop(b []byte) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.sns = h.sns[:0]
	_ = h.rcv.Parse(b, h)
	if len(h.sns) == 0 {
		return false
	}
	h.dgrams++
	again := 0
	for _, sn := range h.sns {
		if sn <= h.top {
			again++
		}
		h.top = max(h.top, sn)
	}
	if again > 0 {
		h.resentDg++
		h.resent += again
	}
	if !h.holed && len(h.sns) >= holeMin {
		h.holed = true
		return true
	}
	useful := false
	for _, sn := range h.sns {
		useful = useful || sn <= h.next+reorderMax && !h.got[sn]
	}
	if !useful && h.sns[0] > h.next {
		h.overrun++
		return true
	}
	for _, sn := range h.sns {
		h.got[sn] = true
	}
	for h.got[h.next] {
		h.next++
	}
	return false
}

// A writer streaming small samples to a reader that lost a datagram of
// them resends what the reader asks for packed, many samples a datagram,
// and holds new samples back from it until the repair is over: sent
// meanwhile, they land beyond the hole, and a reader that keeps few there
// drops them and asks for them again; and a sample it resent it does not
// resend for the ACKNACKs that crossed it. Before, each resend went out
// alone, the writer kept streaming into the hole, and every sample was
// sent twice.
func TestRepairPacksResendsAndHoldsNewSamples(t *testing.T) {
	const n = 20000
	d := nextDomain()
	h := &holeReader{got: map[rtps.SequenceNumber]bool{}, next: 1}
	a := newTestParticipant(t, Config{DomainID: d, Range: RangeLocalhost, directGap: time.Hour})
	b := newTestParticipant(t, Config{DomainID: d, Range: RangeLocalhost, dropIn: h.drop})
	ctx := waitCtx(t)
	streamKeepAll(t, ctx, a, b, cdrString("sixteen bytes"), n)
	h.mu.Lock()
	defer h.mu.Unlock()
	t.Logf("%d datagrams, %d dropped beyond the hole, %d samples resent in %d datagrams", h.dgrams, h.overrun, h.resent, h.resentDg)
	if h.resentDg == 0 {
		t.Fatal("nothing was resent: the hole was not made")
	}
	if per := h.resent / h.resentDg; per < 8 {
		t.Errorf("%d samples resent in %d datagrams: %d a datagram, want them packed", h.resent, h.resentDg, per)
	}
	if h.resent > n/4 {
		t.Errorf("%d of %d samples resent: a repair sent them again and again", h.resent, n)
	}
	if h.overrun > 50 {
		t.Errorf("%d datagrams of new samples sent beyond the hole while it was repaired", h.overrun)
	}
}
