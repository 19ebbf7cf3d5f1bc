package wire

import (
	"fmt"
	"math"
)

// OAMLinkState is the id of the network OAM message that carries gossip:
// an ExtZBuf body holding a list of link states.
const OAMLinkState = 0x0001

// Bounds of a decoded link-state list, far above what a Zenoh system of
// peers gossips about (one entry per node, one link per neighbour).
const (
	// MaxLinkStates bounds the entries of one link-state list.
	MaxLinkStates = 1024
	// MaxLinkStateLinks bounds the links of one entry.
	MaxLinkStateLinks = 1024
)

// Option bits of a link state, the zint that starts each entry.
const (
	lsZID      = 1 << 0 // the entry names its node's ZID
	lsWhatAmI  = 1 << 1 // and its role
	lsLocators = 1 << 2 // and its locators
	lsWeights  = 1 << 3 // each link has a weight
	lsGateway  = 1 << 4 // the node is a gateway (regions)
)

// LinkState is one node's entry in a gossip link-state list. The sender
// numbers the nodes it knows with psids; an entry that omits its ZID
// refers to a node named in an earlier entry with the same psid, on the
// same link.
type LinkState struct {
	// PSID is the sender's number for the node.
	PSID uint64
	// SN grows each time the node's state changes.
	SN uint64
	// HasZID tells whether ZID is present.
	HasZID bool
	// ZID is the node's Zenoh ID.
	ZID ZenohID
	// HasWhatAmI tells whether WhatAmI is present (a receiver assumes
	// Router when it is not).
	HasWhatAmI bool
	// WhatAmI is the node's role.
	WhatAmI WhatAmI
	// HasLocators tells whether Locators is present (it may be present and
	// empty).
	HasLocators bool
	// Locators are the endpoints the node can be dialled on.
	Locators []string
	// Links are the psids of the node's neighbours.
	Links []uint64
	// Weights, when not nil, has one weight per link.
	Weights []uint16
	// Gateway marks a gateway node.
	Gateway bool
}

// whatAmIBit maps a role to the one-bit form used in link states.
func whatAmIBit(w WhatAmI) (byte, error) {
	if w > Client {
		return 0, fmt.Errorf("%w: whatami %d", ErrInvalid, w)
	}
	return 1 << w, nil
}

// AppendLinkStates appends a link-state list, the body of an OAMLinkState
// network OAM, to dst.
func AppendLinkStates(dst []byte, states []LinkState) ([]byte, error) {
	if len(states) > MaxLinkStates {
		return dst, fmt.Errorf("%w: %d link states > %d", ErrInvalid, len(states), MaxLinkStates)
	}
	dst = AppendZint(dst, uint64(len(states)))
	for i := range states {
		var err error
		if dst, err = states[i].appendTo(dst); err != nil {
			return dst, err
		}
	}
	return dst, nil
}

func (s *LinkState) appendTo(dst []byte) ([]byte, error) {
	if len(s.Links) > MaxLinkStateLinks {
		return dst, fmt.Errorf("%w: %d links > %d", ErrInvalid, len(s.Links), MaxLinkStateLinks)
	}
	if s.Weights != nil && len(s.Weights) != len(s.Links) {
		return dst, fmt.Errorf("%w: %d weights for %d links", ErrInvalid, len(s.Weights), len(s.Links))
	}
	var opts uint64
	if s.HasZID {
		opts |= lsZID
	}
	if s.HasWhatAmI {
		opts |= lsWhatAmI
	}
	if s.HasLocators {
		opts |= lsLocators
	}
	if s.Weights != nil {
		opts |= lsWeights
	}
	if s.Gateway {
		opts |= lsGateway
	}
	dst = AppendZint(dst, opts)
	dst = AppendZint(dst, s.PSID)
	dst = AppendZint(dst, s.SN)
	var err error
	if s.HasZID {
		if dst, err = s.ZID.appendLenPrefixed(dst); err != nil {
			return dst, err
		}
	}
	if s.HasWhatAmI {
		b, err := whatAmIBit(s.WhatAmI)
		if err != nil {
			return dst, err
		}
		dst = append(dst, b)
	}
	if s.HasLocators {
		if len(s.Locators) > DefaultMaxLocators {
			return dst, fmt.Errorf("%w: %d locators > %d", ErrInvalid, len(s.Locators), DefaultMaxLocators)
		}
		dst = AppendZint(dst, uint64(len(s.Locators)))
		for _, l := range s.Locators {
			if err := checkLocator(l); err != nil {
				return dst, err
			}
			dst = AppendZBytes(dst, []byte(l))
		}
	}
	dst = AppendZint(dst, uint64(len(s.Links)))
	for _, l := range s.Links {
		dst = AppendZint(dst, l)
	}
	for _, w := range s.Weights {
		dst = AppendZint(dst, uint64(w))
	}
	return dst, nil
}

