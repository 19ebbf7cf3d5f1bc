package keyexpr

import (
	"slices"
	"strings"
)

// This file holds an independent reference for the meaning of key
// expressions, used to check Intersects and Includes: each expression is
// compiled to a nondeterministic automaton over keys, and intersection and
// inclusion are decided by exploring pairs of automaton states. It shares no
// code with match.go and is only meant for small expressions.
//
// Keys are read as symbol strings: every chunk is followed by '/', and a
// verbatim chunk "@x" is read as the marker symbol symVerbatim then "x", so
// that wildcards, which never match symVerbatim, can never enter one.

const (
	symVerbatim = 256 // start of a verbatim chunk
	symOther    = 257 // any byte that no expression of the pair mentions
)

type refEdge struct {
	sym  int  // the symbol, unless wild
	wild bool // any symbol except '/' and symVerbatim
	to   int
}

type refNFA struct {
	eps    [][]int
	edges  [][]refEdge
	accept int
}

func (n *refNFA) state() int {
	n.eps = append(n.eps, nil)
	n.edges = append(n.edges, nil)
	return len(n.eps) - 1
}

func (n *refNFA) edge(from int, e refEdge) { n.edges[from] = append(n.edges[from], e) }

// literal appends a chain of literal symbols after state cur.
func (n *refNFA) literal(cur int, syms ...int) int {
	for _, s := range syms {
		next := n.state()
		n.edge(cur, refEdge{sym: s, to: next})
		cur = next
	}
	return cur
}

// compileRef builds the automaton of a valid canonical key expression.
// Symbols it uses are added to alphabet.
func compileRef(ke string, alphabet map[int]bool) *refNFA {
	n := &refNFA{}
	cur := n.state()
	for _, c := range strings.Split(ke, "/") {
		switch {
		case c == "*":
			s := n.state()
			n.edge(cur, refEdge{wild: true, to: s})
			n.edge(s, refEdge{wild: true, to: s})
			cur = n.literal(s, '/')
		case c == "**":
			// Zero or more (chunk '/') loops back to cur.
			s := n.state()
			n.edge(cur, refEdge{wild: true, to: s})
			n.edge(s, refEdge{wild: true, to: s})
			n.edge(s, refEdge{sym: '/', to: cur})
		case c[0] == '@':
			syms := []int{symVerbatim}
			for i := 1; i < len(c); i++ {
				syms = append(syms, int(c[i]))
				alphabet[int(c[i])] = true
			}
			cur = n.literal(cur, syms...)
			cur = n.literal(cur, '/')
		default:
			for i := 0; i < len(c); i++ {
				if c[i] == '$' && i+1 < len(c) && c[i+1] == '*' {
					s := n.state()
					n.eps[cur] = append(n.eps[cur], s)
					n.edge(s, refEdge{wild: true, to: s})
					cur = s
					i++
					continue
				}
				alphabet[int(c[i])] = true
				cur = n.literal(cur, int(c[i]))
			}
			cur = n.literal(cur, '/')
		}
	}
	n.accept = cur
	return n
}

// set is a sorted list of states, usable as a map key through key().
type set []int

func (s set) key() string {
	var b strings.Builder
	for _, x := range s {
		b.WriteRune(rune(x + 1))
	}
	return b.String()
}

func (n *refNFA) closure(states []int) set {
	seen := map[int]bool{}
	stack := slices.Clone(states)
	for len(stack) > 0 {
		x := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if seen[x] {
			continue
		}
		seen[x] = true
		stack = append(stack, n.eps[x]...)
	}
	out := make(set, 0, len(seen))
	for x := range seen {
		out = append(out, x)
	}
	slices.Sort(out)
	return out
}

func (n *refNFA) step(s set, sym int) set {
	var next []int
	for _, x := range s {
		for _, e := range n.edges[x] {
			if e.sym == sym && !e.wild || e.wild && sym != '/' && sym != symVerbatim {
				next = append(next, e.to)
			}
		}
	}
	return n.closure(next)
}

func (s set) has(x int) bool { _, ok := slices.BinarySearch(s, x); return ok }

// refExplore runs the subset construction of both automata in lock-step
// over every key (non-empty symbol string) and calls visit on each reachable
// pair of state sets; it stops when visit returns false.
func refExplore(a, b string, visit func(na, nb *refNFA, sa, sb set) bool) {
	alphabet := map[int]bool{'/': true, symVerbatim: true, symOther: true}
	na, nb := compileRef(a, alphabet), compileRef(b, alphabet)
	syms := make([]int, 0, len(alphabet))
	for s := range alphabet {
		syms = append(syms, s)
	}
	slices.Sort(syms)
	type pair struct{ a, b set }
	start := pair{na.closure([]int{0}), nb.closure([]int{0})}
	seen := map[string]bool{}
	queue := []pair{}
	// The empty key is not a key: start from the pairs one symbol away.
	for _, s := range syms {
		queue = append(queue, pair{na.step(start.a, s), nb.step(start.b, s)})
	}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		k := p.a.key() + "|" + p.b.key()
		if seen[k] {
			continue
		}
		seen[k] = true
		if !visit(na, nb, p.a, p.b) {
			return
		}
		if len(p.b) == 0 {
			continue // b matches no key with this prefix: nothing to learn
		}
		for _, s := range syms {
			queue = append(queue, pair{na.step(p.a, s), nb.step(p.b, s)})
		}
	}
}

// refIntersects reports whether some key is matched by both a and b.
func refIntersects(a, b string) bool {
	found := false
	refExplore(a, b, func(na, nb *refNFA, sa, sb set) bool {
		found = sa.has(na.accept) && sb.has(nb.accept)
		return !found
	})
	return found
}

// refIncludes reports whether every key matched by b is matched by a.
func refIncludes(a, b string) bool {
	included := true
	refExplore(a, b, func(na, nb *refNFA, sa, sb set) bool {
		if sb.has(nb.accept) && !sa.has(na.accept) {
			included = false
		}
		return included
	})
	return included
}

// refMatches reports whether the key (a wildcard-free expression) is matched
// by the expression ke.
func refMatches(ke, key string) bool {
	n := compileRef(ke, map[int]bool{})
	s := n.closure([]int{0})
	for _, c := range strings.Split(key, "/") {
		for i := 0; i < len(c); i++ {
			sym := int(c[i])
			if i == 0 && c[0] == '@' {
				sym = symVerbatim
			}
			s = n.step(s, sym)
		}
		s = n.step(s, '/')
	}
	return s.has(n.accept)
}

// zenohConservative reports whether Zenoh's Includes may answer false on
// (a, b) although a includes b as sets of keys. Zenoh never lets a "*"
// chunk include a "**" chunk, so Includes("*/**", "**") and
// Includes("a/*/**", "a/**/b") are false; it is exact when b has no "**".
func zenohConservative(a, b string) bool {
	return b == "**" || strings.HasPrefix(b, "**/") || strings.HasSuffix(b, "/**") || strings.Contains(b, "/**/")
}
