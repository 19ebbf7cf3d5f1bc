package rtps

import "iter"

// SNSet is a SequenceNumberSet: a base and up to 256 bits, bit i standing
// for Base+i (most significant bit of each word first on the wire).
type SNSet struct {
	Base    SequenceNumber
	NumBits uint32
	Bits    [8]uint32
}

// Set adds sn to the set, growing NumBits as needed. It reports false, and
// changes nothing, when sn is below Base or 256 or more above it.
func (s *SNSet) Set(sn SequenceNumber) bool {
	if sn < s.Base || uint64(sn)-uint64(s.Base) >= 256 {
		return false
	}
	i := uint32(sn - s.Base)
	s.Bits[i/32] |= 1 << (31 - i%32)
	if i >= s.NumBits {
		s.NumBits = i + 1
	}
	return true
}

// Has reports whether sn is in the set.
func (s *SNSet) Has(sn SequenceNumber) bool {
	if sn < s.Base || uint64(sn)-uint64(s.Base) >= uint64(min(s.NumBits, 256)) {
		return false
	}
	i := uint32(sn - s.Base)
	return s.Bits[i/32]&(1<<(31-i%32)) != 0
}

// All yields the members of the set in increasing order.
func (s *SNSet) All() iter.Seq[SequenceNumber] {
	return func(yield func(SequenceNumber) bool) {
		for i := range min(s.NumBits, 256) {
			if s.Bits[i/32]&(1<<(31-i%32)) != 0 && !yield(s.Base+SequenceNumber(i)) {
				return
			}
		}
	}
}

// words returns the number of 32-bit words on the wire.
func (s *SNSet) words() int { return int(min(s.NumBits, 256)+31) / 32 }

// FNSet is a FragmentNumberSet: like SNSet with a 32-bit base; fragment
// numbers start at 1.
type FNSet struct {
	Base    uint32
	NumBits uint32
	Bits    [8]uint32
}

// Set adds fragment n, growing NumBits as needed. It reports false, and
// changes nothing, when n is below Base or 256 or more above it.
func (s *FNSet) Set(n uint32) bool {
	if n < s.Base || n-s.Base >= 256 {
		return false
	}
	i := n - s.Base
	s.Bits[i/32] |= 1 << (31 - i%32)
	if i >= s.NumBits {
		s.NumBits = i + 1
	}
	return true
}

// Has reports whether fragment n is in the set.
func (s *FNSet) Has(n uint32) bool {
	if n < s.Base || n-s.Base >= min(s.NumBits, 256) {
		return false
	}
	i := n - s.Base
	return s.Bits[i/32]&(1<<(31-i%32)) != 0
}

// All yields the members of the set in increasing order.
func (s *FNSet) All() iter.Seq[uint32] {
	return func(yield func(uint32) bool) {
		for i := range min(s.NumBits, 256) {
			if s.Bits[i/32]&(1<<(31-i%32)) != 0 && !yield(s.Base+i) {
				return
			}
		}
	}
}

func (s *FNSet) words() int { return int(min(s.NumBits, 256)+31) / 32 }

// clearTail clears the bits past NumBits, which a sender may leave set.
func (s *SNSet) clearTail() {
	n := min(s.NumBits, 256)
	for i := n / 32; i < 8; i++ {
		if i == n/32 && n%32 != 0 {
			s.Bits[i] &= ^uint32(0) << (32 - n%32)
		} else {
			s.Bits[i] = 0
		}
	}
}

func (s *FNSet) clearTail() {
	n := min(s.NumBits, 256)
	for i := n / 32; i < 8; i++ {
		if i == n/32 && n%32 != 0 {
			s.Bits[i] &= ^uint32(0) << (32 - n%32)
		} else {
			s.Bits[i] = 0
		}
	}
}
