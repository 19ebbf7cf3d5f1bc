package wire

import (
	"bytes"
	"errors"
	"reflect"
	"testing"
)

// linkStateGolden is a link-state list as the Rust codec lays it out: a
// router (psid 0) giving its ZID, role and locator, and naming one link
// to psid 1; then a peer (psid 1) with its ZID, role and locators.
var linkStateGolden = []byte{
	0x02,             // two entries
	0x07, 0x00, 0x05, // options Z|W|L, psid 0, sn 5
	0x02, 0x2e, 0x89, // ZID 892e, length-prefixed
	0x01,                                                                                                 // router
	0x01, 0x12, 't', 'c', 'p', '/', '1', '2', '7', '.', '0', '.', '0', '.', '1', ':', '7', '4', '4', '7', // one locator
	0x01, 0x01, // one link, to psid 1
	0x07, 0x01, 0x02, // options Z|W|L, psid 1, sn 2
	0x01, 0xc8, // ZID c8
	0x02,                                                                                                      // peer
	0x01, 0x13, 't', 'c', 'p', '/', '1', '2', '7', '.', '0', '.', '0', '.', '1', ':', '4', '6', '4', '6', '5', // one locator
	0x00, // no links
}

func TestLinkStatesGolden(t *testing.T) {
	got, err := DecodeLinkStates(linkStateGolden, Limits{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	r, _ := NewZenohID([]byte{0x2e, 0x89})
	p, _ := NewZenohID([]byte{0xc8})
	want := []LinkState{
		{PSID: 0, SN: 5, HasZID: true, ZID: r, HasWhatAmI: true, WhatAmI: Router,
			HasLocators: true, Locators: []string{"tcp/127.0.0.1:7447"}, Links: []uint64{1}},
		{PSID: 1, SN: 2, HasZID: true, ZID: p, HasWhatAmI: true, WhatAmI: Peer,
			HasLocators: true, Locators: []string{"tcp/127.0.0.1:46465"}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("decoded\n%+v\nwant\n%+v", got, want)
	}
	enc, err := AppendLinkStates(nil, want)
	if err != nil || !bytes.Equal(enc, linkStateGolden) {
		t.Fatalf("encoded % x (%v)\nwant    % x", enc, err, linkStateGolden)
	}
}

func TestLinkStatesRoundTrip(t *testing.T) {
	z, _ := NewZenohID([]byte{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16})
	in := []LinkState{
		{PSID: 300, SN: 1 << 40}, // psid only: refers to an earlier mapping
		{PSID: 2, SN: 7, HasZID: true, ZID: z, HasWhatAmI: true, WhatAmI: Client,
			HasLocators: true, Locators: []string{}, Links: []uint64{0, 1 << 33}, Weights: []uint16{0, 65535}, Gateway: true},
	}
	enc, err := AppendLinkStates(nil, in)
	if err != nil {
		t.Fatal(err)
	}
	out, err := DecodeLinkStates(enc, Limits{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(out, in) {
		t.Fatalf("round trip\n%+v\nwant\n%+v", out, in)
	}
}

func TestLinkStatesBadInput(t *testing.T) {
	for name, b := range map[string][]byte{
		"empty":           {},
		"truncated":       linkStateGolden[:len(linkStateGolden)-1],
		"trailing":        append(bytes.Clone(linkStateGolden), 0),
		"whatami":         {0x01, 0x02, 0x00, 0x01, 0x03, 0x00},
		"huge count":      {0xff, 0xff, 0x03},
		"count > input":   {0x10, 0x00, 0x00, 0x00, 0x00},
		"huge links":      {0x01, 0x00, 0x00, 0x00, 0xff, 0xff, 0x03},
		"bad locator":     {0x01, 0x04, 0x00, 0x00, 0x01, 0x03, 'x', 'y', 'z', 0x00},
		"zero-length zid": {0x01, 0x01, 0x00, 0x00, 0x00, 0x00},
		"weight overflow": {0x01, 0x08, 0x00, 0x00, 0x01, 0x00, 0x80, 0x80, 0x04},
	} {
		_, err := DecodeLinkStates(b, Limits{}, nil)
		if err == nil {
			t.Errorf("%s: decoded % x", name, b)
			continue
		}
		if !errors.Is(err, ErrTruncated) && !errors.Is(err, ErrInvalid) && !errors.Is(err, ErrLimit) && !errors.Is(err, ErrOverflow) {
			t.Errorf("%s: error %v wraps no sentinel", name, err)
		}
	}
}

func TestLinkStatesEncodeChecks(t *testing.T) {
	if _, err := AppendLinkStates(nil, []LinkState{{Links: []uint64{1}, Weights: []uint16{}}}); !errors.Is(err, ErrInvalid) {
		t.Errorf("weights/links mismatch: %v", err)
	}
	if _, err := AppendLinkStates(nil, []LinkState{{HasLocators: true, Locators: []string{"nope"}}}); !errors.Is(err, ErrInvalid) {
		t.Errorf("bad locator: %v", err)
	}
	if _, err := AppendLinkStates(nil, []LinkState{{HasWhatAmI: true, WhatAmI: 3}}); !errors.Is(err, ErrInvalid) {
		t.Errorf("bad whatami: %v", err)
	}
}

// TestLinkStatesCaptured decodes link-state lists that a Rust router (the
// eclipse-zenoh 1.10.2 Python package, configured as rmw_zenohd) sent a Go
// peer: first an empty list when the peer linked, then a Rust peer's
// locator when that peer linked.
func TestLinkStatesCaptured(t *testing.T) {
	if ls, err := DecodeLinkStates([]byte{0x00}, Limits{}, nil); err != nil || len(ls) != 0 {
		t.Fatalf("empty list: %+v, %v", ls, err)
	}
	b := []byte("\x01\x07\x02\x02\x01\xab\x02\x01\x13tcp/127.0.0.1:37893\x00")
	ls, err := DecodeLinkStates(b, Limits{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	z, _ := NewZenohID([]byte{0xab})
	want := []LinkState{{PSID: 2, SN: 2, HasZID: true, ZID: z, HasWhatAmI: true, WhatAmI: Peer,
		HasLocators: true, Locators: []string{"tcp/127.0.0.1:37893"}}}
	if !reflect.DeepEqual(ls, want) {
		t.Fatalf("decoded %+v, want %+v", ls, want)
	}
	if enc, err := AppendLinkStates(nil, ls); err != nil || !bytes.Equal(enc, b) {
		t.Fatalf("re-encoded % x (%v), want % x", enc, err, b)
	}
}
