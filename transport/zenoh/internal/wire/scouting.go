package wire

import (
	"encoding"
	"fmt"
	"math"
	"strings"
	"unicode/utf8"
)

// Scouting message ids. Scouting messages travel alone in UDP datagrams
// (multicast SCOUT, unicast HELLO answers), outside any session, so their
// ids overlap those of transport messages.
const (
	IDScout = 0x01
	IDHello = 0x02
)

// Scouting message flags.
const (
	// FlagHelloLocators (L) marks a HELLO carrying a locator list; without
	// it the receiver uses the datagram's source address.
	FlagHelloLocators = Flag1
	// scoutFlagZID (I) is bit 3 of a SCOUT's control byte: a Zenoh ID
	// follows.
	scoutFlagZID = 0x08
)

// MaxLocatorLen is the longest locator in a HELLO (a z8-bounded string).
const MaxLocatorLen = math.MaxUint8

// WhatAmIMatcher is the bitmap of roles a SCOUT asks for.
type WhatAmIMatcher uint8

// Bits of a WhatAmIMatcher.
const (
	MatchRouter WhatAmIMatcher = 0b001
	MatchPeer   WhatAmIMatcher = 0b010
	MatchClient WhatAmIMatcher = 0b100
	// MatchAll asks for every role.
	MatchAll = MatchRouter | MatchPeer | MatchClient
)

// Matches reports whether role w is one of the roles m asks for.
func (m WhatAmIMatcher) Matches(w WhatAmI) bool {
	return w <= Client && m&(1<<w) != 0
}

// String returns the roles of m joined by "|", e.g. "router|peer".
func (m WhatAmIMatcher) String() string {
	var parts []string
	for w := Router; w <= Client; w++ {
		if m.Matches(w) {
			parts = append(parts, w.String())
		}
	}
	if m&^MatchAll != 0 {
		parts = append(parts, fmt.Sprintf("%#x", uint8(m&^MatchAll)))
	}
	return strings.Join(parts, "|")
}

// ScoutingMessage is *Scout or *Hello.
type ScoutingMessage interface {
	encoding.BinaryAppender
	scoutingMessage()
}

// Scout is a SCOUT message: a request, usually multicast, that nodes of the
// roles in What answer with a HELLO.
type Scout struct {
	// Version is the protocol version, ProtoVersion for this package.
	Version uint8
	// What lists the roles asked for.
	What WhatAmIMatcher
	// ZID is the sender's Zenoh ID; a zero Len means absent (the
	// reference implementation does not send it).
	ZID ZenohID
	// Exts holds the extensions, unchanged.
	Exts []Extension
}

// Hello is a HELLO message: a node's answer to a SCOUT, giving its role,
// its Zenoh ID and the locators where it accepts links.
type Hello struct {
	// Version is the protocol version, ProtoVersion for this package.
	Version uint8
	// WhatAmI is the sender's role.
	WhatAmI WhatAmI
	// ZID is the sender's Zenoh ID.
	ZID ZenohID
	// Locators are the sender's locators, like "tcp/127.0.0.1:7447". The
	// L flag is written when the list is not empty.
	Locators []string
	// Exts holds the extensions, unchanged.
	Exts []Extension
}

func (*Scout) scoutingMessage() {}
func (*Hello) scoutingMessage() {}

// AppendBinary appends the SCOUT message to dst.
func (m *Scout) AppendBinary(dst []byte) ([]byte, error) {
	if m.What&^MatchAll != 0 {
		return dst, fmt.Errorf("%w: scout what %#x", ErrInvalid, uint8(m.What))
	}
	dst = append(dst, headerZ(IDScout, len(m.Exts)), m.Version)
	if m.ZID.Len == 0 {
		dst = append(dst, byte(m.What))
	} else {
		var err error
		if dst, err = m.ZID.appendNibbleID(dst, scoutFlagZID|byte(m.What)); err != nil {
			return dst, err
		}
	}
	return AppendExtensions(dst, m.Exts)
}

