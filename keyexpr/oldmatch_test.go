package keyexpr

// This file keeps the matcher of before issue 17 (a memoised search over
// every pair of suffixes, quadratic in time and memory on long inputs) as
// the oracle of the differential fuzz targets: both must always agree.

import "strings"

// oldIntersects reports whether at least one key is matched by both a and b.
// Both must be valid canonical key expressions (check them once with
// [Validate] or hold them as [KeyExpr]); on other strings the answer is
// unspecified, though it never panics. It does not allocate.
//
// The answers are those of Zenoh 1.x: equal expressions oldIntersect, a
// oldVerbatim chunk ("@...") only meets an equal chunk, "*" meets any other
// non-oldVerbatim chunk, "**" meets any run of non-oldVerbatim chunks, and two
// chunks with "$*" meet when some string matches both.
//
// Unlike a plain backtracking matcher, its cost stays polynomial on hostile
// expressions such as "**/a/**/a/**/a/**/b" against long keys. It does not
// allocate for expressions of up to 30 chunks whose "$*" chunks are up to
// 44 bytes long (larger ones use a small heap buffer).
func oldIntersects(a, b string) bool {
	if a == b {
		return true
	}
	if strings.IndexByte(a, '*') < 0 && strings.IndexByte(b, '*') < 0 {
		return false // two different keys
	}
	// In a valid expression '$' only appears in "$*": without it, chunks
	// meet only when equal or when one is "*".
	sub := strings.IndexByte(a, '$') >= 0 || strings.IndexByte(b, '$') >= 0
	return oldIntersect(a, b, sub)
}

// oldCut splits a key expression into its first chunk and the rest. Chunks
// are short, so a plain loop beats strings.IndexByte here.
func oldCut(s string) (chunk, rest string) {
	for i := 0; i < len(s); i++ {
		if s[i] == '/' {
			return s[:i], s[i+1:]
		}
	}
	return s, ""
}

// oldVerbatim reports whether chunk c is oldVerbatim (starts with '@').
func oldVerbatim(c string) bool { return c != "" && c[0] == '@' }

// oldHasVerbatim reports whether any chunk of s is oldVerbatim.
func oldHasVerbatim(s string) bool {
	if oldVerbatim(s) {
		return true
	}
	return strings.Contains(s, "/@")
}

// oldIntersect walks both expressions chunk by chunk. At the first "**" it
// hands over to the memoized search of [oldFailSet.oldIntersect].
func oldIntersect(a, b string, sub bool) bool {
	for a != "" && b != "" {
		ca, ra := oldCut(a)
		cb, rb := oldCut(b)
		if ca == "**" || cb == "**" {
			var small [16]uint64
			na, nb := oldCountChunks(a), oldCountChunks(b)
			f := oldNewFailSet(small[:], na, nb)
			return f.oldIntersect(a, b, na, nb, sub)
		}
		if !oldChunkIntersects(ca, cb, sub) {
			return false
		}
		a, b = ra, rb
	}
	return (a == "" || a == "**") && (b == "" || b == "**")
}

// oldFailSet records sub-problems known to fail, so that a search that branches
// (on "**", or on "$*" inside a chunk) visits each sub-problem once and stays
// polynomial: without it "**/a/**/a/**/a/**/a/**/a/**/b" against a key of 40
// chunks takes seconds. A sub-problem is a pair of suffixes, named by their
// sizes (in chunks, or in bytes) i and j.
type oldFailSet struct {
	cols int
	bits []uint64
}

// oldNewFailSet returns a set for i in [0, rows] and j in [0, cols], using small
// as storage when it is large enough (so that the common case does not
// allocate).
func oldNewFailSet(small []uint64, rows, cols int) oldFailSet {
	n := ((rows+1)*(cols+1) + 63) / 64
	if n <= len(small) {
		return oldFailSet{cols: cols + 1, bits: small[:n]}
	}
	return oldFailSet{cols: cols + 1, bits: make([]uint64, n)}
}

func (f *oldFailSet) has(i, j int) bool {
	k := i*f.cols + j
	return f.bits[k>>6]&(1<<(k&63)) != 0
}

func (f *oldFailSet) add(i, j int) {
	k := i*f.cols + j
	f.bits[k>>6] |= 1 << (k & 63)
}

// oldCountChunks returns the number of chunks of s (0 for "").
func oldCountChunks(s string) int {
	if s == "" {
		return 0
	}
	return strings.Count(s, "/") + 1
}

// oldIntersect is the branching search: na and nb are the chunk counts of a and
// b. A "**" on either side branches between matching nothing and absorbing
// the other side's (non-oldVerbatim) chunk.
func (f *oldFailSet) oldIntersect(a, b string, na, nb int, sub bool) bool {
	if f.has(na, nb) {
		return false
	}
	i, j := na, nb
	for a != "" && b != "" {
		ca, ra := oldCut(a)
		cb, rb := oldCut(b)
		switch {
		case ca == "**":
			if ra == "" {
				return !oldHasVerbatim(b)
			}
			if (!oldVerbatim(cb) && f.oldIntersect(a, rb, na, nb-1, sub)) || f.oldIntersect(ra, b, na-1, nb, sub) {
				return true
			}
			f.add(i, j)
			return false
		case cb == "**":
			if rb == "" {
				return !oldHasVerbatim(a)
			}
			if (!oldVerbatim(ca) && f.oldIntersect(ra, b, na-1, nb, sub)) || f.oldIntersect(a, rb, na, nb-1, sub) {
				return true
			}
			f.add(i, j)
			return false
		case !oldChunkIntersects(ca, cb, sub):
			f.add(i, j)
			return false
		}
		a, b = ra, rb
		na, nb = na-1, nb-1
	}
	if (a == "" || a == "**") && (b == "" || b == "**") {
		return true
	}
	f.add(i, j)
	return false
}

