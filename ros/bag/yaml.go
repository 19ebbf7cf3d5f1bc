package bag

import (
	"strconv"
	"strings"
)

// ynode is a YAML node for the emitter below, which writes what yaml-cpp
// writes for rosbag2's metadata: block maps and sequences, sequences
// indented under their key, "[]" for an empty sequence, "~" for an empty
// map, plain scalars where they are safe and double quotes elsewhere.
type ynode struct {
	kind   ykind
	scalar string
	keys   []string
	vals   []*ynode
	items  []*ynode
}

type ykind uint8

const (
	yScalar ykind = iota
	yMap
	ySeq
)

func ymap(kv ...any) *ynode {
	n := &ynode{kind: yMap}
	for i := 0; i+1 < len(kv); i += 2 {
		n.keys = append(n.keys, kv[i].(string))
		n.vals = append(n.vals, kv[i+1].(*ynode))
	}
	return n
}

func yseq(items ...*ynode) *ynode { return &ynode{kind: ySeq, items: items} }
func yplain(s string) *ynode      { return &ynode{scalar: s} }
func yint(v int64) *ynode         { return &ynode{scalar: strconv.FormatInt(v, 10)} }
func yuint(v uint64) *ynode       { return &ynode{scalar: strconv.FormatUint(v, 10)} }
func ybool(v bool) *ynode         { return &ynode{scalar: strconv.FormatBool(v)} }

// ystr is a string scalar: plain when YAML reads it back as the same
// string, double-quoted otherwise.
func ystr(s string) *ynode {
	if plainSafe(s) {
		return &ynode{scalar: s}
	}
	return &ynode{scalar: strconv.Quote(s)}
}

func plainSafe(s string) bool {
	if s == "" || s == "~" || strings.EqualFold(s, "null") || strings.EqualFold(s, "true") || strings.EqualFold(s, "false") ||
		strings.EqualFold(s, "yes") || strings.EqualFold(s, "no") || strings.EqualFold(s, "on") || strings.EqualFold(s, "off") {
		return false
	}
	if _, err := strconv.ParseFloat(s, 64); err == nil {
		return false
	}
	if strings.ContainsAny(s[:1], "-?:,[]{}#&*!|>'\"%@` ") || strings.HasSuffix(s, " ") {
		return false
	}
	for _, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', strings.ContainsRune("_/.-+=()<>", r):
		default:
			return false
		}
	}
	return true
}

// emitYAML writes n as yaml-cpp's YAML::Dump does (no final newline).
func emitYAML(n *ynode) string {
	var b strings.Builder
	switch {
	case n.kind == yMap && len(n.keys) > 0:
		emitMap(&b, n, 0, false)
	case n.kind == ySeq && len(n.items) > 0:
		emitSeq(&b, n, 0)
	default:
		b.WriteString(inline(n))
		b.WriteByte('\n')
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// inline is a scalar, or an empty map or sequence.
func inline(n *ynode) string {
	switch n.kind {
	case yMap:
		return "~"
	case ySeq:
		return "[]"
	}
	return n.scalar
}

func empty(n *ynode) bool {
	return n.kind == yScalar || (n.kind == yMap && len(n.keys) == 0) || (n.kind == ySeq && len(n.items) == 0)
}

// emitMap writes a block map at indent; inItem says its first key follows
// a "- " already written.
func emitMap(b *strings.Builder, n *ynode, indent int, inItem bool) {
	for i, k := range n.keys {
		if i > 0 || !inItem {
			b.WriteString(strings.Repeat(" ", indent))
		}
		b.WriteString(k)
		b.WriteByte(':')
		v := n.vals[i]
		if empty(v) {
			b.WriteByte(' ')
			b.WriteString(inline(v))
			b.WriteByte('\n')
			continue
		}
		b.WriteByte('\n')
		if v.kind == yMap {
			emitMap(b, v, indent+2, false)
		} else {
			emitSeq(b, v, indent+2)
		}
	}
}

func emitSeq(b *strings.Builder, n *ynode, indent int) {
	for _, it := range n.items {
		b.WriteString(strings.Repeat(" ", indent))
		b.WriteString("- ")
		switch {
		case empty(it):
			b.WriteString(inline(it))
			b.WriteByte('\n')
		case it.kind == yMap:
			emitMap(b, it, indent+2, true)
		default:
			b.WriteByte('\n')
			emitSeq(b, it, indent+2)
		}
	}
}
