package dds

import (
	"testing"
	"time"
)

// TestKeyedTopic: keyed endpoints match keyed ones and are announced with
// the keyed entity kinds; a keyed writer and a keyless reader of one topic
// do not match. A sample written at a given time arrives with that source
// time, to the nanosecond.
func TestKeyedTopic(t *testing.T) {
	a, b := localhostPair(t)
	ctx := waitCtx(t)
	keyed := Topic{Name: "keyed", TypeName: "KeyedSeq", Keyed: true}
	got := make(chan Sample, 1)
	r, err := NewReaderFunc(b, keyed, QoS{}, func(s Sample) { got <- s })
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	w, err := NewWriter(a, keyed, QoS{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if g := w.GUID(); g[15] != 0x02 {
		t.Errorf("keyed writer kind %#x, want 0x02", g[15])
	}
	if g := r.GUID(); g[15] != 0x07 {
		t.Errorf("keyed reader kind %#x, want 0x07", g[15])
	}
	keyless, err := NewReader(b, Topic{Name: "keyed", TypeName: "KeyedSeq"}, QoS{})
	if err != nil {
		t.Fatal(err)
	}
	defer keyless.Close()
	if err := w.WaitMatched(ctx, 1); err != nil {
		t.Fatal(err)
	}
	ts := time.Unix(1700000000, 123456789)
	if err := w.WriteAt(ctx, cdrString("k"), ts); err != nil {
		t.Fatal(err)
	}
	select {
	case s := <-got:
		if !s.SourceTime.Equal(ts) {
			t.Errorf("source time %v, want %v", s.SourceTime, ts)
		}
	case <-ctx.Done():
		t.Fatal("no sample")
	}
	if n := w.Status().Matched; n != 1 {
		t.Errorf("keyed writer matched %d readers, want 1 (not the keyless one)", n)
	}
}