// oldChunkIntersects reports whether two chunks, neither "**", share a match.
func oldChunkIntersects(a, b string, sub bool) bool {
	switch {
	case a == b:
		return true
	case oldVerbatim(a) || oldVerbatim(b):
		return false
	case a == "*" || b == "*":
		return true
	case !sub:
		return false
	}
	var small [32]uint64
	f := oldNewFailSet(small[:], len(a), len(b))
	return f.oldSubIntersects(a, b)
}

// oldSubIntersects reports whether two chunk patterns made of literal bytes and
// "$*" (any substring) match a common string. Sub-problems are named by the
// byte lengths of the suffixes.
func (f *oldFailSet) oldSubIntersects(a, b string) bool {
	if f.has(len(a), len(b)) {
		return false
	}
	i, j := len(a), len(b)
	for a != "" && b != "" {
		aw, bw := strings.HasPrefix(a, "$*"), strings.HasPrefix(b, "$*")
		switch {
		case aw && bw:
			if len(a) == 2 || len(b) == 2 {
				return true
			}
			// One of the two stars matches the shorter string; drop it.
			if f.oldSubIntersects(a[2:], b) || f.oldSubIntersects(a, b[2:]) {
				return true
			}
			f.add(i, j)
			return false
		case aw:
			if len(a) == 2 || f.oldSubIntersects(a[2:], b) {
				return true
			}
			b = b[1:] // the star absorbs one more byte
		case bw:
			if len(b) == 2 || f.oldSubIntersects(a, b[2:]) {
				return true
			}
			a = a[1:]
		case a[0] == b[0]:
			a, b = a[1:], b[1:]
		default:
			f.add(i, j)
			return false
		}
	}
	if (a == "" || a == "$*") && (b == "" || b == "$*") {
		return true
	}
	f.add(i, j)
	return false
}

// oldIncludes reports whether a oldIncl b: every key matched by b is also
// matched by a. Both must be valid canonical key expressions; on other
// strings the answer is unspecified, though it never panics. It does not
// allocate.
//
// Like Zenoh 1.x, it decides chunk by chunk from the left and is
// conservative in one corner: a "**" in b is only included by a "**" in a,
// so oldIncludes("*/**", "**") is false.
func oldIncludes(a, b string) bool {
	if a == b {
		return true
	}
	return oldIncl(a, b)
}

func oldIncl(a, b string) bool {
	for {
		ca, ra := oldCut(a)
		if ca == "**" {
			var small [16]uint64
			na, nb := oldCountChunks(a), oldCountChunks(b)
			f := oldNewFailSet(small[:], na, nb)
			return f.oldIncl(a, b, na, nb)
		}
		cb, rb := oldCut(b)
		if cb == "" || cb == "**" || !oldChunkIncludes(ca, cb) {
			return false
		}
		if ra == "" {
			return rb == ""
		}
		a, b = ra, rb
	}
}

// oldIncl is the branching search of [oldIncludes]; na and nb are the chunk
// counts of a and b.
func (f *oldFailSet) oldIncl(a, b string, na, nb int) bool {
	if f.has(na, nb) {
		return false
	}
	i, j := na, nb
	for {
		ca, ra := oldCut(a)
		if ca == "**" {
			if ra == "" {
				if !oldHasVerbatim(b) {
					return true
				}
			} else if f.oldIncl(ra, b, na-1, nb) {
				return true
			}
			// Let "**" absorb b's first chunk and try again.
			if oldVerbatim(b) {
				break
			}
			_, b = oldCut(b)
			nb--
			if b == "" {
				break
			}
			continue
		}
		cb, rb := oldCut(b)
		if cb == "" || cb == "**" || !oldChunkIncludes(ca, cb) {
			break
		}
		if ra == "" {
			if rb == "" {
				return true
			}
			break
		}
		a, b = ra, rb
		na, nb = na-1, nb-1
	}
	f.add(i, j)
	return false
}

// oldChunkIncludes reports whether chunk a (not "**") matches every string
// that chunk b (not "**") matches.
func oldChunkIncludes(a, b string) bool {
	switch {
	case a == b:
		return true
	case oldVerbatim(a) || oldVerbatim(b):
		return false
	case a == "*":
		return true
	case strings.IndexByte(a, '$') < 0:
		return false
	}
	// a is prefix $* middle1 $* ... $* suffix: b must start with prefix,
	// end with suffix, and hold every middle piece in order in between.
	prefix, rest, _ := strings.Cut(a, "$*")
	var middle, suffix string
	if i := strings.LastIndex(rest, "$*"); i >= 0 {
		middle, suffix = rest[:i], rest[i+2:]
	} else {
		suffix = rest
	}
	b, ok := strings.CutPrefix(b, prefix)
	if !ok {
		return false
	}
	if b, ok = strings.CutSuffix(b, suffix); !ok {
		return false
	}
	for middle != "" {
		var needle string
		needle, middle, _ = strings.Cut(middle, "$*")
		i := strings.Index(b, needle)
		if i < 0 {
			return false
		}
		b = b[i+len(needle):]
	}
	return true
}
