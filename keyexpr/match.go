package keyexpr

import "strings"

// Intersects reports whether at least one key is matched by both a and b.
// Both must be valid canonical key expressions (check them once with
// [Validate] or hold them as [KeyExpr]); on other strings the answer is
// unspecified, though it never panics.
//
// The answers are those of Zenoh 1.x: equal expressions intersect, a
// verbatim chunk ("@...") only meets an equal chunk, "*" meets any other
// non-verbatim chunk, "**" meets any run of non-verbatim chunks, and two
// chunks with "$*" meet when some string matches both.
//
// Cost, for expressions of n and m chunks (any size: Intersects does not
// apply [MaxLen]), without allocating: linear when neither side has "**";
// when one side has, linear if each run of chunks between its "**" is one
// chunk (the hostile "**/a/**/a/.../**/b") or has no wildcard (found by
// substring search); when both have, linear unless a verbatim chunk lies
// between their "**". The worst cases are O(n·m): a run of chunks with
// wildcards between two "**" that partly matches the other side many
// times over ("**/*/*/b/**" against "a/a/a/a/..."; 0.6 ms at MaxChunks
// on a 2 GHz core), and verbatim chunks between "**" on both sides, a
// memoised search with an n·m-bit table (allocated beyond 30 chunks a
// side, 8.3 KB at MaxChunks).
func Intersects(a, b string) bool {
	if a == b {
		return true
	}
	if strings.IndexByte(a, '*') < 0 && strings.IndexByte(b, '*') < 0 {
		return false // two different keys
	}
	// In a valid expression '$' only appears in "$*": without it, chunks
	// meet only when equal or when one is "*".
	sub := strings.IndexByte(a, '$') >= 0 || strings.IndexByte(b, '$') >= 0
	for a != "" && b != "" {
		ca, ra := cut(a)
		cb, rb := cut(b)
		if ca == "**" || cb == "**" {
			switch da, db := ca == "**" || hasDoubleStar(a), cb == "**" || hasDoubleStar(b); {
			case da && db:
				return intersectBoth(a, b, sub)
			case da:
				return glob(a, b, false, sub)
			default:
				return glob(b, a, false, sub)
			}
		}
		if !chunkIntersects(ca, cb, sub) {
			return false
		}
		a, b = ra, rb
	}
	return (a == "" || a == "**") && (b == "" || b == "**")
}

// hasDoubleStar reports whether some chunk of s is "**".
func hasDoubleStar(s string) bool {
	for from := 0; ; {
		i := strings.Index(s[from:], "**")
		if i < 0 {
			return false
		}
		i += from
		// "**" is a whole chunk when bounded by '/' or the ends.
		if (i == 0 || s[i-1] == '/') && (i+2 == len(s) || s[i+2] == '/') {
			return true
		}
		from = i + 1
	}
}

// cut splits a key expression into its first chunk and the rest. Chunks
// are short, so a plain loop beats strings.IndexByte here.
func cut(s string) (chunk, rest string) {
	for i := 0; i < len(s); i++ {
		if s[i] == '/' {
			return s[:i], s[i+1:]
		}
	}
	return s, ""
}

// cutLast splits a key expression into the rest and its last chunk.
func cutLast(s string) (rest, chunk string) {
	i := strings.LastIndexByte(s, '/')
	if i < 0 {
		return "", s
	}
	return s[:i], s[i+1:]
}

// verbatim reports whether chunk c is verbatim (starts with '@').
func verbatim(c string) bool { return c != "" && c[0] == '@' }

// hasVerbatim reports whether any chunk of s is verbatim.
func hasVerbatim(s string) bool {
	if verbatim(s) {
		return true
	}
	return strings.Contains(s, "/@")
}

