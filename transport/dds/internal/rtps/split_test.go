package rtps

import (
	"bytes"
	"errors"
	"testing"
)

// A DATA_FRAG built by DataFragSplit and sent as its three parts is the
// message DataFrag builds, for every payload length modulo 4, with a
// submessage after it; one too large is left out as DataFrag leaves it.
func TestDataFragSplitMatchesDataFrag(t *testing.T) {
	hdr := Header{Version: ProtocolVersion24, Vendor: VendorAfor, Prefix: GuidPrefix{1, 2, 3}}
	hb := &Heartbeat{ReaderID: EntityID{0, 0, 1, 4}, WriterID: EntityID{0, 0, 1, 3}, First: 1, Last: 7, Count: 2}
	for n := 1000; n < 1004; n++ {
		payload := bytes.Repeat([]byte{0xab}, n)
		d := &DataFrag{
			ReaderID: EntityID{0, 0, 1, 4}, WriterID: EntityID{0, 0, 1, 3}, SN: 7,
			FragStart: 3, FragsInSubmsg: 1, FragSize: 1004, SampleSize: 5000, Payload: payload,
		}
		var whole, split Builder
		whole.Reset(hdr)
		whole.InfoDst(GuidPrefix{9})
		whole.DataFrag(d)
		whole.Heartbeat(hb)
		split.Reset(hdr)
		split.InfoDst(GuidPrefix{9})
		at := split.DataFragSplit(d)
		split.Heartbeat(hb)
		if at < 0 || split.Err() != nil {
			t.Fatalf("%d bytes: DataFragSplit left it out: %v", n, split.Err())
		}
		got := append(append(append([]byte(nil), split.Bytes()[:at]...), payload...), split.Bytes()[at:]...)
		if !bytes.Equal(got, whole.Bytes()) {
			t.Fatalf("%d bytes: the split message differs from DataFrag's", n)
		}
	}
	var b Builder
	b.Reset(hdr)
	if at := b.DataFragSplit(&DataFrag{Payload: make([]byte, 70000)}); at != -1 || !errors.Is(b.Err(), ErrTooLarge) || b.Len() != HeaderSize {
		t.Fatalf("70000-byte fragment: at %d, err %v, length %d: want it left out", at, b.Err(), b.Len())
	}
}