// DecodeLinkStates decodes a whole link-state list (the body of an
// OAMLinkState network OAM), appending its entries to dst[:0] so that a
// caller may reuse the slice. Locators are copied; nothing aliases b.
// Unknown option bits are ignored, as the reference implementation does.
func DecodeLinkStates(b []byte, lim Limits, dst []LinkState) ([]LinkState, error) {
	r := reader{b: b, lim: lim.withDefaults()}
	dst = dst[:0]
	n, err := r.zint()
	if err != nil {
		return dst, err
	}
	if n > MaxLinkStates {
		return dst, fmt.Errorf("%w: %d link states > %d", ErrLimit, n, MaxLinkStates)
	}
	// An entry takes at least four bytes (options, psid, sn, links).
	if n*4 > uint64(r.remaining()) {
		return dst, ErrTruncated
	}
	for range n {
		var s LinkState
		if err := r.linkState(&s); err != nil {
			return dst, err
		}
		dst = append(dst, s)
	}
	if r.remaining() != 0 {
		return dst, fmt.Errorf("%w: %d bytes after the link states", ErrInvalid, r.remaining())
	}
	return dst, nil
}

func (r *reader) linkState(s *LinkState) error {
	opts, err := r.zint()
	if err != nil {
		return err
	}
	if s.PSID, err = r.zint(); err != nil {
		return err
	}
	if s.SN, err = r.zint(); err != nil {
		return err
	}
	if opts&lsZID != 0 {
		s.HasZID = true
		if s.ZID, err = r.zenohIDLenPrefixed(); err != nil {
			return err
		}
	}
	if opts&lsWhatAmI != 0 {
		c, err := r.u8()
		if err != nil {
			return err
		}
		switch c {
		case 1:
			s.WhatAmI = Router
		case 2:
			s.WhatAmI = Peer
		case 4:
			s.WhatAmI = Client
		default:
			return fmt.Errorf("%w: link state whatami %#x", ErrInvalid, c)
		}
		s.HasWhatAmI = true
	}
	if opts&lsLocators != 0 {
		s.HasLocators = true
		n, err := r.zint()
		if err != nil {
			return err
		}
		if n > uint64(r.lim.MaxLocators) {
			return fmt.Errorf("%w: %d locators > %d", ErrLimit, n, r.lim.MaxLocators)
		}
		if n > uint64(r.remaining()) {
			return ErrTruncated
		}
		s.Locators = make([]string, 0, n)
		for range n {
			b, err := r.lenBytes(MaxLocatorLen, r.lim.MaxPayload)
			if err != nil {
				return err
			}
			l := string(b)
			if err := checkLocator(l); err != nil {
				return err
			}
			s.Locators = append(s.Locators, l)
		}
	}
	n, err := r.zint()
	if err != nil {
		return err
	}
	if n > MaxLinkStateLinks {
		return fmt.Errorf("%w: %d links > %d", ErrLimit, n, MaxLinkStateLinks)
	}
	// Every link (and every weight) takes at least one byte.
	if n > uint64(r.remaining()) {
		return ErrTruncated
	}
	if n > 0 {
		s.Links = make([]uint64, n)
		for i := range s.Links {
			if s.Links[i], err = r.zint(); err != nil {
				return err
			}
		}
	}
	if opts&lsWeights != 0 {
		if n > uint64(r.remaining()) {
			return ErrTruncated
		}
		s.Weights = make([]uint16, n)
		for i := range s.Weights {
			w, err := r.zintMax(math.MaxUint16)
			if err != nil {
				return err
			}
			s.Weights[i] = uint16(w)
		}
	}
	s.Gateway = opts&lsGateway != 0
	return nil
}
