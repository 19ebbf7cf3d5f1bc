package dds

import "testing"

// TestReaderFirstSampleNeedsNoHeartbeat: a reliable reader delivers a
// writer's sample 1 at once, before any HEARTBEAT (nothing can precede
// it), but holds a first sample above 1 until a HEARTBEAT says where the
// writer's history starts.
func TestReaderFirstSampleNeedsNoHeartbeat(t *testing.T) {
	lim, _ := Limits{}.resolve(DefaultMaxSampleSize)
	r := &Reader{p: &Participant{cfg: &resolved{lim: lim}}, qos: QoS{Reliability: Reliable, MaxSamples: 8}}
	wp := &writerProxy{reliable: true}
	r.accept(wp, &inSample{sn: 1})
	r.accept(wp, &inSample{sn: 2})
	if len(r.out) != 2 || r.out[0].sn != 1 || r.out[1].sn != 2 || wp.next != 3 {
		t.Fatalf("samples 1, 2 with no HEARTBEAT: delivered %d, next %d", len(r.out), wp.next)
	}
	r.out = r.out[:0]
	late := &writerProxy{reliable: true}
	r.accept(late, &inSample{sn: 5})
	if len(r.out) != 0 || late.next != 0 {
		t.Fatalf("first sample 5 with no HEARTBEAT: delivered %d, next %d; want it held", len(r.out), late.next)
	}
	r.writeOff(late, 4) // what a HEARTBEAT with first 4 does
	if len(r.out) != 0 || late.next != 4 {
		t.Fatalf("after write-off to 4: delivered %d, next %d", len(r.out), late.next)
	}
	r.accept(late, &inSample{sn: 4})
	if len(r.out) != 2 || r.out[0].sn != 4 || r.out[1].sn != 5 {
		t.Fatalf("after sample 4: delivered %d", len(r.out))
	}
}