func (r *reader) scout(h byte, m *Scout) error {
	*m = Scout{Exts: m.Exts[:0]}
	var err error
	if m.Version, err = r.u8(); err != nil {
		return err
	}
	c, err := r.peek()
	if err != nil {
		return err
	}
	// Bits 3 (I), 0-2 (what) and 4-7 (ZID length) are used; the reference
	// implementation rejects nothing else, so neither do we.
	m.What = WhatAmIMatcher(c & 0x07)
	if c&scoutFlagZID != 0 {
		if m.ZID, _, err = r.nibbleID(); err != nil {
			return err
		}
	} else {
		r.off++
	}
	if h&FlagZ == 0 {
		return nil
	}
	return r.extChain(&m.Exts, false, noKnownExt)
}

// AppendBinary appends the HELLO message to dst.
func (m *Hello) AppendBinary(dst []byte) ([]byte, error) {
	if m.WhatAmI > Client {
		return dst, fmt.Errorf("%w: whatami %d", ErrInvalid, m.WhatAmI)
	}
	h := byte(IDHello)
	if len(m.Locators) > 0 {
		h |= FlagHelloLocators
	}
	dst = append(dst, headerZ(h, len(m.Exts)), m.Version)
	dst, err := m.ZID.appendNibbleID(dst, byte(m.WhatAmI))
	if err != nil {
		return dst, err
	}
	if len(m.Locators) > 0 {
		dst = AppendZint(dst, uint64(len(m.Locators)))
		for _, l := range m.Locators {
			if err := checkLocator(l); err != nil {
				return dst, err
			}
			dst = AppendZBytes(dst, []byte(l))
		}
	}
	return AppendExtensions(dst, m.Exts)
}

// checkLocator accepts a UTF-8 "proto/address" string of at most
// MaxLocatorLen bytes.
func checkLocator(l string) error {
	if len(l) > MaxLocatorLen {
		return fmt.Errorf("%w: locator of %d bytes > %d", ErrInvalid, len(l), MaxLocatorLen)
	}
	proto, addr, ok := strings.Cut(l, "/")
	if !ok || proto == "" || addr == "" || !utf8.ValidString(l) {
		return fmt.Errorf("%w: locator %q", ErrInvalid, l)
	}
	return nil
}

func (r *reader) hello(h byte, m *Hello) error {
	*m = Hello{Exts: m.Exts[:0], Locators: m.Locators[:0]}
	var err error
	if m.Version, m.ZID, m.WhatAmI, err = r.node(); err != nil {
		return err
	}
	if h&FlagHelloLocators != 0 {
		n, err := r.zint()
		if err != nil {
			return err
		}
		if n > uint64(r.lim.MaxLocators) {
			return fmt.Errorf("%w: %d locators > %d", ErrLimit, n, r.lim.MaxLocators)
		}
		// Every locator takes at least one byte: a count beyond the input
		// is truncated, and the allocation stays within the input's size.
		if n > uint64(r.remaining()) {
			return ErrTruncated
		}
		if cap(m.Locators) < int(n) {
			m.Locators = make([]string, 0, n)
		}
		for range n {
			b, err := r.lenBytes(MaxLocatorLen, r.lim.MaxPayload)
			if err != nil {
				return err
			}
			l := string(b)
			if err := checkLocator(l); err != nil {
				return err
			}
			m.Locators = append(m.Locators, l)
		}
	}
	if len(m.Locators) == 0 {
		// The L flag with an empty list encodes as no list.
		m.Locators = nil
	}
	if h&FlagZ == 0 {
		return nil
	}
	return r.extChain(&m.Exts, false, noKnownExt)
}

// DecodeScouting decodes the scouting message (SCOUT or HELLO) at the front
// of b, normally a whole UDP datagram, and returns it with the number of
// bytes consumed. Locators are copied; extension bodies alias b.
func DecodeScouting(b []byte, lim Limits) (ScoutingMessage, int, error) {
	r := reader{b: b, lim: lim.withDefaults()}
	h, err := r.u8()
	if err != nil {
		return nil, 0, err
	}
	var m ScoutingMessage
	switch HeaderID(h) {
	case IDScout:
		s := new(Scout)
		m, err = s, r.scout(h, s)
	case IDHello:
		hm := new(Hello)
		m, err = hm, r.hello(h, hm)
	default:
		err = fmt.Errorf("%w: scouting message %#02x", ErrUnknownMessage, h)
	}
	if err != nil {
		return nil, 0, err
	}
	return m, r.off, nil
}