// glob matches pattern p, which has at least one "**", against the chunks
// of t, for [Intersects] (incl false: t has no "**", chunks must meet) or
// [Includes] (incl true: a chunk of p must include one of t, and only a
// "**" of p can take a "**" of t). A "**" of p takes any run of
// non-verbatim chunks of t.
//
// p is P/**/X1/**/.../**/Xk/**/S. P and S are pinned to the ends of t.
// Each Xi goes to the leftmost place after X(i-1) that it fits and that
// leaves no verbatim chunk to the "**" before it. Leftmost is safe: a
// later place only shortens what is left for X(i+1)...; and were a later
// place to cover a verbatim chunk that the leftmost one leaves to the next
// "**", that chunk would repeat in Xi at a shift smaller than where Xi's
// verbatim chunks can start, down into its leading non-verbatim chunks, a
// contradiction. So the cost is one pass over t, times |Xi| only where Xi
// partly matches.
func glob(p, t string, incl, sub bool) bool {
	// P: the chunks before the first "**".
	for {
		cp, rp := cut(p)
		if cp == "**" {
			break
		}
		if t == "" {
			return false
		}
		ct, rt := cut(t)
		if !chunkRel(cp, ct, incl, sub) {
			return false
		}
		p, t = rp, rt
	}
	// S: the chunks after the last "**".
	for {
		rp, cp := cutLast(p)
		if cp == "**" {
			break
		}
		if t == "" {
			return false
		}
		rt, ct := cutLast(t)
		if !chunkRel(cp, ct, incl, sub) {
			return false
		}
		p, t = rp, rt
	}
	// p is now "**" or "**/X1/**/.../**/Xk/**".
	_, p = cut(p)
	// When t's chunks only meet equal chunks, a segment without wildcards
	// is found by substring search, in linear time.
	litT := incl || strings.IndexByte(t, '*') < 0
	for p != "" {
		// seg is Xi, p what follows its closing "**".
		seg := p
		if i := strings.Index(p, "/**"); i >= 0 {
			seg, p = p[:i], p[i+3:]
			if p != "" {
				p = p[1:] // the '/' after "**"
			}
		} else {
			p = "" // unreachable in a valid p: it ends with "**"
		}
		if litT && strings.IndexByte(seg, '*') < 0 {
			var ok bool
			if t, ok = findLiteral(seg, t); !ok {
				return false
			}
			continue
		}
		for {
			rest, ok, end := fit(seg, t, incl, sub)
			if ok {
				t = rest
				break
			}
			if end {
				return false // t is too short for seg anywhere further on
			}
			ct, rt := cut(t)
			if verbatim(ct) {
				return false // a "**" cannot take it
			}
			t = rt
		}
	}
	return !hasVerbatim(t) // the last "**" takes the rest
}

// findLiteral finds the leftmost place where the chunks of seg, which has
// no wildcard, equal chunks of t with no verbatim chunk before them, and
// returns what follows in t.
func findLiteral(seg, t string) (rest string, ok bool) {
	for from := 0; from < len(t); {
		i := strings.Index(t[from:], seg)
		if i < 0 {
			return "", false
		}
		i += from
		end := i + len(seg)
		if (i == 0 || t[i-1] == '/') && (end == len(t) || t[end] == '/') {
			if hasVerbatim(t[:i]) {
				return "", false // a "**" cannot take it
			}
			if end < len(t) {
				end++ // the '/'
			}
			return t[end:], true
		}
		from = i + 1
	}
	return "", false
}

// fit reports whether the chunks of seg match the first chunks of t, and
// returns the rest of t. end tells that t ran out first.
func fit(seg, t string, incl, sub bool) (rest string, ok, end bool) {
	for seg != "" {
		if t == "" {
			return "", false, true
		}
		cs, rs := cut(seg)
		ct, rt := cut(t)
		if !chunkRel(cs, ct, incl, sub) {
			return "", false, false
		}
		seg, t = rs, rt
	}
	return t, true, false
}

// chunkRel is the chunk relation of [glob]: p (not "**") includes t, or
// meets it.
func chunkRel(p, t string, incl, sub bool) bool {
	if incl {
		return t != "**" && chunkIncludes(p, t)
	}
	return chunkIntersects(p, t, sub)
}

// intersectBoth decides [Intersects] when both a and b have "**". Their
// leading chunks up to the first "**" of either are pinned to the same
// chunks of a common key, and so are their trailing chunks; they must
// meet. If no verbatim chunk is left, the rest always intersects: one key
// holds what is left of a, then what is left of b, each "**" taking the
// other side's part. Otherwise the verbatim chunks must line up, which the
// memoised search of [failSet.intersect] decides.
func intersectBoth(a, b string, sub bool) bool {
	for a != "" && b != "" { // always true for valid a and b
		ca, ra := cut(a)
		cb, rb := cut(b)
		if ca == "**" || cb == "**" {
			break
		}
		if !chunkIntersects(ca, cb, sub) {
			return false
		}
		a, b = ra, rb
	}
	for a != "" && b != "" {
		ra, ca := cutLast(a)
		rb, cb := cutLast(b)
		if ca == "**" || cb == "**" {
			break
		}
		if !chunkIntersects(ca, cb, sub) {
			return false
		}
		a, b = ra, rb
	}
	if !hasVerbatim(a) && !hasVerbatim(b) {
		return true
	}
	var small [16]uint64
	na, nb := countChunks(a), countChunks(b)
	f := newFailSet(small[:], na, nb)
	return f.intersect(a, b, na, nb, sub)
}

