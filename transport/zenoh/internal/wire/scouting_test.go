package wire

import (
	"bytes"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// scoutingGolden lists scouting datagrams laid out by hand from the
// reference codec (commons/zenoh-codec/src/scouting/{scout,hello}.rs) and
// the messages they decode to. Every one re-encodes byte for byte.
func scoutingGolden(t testing.TB) []struct {
	name  string
	bytes []byte
	want  ScoutingMessage
} {
	zid := testZID(t)
	one, err := NewZenohID([]byte{0x2a})
	if err != nil {
		t.Fatal(err)
	}
	return []struct {
		name  string
		bytes []byte
		want  ScoutingMessage
	}{
		{
			// What the reference runtime multicasts from a peer: no ZID,
			// asking for routers and peers.
			name:  "scout router|peer",
			bytes: hx(t, "01 09 03"),
			want:  &Scout{Version: 9, What: MatchRouter | MatchPeer},
		},
		{
			name:  "scout all with zid",
			bytes: hx(t, "01 09 ff", "ZID"), // (16-1)<<4 | I | 0b111
			want:  &Scout{Version: 9, What: MatchAll, ZID: zid},
		},
		{
			name:  "scout nothing",
			bytes: hx(t, "01 09 00"),
			want:  &Scout{Version: 9},
		},
		{
			name:  "scout with extension",
			bytes: hx(t, "81 09 02 21 05"),
			want:  &Scout{Version: 9, What: MatchPeer, Exts: []Extension{{ID: 1, Encoding: ExtZ64, Value: 5}}},
		},
		{
			// A peer's answer: L flag, whatami peer, one locator.
			name:  "hello peer tcp",
			bytes: hx(t, "22 09 f1", "ZID", "01 12", `"tcp/127.0.0.1:7447"`),
			want:  &Hello{Version: 9, WhatAmI: Peer, ZID: zid, Locators: []string{"tcp/127.0.0.1:7447"}},
		},
		{
			name: "hello router two locators",
			bytes: hx(t, "22 09 f0", "ZID", "02 12", `"tcp/127.0.0.1:7447"`,
				"14", `"udp/[::1]:7447#iface"`),
			want: &Hello{Version: 9, WhatAmI: Router, ZID: zid,
				Locators: []string{"tcp/127.0.0.1:7447", "udp/[::1]:7447#iface"}},
		},
		{
			// No L flag: the receiver uses the datagram's source address.
			name:  "hello client short zid no locators",
			bytes: hx(t, "02 09 02 2a"),
			want:  &Hello{Version: 9, WhatAmI: Client, ZID: one},
		},
	}
}

func TestScoutingGolden(t *testing.T) {
	for _, tc := range scoutingGolden(t) {
		t.Run(tc.name, func(t *testing.T) {
			got, n, err := DecodeScouting(tc.bytes, Limits{})
			if err != nil {
				t.Fatalf("decode % x: %v", tc.bytes, err)
			}
			if n != len(tc.bytes) {
				t.Fatalf("consumed %d of %d bytes", n, len(tc.bytes))
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("got  %#v\nwant %#v", got, tc.want)
			}
			enc, err := tc.want.AppendBinary(nil)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(enc, tc.bytes) {
				t.Fatalf("encoding\n got % x\nwant % x", enc, tc.bytes)
			}
		})
	}
}

func (g *gen) scouting() ScoutingMessage {
	if g.bool() {
		m := &Scout{Version: ProtoVersion, What: WhatAmIMatcher(g.r.IntN(8)), Exts: g.exts()}
		if g.bool() {
			m.ZID = g.zid()
		}
		return m
	}
	m := &Hello{Version: uint8(g.r.UintN(256)), WhatAmI: WhatAmI(g.r.IntN(3)), ZID: g.zid(), Exts: g.exts()}
	for range g.r.IntN(4) {
		m.Locators = append(m.Locators, fmt.Sprintf("tcp/10.0.%d.%d:%d", g.r.IntN(256), g.r.IntN(256), g.u16()))
	}
	return m
}

func TestRoundTripScouting(t *testing.T) {
	g := newGen(7)
	for i := range roundTrips {
		roundTrip(t, i, g.scouting(), DecodeScouting)
	}
}

func TestScoutingTruncated(t *testing.T) {
	for _, tc := range scoutingGolden(t) {
		for k := range len(tc.bytes) {
			if _, _, err := DecodeScouting(tc.bytes[:k], Limits{}); !errors.Is(err, ErrTruncated) {
				t.Errorf("%s cut at %d: %v, want ErrTruncated", tc.name, k, err)
			}
		}
	}
}

func TestScoutingInvalid(t *testing.T) {
	zid := testZID(t)
	cases := []struct {
		name string
		in   []byte
		want error
	}{
		{"unknown id", hx(t, "03 09 00"), ErrUnknownMessage},
		{"transport id", hx(t, "05 09 00"), ErrUnknownMessage},
		{"hello whatami 3", hx(t, "02 09 03 2a"), ErrInvalid},
		{"locator without proto", hx(t, "22 09 01 2a 01 03", `"abc"`), ErrInvalid},
		{"locator not utf-8", hx(t, "22 09 01 2a 01 05 74 63 70 2f ff"), ErrInvalid},
		{"locator over 255", hx(t, "22 09 01 2a 01 80 02"), ErrOverflow},
		{"count beyond input", hx(t, "22 09 01 2a 05 01", `"a"`), ErrTruncated},
		{"too many locators", hx(t, "22 09 01 2a 41"), ErrLimit},
		{"huge count", hx(t, "22 09 01 2a ff ff ff ff ff ff ff ff ff"), ErrLimit},
		{"mandatory extension", hx(t, "81 09 00 11"), ErrMandatoryExtension},
	}
	for _, tc := range cases {
		if _, _, err := DecodeScouting(tc.in, Limits{}); !errors.Is(err, tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, err, tc.want)
		}
	}
	if _, _, err := DecodeScouting(hx(t, "22 09 01 2a 02 03", `"a/b"`, "03", `"c/d"`), Limits{MaxLocators: 1}); !errors.Is(err, ErrLimit) {
		t.Errorf("MaxLocators 1: %v, want ErrLimit", err)
	}
	bad := []ScoutingMessage{
		&Scout{What: 8},
		&Hello{WhatAmI: 3, ZID: zid},
		&Hello{WhatAmI: Peer},
		&Hello{WhatAmI: Peer, ZID: zid, Locators: []string{"no-slash"}},
		&Hello{WhatAmI: Peer, ZID: zid, Locators: []string{"tcp/" + strings.Repeat("x", 252)}},
	}
	for _, m := range bad {
		if _, err := m.AppendBinary(nil); !errors.Is(err, ErrInvalid) {
			t.Errorf("AppendBinary(%#v): %v, want ErrInvalid", m, err)
		}
	}
}

func TestWhatAmIMatcher(t *testing.T) {
	m := MatchRouter | MatchPeer
	if !m.Matches(Router) || !m.Matches(Peer) || m.Matches(Client) || m.Matches(WhatAmI(3)) {
		t.Errorf("matcher %v", m)
	}
	if got := m.String(); got != "router|peer" {
		t.Errorf("String() = %q", got)
	}
}

func FuzzDecodeScouting(f *testing.F) {
	for _, tc := range scoutingGolden(f) {
		f.Add(tc.bytes)
	}
	g := newGen(43)
	for range 20 {
		b, err := g.scouting().AppendBinary(nil)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte{0x22, 0x09, 0x01, 0x2a, 0xff, 0xff, 0xff, 0xff, 0x0f})
	f.Fuzz(func(t *testing.T, b []byte) {
		m, n, err := DecodeScouting(b, Limits{})
		if err != nil {
			checkErr(t, err)
			return
		}
		if n > len(b) {
			t.Fatalf("consumed %d of %d bytes", n, len(b))
		}
		checkDecoded(t, m, DecodeScouting)
	})
}
