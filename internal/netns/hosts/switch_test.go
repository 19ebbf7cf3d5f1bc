//go:build linux

package hosts

import "testing"

// FuzzMacs: a frame of any bytes is either too short or has its two
// addresses read off where Ethernet puts them, after the virtio header.
func FuzzMacs(f *testing.F) {
	f.Add([]byte{})
	f.Add(make([]byte, vnetHdrLen+13))
	f.Add(append(make([]byte, vnetHdrLen), 1, 0, 0x5e, 0, 0, 1, 2, 0, 0, 0, 0, 9, 8, 0))
	f.Fuzz(func(t *testing.T, b []byte) {
		dst, src, ok := macs(b)
		if ok != (len(b) >= vnetHdrLen+14) {
			t.Fatalf("ok %v for %d bytes", ok, len(b))
		}
		if ok && (string(dst[:]) != string(b[vnetHdrLen:vnetHdrLen+6]) || string(src[:]) != string(b[vnetHdrLen+6:vnetHdrLen+12])) {
			t.Fatalf("addresses %x %x of %x", dst, src, b)
		}
	})
}

// TestPipeOrder: without reordering a pipe keeps the order of the frames
// it delays, with jitter too; its counts add up.
func TestPipeOrder(t *testing.T) {
	got := make(chan byte, 100)
	p := newPipe(1, func(b []byte) error { got <- b[0]; return nil })
	defer p.close()
	p.set(Faults{Delay: 2e6, Jitter: 5e6})
	for i := range 50 {
		p.push([]byte{byte(i)})
	}
	for i := range 50 {
		if b := <-got; int(b) != i {
			t.Fatalf("frame %d came %dth", b, i)
		}
	}
	if st := p.stats(); st.Frames != 50 || st.Delivered != 50 {
		t.Fatalf("stats %+v", st)
	}
}