// failSet records sub-problems known to fail, so that a search that
// branches on "**" visits each sub-problem once and stays polynomial. A
// sub-problem is a pair of suffixes, named by their sizes in chunks i and
// j.
type failSet struct {
	cols int
	bits []uint64
}

// newFailSet returns a set for i in [0, rows] and j in [0, cols], using small
// as storage when it is large enough (so that the common case does not
// allocate).
func newFailSet(small []uint64, rows, cols int) failSet {
	n := ((rows+1)*(cols+1) + 63) / 64
	if n <= len(small) {
		return failSet{cols: cols + 1, bits: small[:n]}
	}
	return failSet{cols: cols + 1, bits: make([]uint64, n)}
}

func (f *failSet) has(i, j int) bool {
	k := i*f.cols + j
	return f.bits[k>>6]&(1<<(k&63)) != 0
}

func (f *failSet) add(i, j int) {
	k := i*f.cols + j
	f.bits[k>>6] |= 1 << (k & 63)
}

// countChunks returns the number of chunks of s (0 for "").
func countChunks(s string) int {
	if s == "" {
		return 0
	}
	return strings.Count(s, "/") + 1
}

// intersect is the branching search: na and nb are the chunk counts of a and
// b. A "**" on either side branches between matching nothing and absorbing
// the other side's (non-verbatim) chunk.
func (f *failSet) intersect(a, b string, na, nb int, sub bool) bool {
	if f.has(na, nb) {
		return false
	}
	i, j := na, nb
	for a != "" && b != "" {
		ca, ra := cut(a)
		cb, rb := cut(b)
		switch {
		case ca == "**":
			if ra == "" {
				return !hasVerbatim(b)
			}
			if (!verbatim(cb) && f.intersect(a, rb, na, nb-1, sub)) || f.intersect(ra, b, na-1, nb, sub) {
				return true
			}
			f.add(i, j)
			return false
		case cb == "**":
			if rb == "" {
				return !hasVerbatim(a)
			}
			if (!verbatim(ca) && f.intersect(ra, b, na-1, nb, sub)) || f.intersect(a, rb, na, nb-1, sub) {
				return true
			}
			f.add(i, j)
			return false
		case !chunkIntersects(ca, cb, sub):
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

// chunkIntersects reports whether two chunks, neither "**", share a match.
// It runs in linear time: with "$*" on both sides, the literal starts and
// ends must agree and the middles always fit (each "$*" takes the other
// side's middle); with "$*" on one side it is [chunkIncludes].
func chunkIntersects(a, b string, sub bool) bool {
	switch {
	case a == b:
		return true
	case verbatim(a) || verbatim(b):
		return false
	case a == "*" || b == "*":
		return true
	case !sub:
		return false
	}
	ia, ib := strings.Index(a, "$*"), strings.Index(b, "$*")
	switch {
	case ia < 0 && ib < 0:
		return false
	case ia < 0:
		return chunkIncludes(b, a)
	case ib < 0:
		return chunkIncludes(a, b)
	}
	// The literal heads before the first "$*" agree on their common length,
	// and so do the literal tails after the last "$*".
	if !strings.HasPrefix(a[:ia], b[:min(ia, ib)]) || !strings.HasPrefix(b[:ib], a[:min(ia, ib)]) {
		return false
	}
	ta, tb := a[strings.LastIndex(a, "$*")+2:], b[strings.LastIndex(b, "$*")+2:]
	return strings.HasSuffix(ta, tb) || strings.HasSuffix(tb, ta)
}

// Includes reports whether a includes b: every key matched by b is also
// matched by a. Both must be valid canonical key expressions; on other
// strings the answer is unspecified, though it never panics. It does not
// allocate.
//
// Like Zenoh 1.x, it decides chunk by chunk from the left and is
// conservative in one corner: a "**" in b is only included by a "**" in a,
// so Includes("*/**", "**") is false.
//
// Cost, for expressions of n and m chunks: linear when the runs of chunks
// between the "**" of a are single chunks or have no wildcard, O(n·m) at
// worst (a run with wildcards partly matching b many times over).
func Includes(a, b string) bool {
	if a == b {
		return true
	}
	for a != "" && b != "" {
		ca, ra := cut(a)
		if ca == "**" {
			return glob(a, b, true, false)
		}
		cb, rb := cut(b)
		if cb == "**" || !chunkIncludes(ca, cb) {
			return false
		}
		a, b = ra, rb
	}
	if ca, _ := cut(a); ca == "**" {
		return glob(a, b, true, false) // b ran out first
	}
	return a == "" && b == ""
}

// chunkIncludes reports whether chunk a (not "**") matches every string
// that chunk b (not "**") matches.
func chunkIncludes(a, b string) bool {
	switch {
	case a == b:
		return true
	case verbatim(a) || verbatim(b):
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
