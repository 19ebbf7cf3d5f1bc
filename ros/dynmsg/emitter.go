package dynmsg

import (
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"
)

// This file writes YAML as PyYAML's yaml.dump does with the options
// ros2 topic echo uses (allow_unicode, an unlimited width, block or flow
// style for sequences): same scalar styles, quoting and escapes, same
// indentation of nested mappings and "indentless" sequences in mappings.

// ynode is a YAML node: a scalar, a sequence or a mapping with string keys.
type ynode struct {
	kind  nodeKind
	str   bool    // a str scalar (tag:yaml.org,2002:str); others are int, float, bool
	value string  // scalar text
	items []ynode // sequence items, or mapping keys and values alternating
	flow  bool    // a sequence in flow style
}

type nodeKind uint8

const (
	scalarNode nodeKind = iota
	seqNode
	mapNode
)

func strNode(s string) ynode   { return ynode{kind: scalarNode, str: true, value: s} }
func plainNode(s string) ynode { return ynode{kind: scalarNode, value: s} }

// emitter holds the writing state of PyYAML's Emitter that matters for our
// documents.
type emitter struct {
	b          strings.Builder
	indent     int // -1 when none yet
	indents    []int
	flowLevel  int
	column     int
	whitespace bool
	indention  bool
}

// emitYAML writes root as a YAML document, ending with a line break.
func emitYAML(root *ynode) string {
	e := emitter{indent: -1, whitespace: true, indention: true}
	e.node(root, false, false)
	e.writeIndent()
	return e.b.String()
}

func (e *emitter) increaseIndent(flow, indentless bool) {
	e.indents = append(e.indents, e.indent)
	switch {
	case e.indent < 0 && flow:
		e.indent = 2
	case e.indent < 0:
		e.indent = 0
	case !indentless:
		e.indent += 2
	}
}

func (e *emitter) popIndent() {
	e.indent = e.indents[len(e.indents)-1]
	e.indents = e.indents[:len(e.indents)-1]
}

func (e *emitter) write(s string) {
	e.b.WriteString(s)
	e.column += utf8.RuneCountInString(s)
}

func (e *emitter) writeIndicator(ind string, needWhitespace, whitespace, indention bool) {
	if !e.whitespace && needWhitespace {
		e.write(" ")
	}
	e.write(ind)
	e.whitespace = whitespace
	e.indention = e.indention && indention
}

func (e *emitter) writeIndent() {
	indent := max(e.indent, 0)
	if !e.indention || e.column > indent || (e.column == indent && !e.whitespace) {
		e.writeLineBreak("\n")
	}
	if e.column < indent {
		e.whitespace = true
		e.write(strings.Repeat(" ", indent-e.column))
	}
}

func (e *emitter) writeLineBreak(br string) {
	e.whitespace = true
	e.indention = true
	e.b.WriteString(br)
	e.column = 0
}

// node writes n; mapping tells whether n is a key or value of a mapping,
// simpleKey whether it is a key written without "?".
func (e *emitter) node(n *ynode, mapping, simpleKey bool) {
	switch n.kind {
	case scalarNode:
		e.increaseIndent(true, false)
		e.scalar(n, simpleKey)
		e.popIndent()
	case seqNode:
		if e.flowLevel > 0 || n.flow || len(n.items) == 0 {
			e.flowSequence(n)
		} else {
			e.blockSequence(n, mapping)
		}
	case mapNode:
		if e.flowLevel > 0 || len(n.items) == 0 {
			e.flowMapping(n)
		} else {
			e.blockMapping(n)
		}
	}
}

func (e *emitter) flowSequence(n *ynode) {
	e.writeIndicator("[", true, true, false)
	e.flowLevel++
	e.increaseIndent(true, false)
	for i := range n.items {
		if i > 0 {
			e.writeIndicator(",", false, false, false)
		}
		e.node(&n.items[i], false, false)
	}
	e.popIndent()
	e.flowLevel--
	e.writeIndicator("]", false, false, false)
}

func (e *emitter) flowMapping(n *ynode) {
	e.writeIndicator("{", true, true, false)
	e.flowLevel++
	e.increaseIndent(true, false)
	for i := 0; i+1 < len(n.items); i += 2 {
		if i > 0 {
			e.writeIndicator(",", false, false, false)
		}
		k, v := &n.items[i], &n.items[i+1]
		if simpleKey(k) {
			e.node(k, true, true)
			e.writeIndicator(":", false, false, false)
		} else {
			e.writeIndicator("?", true, false, false)
			e.node(k, true, false)
			e.writeIndicator(":", true, false, false)
		}
		e.node(v, true, false)
	}
	e.popIndent()
	e.flowLevel--
	e.writeIndicator("}", false, false, false)
}

func (e *emitter) blockSequence(n *ynode, mapping bool) {
	e.increaseIndent(false, mapping && !e.indention)
	for i := range n.items {
		e.writeIndent()
		e.writeIndicator("-", true, false, true)
		e.node(&n.items[i], false, false)
	}
	e.popIndent()
}

func (e *emitter) blockMapping(n *ynode) {
	e.increaseIndent(false, false)
	for i := 0; i+1 < len(n.items); i += 2 {
		e.writeIndent()
		k, v := &n.items[i], &n.items[i+1]
		if simpleKey(k) {
			e.node(k, true, true)
			e.writeIndicator(":", false, false, false)
		} else {
			e.writeIndicator("?", true, false, true)
			e.node(k, true, false)
			e.writeIndent()
			e.writeIndicator(":", true, false, true)
		}
		e.node(v, true, false)
	}
	e.popIndent()
}

// simpleKey reports whether a key can be written without "?": a non-empty
// single-line scalar shorter than 128 characters, or an empty collection.
func simpleKey(k *ynode) bool {
	if k.kind != scalarNode {
		return len(k.items) == 0
	}
	if utf8.RuneCountInString(k.value) >= 128 {
		return false
	}
	a := analyze(k.value)
	return !a.empty && !a.multiline
}

// scalar writes a scalar in the style PyYAML picks for it.
func (e *emitter) scalar(n *ynode, simpleKey bool) {
	a := analyze(n.value)
	implicit := !n.str || !resolvesNonStr(n.value)
	switch {
	case implicit && !(simpleKey && (a.empty || a.multiline)) &&
		((e.flowLevel > 0 && a.allowFlowPlain) || (e.flowLevel == 0 && a.allowBlockPlain)):
		e.writePlain(n.value)
	case a.allowSingleQuoted && !(simpleKey && a.multiline):
		e.writeSingleQuoted(n.value)
	default:
		e.writeDoubleQuoted(n.value)
	}
}

func (e *emitter) writePlain(s string) {
	if s == "" {
		return
	}
	if !e.whitespace {
		e.write(" ")
	}
	e.whitespace = false
	e.indention = false
	e.write(s) // single-line: plain style is never chosen for line breaks
}

func isBreak(r rune) bool { return r == '\n' || r == '\x85' || r == '\u2028' || r == '\u2029' }

func (e *emitter) writeSingleQuoted(s string) {
	e.writeIndicator("'", true, false, false)
	text := []rune(s)
	spaces, breaks := false, false
	start := 0
	for end := 0; end <= len(text); end++ {
		var ch rune = -1
		if end < len(text) {
			ch = text[end]
		}
		switch {
		case spaces:
			if ch != ' ' {
				e.write(string(text[start:end]))
				start = end
			}
		case breaks:
			if ch == -1 || !isBreak(ch) {
				if text[start] == '\n' {
					e.writeLineBreak("\n")
				}
				for _, br := range text[start:end] {
					e.writeLineBreak(string(br))
				}
				e.writeIndent()
				start = end
			}
		default:
			if ch == -1 || ch == ' ' || isBreak(ch) || ch == '\'' {
				if start < end {
					e.write(string(text[start:end]))
					start = end
				}
			}
		}
		if ch == '\'' {
			e.write("''")
			start = end + 1
		}
		if ch != -1 {
			spaces = ch == ' '
			breaks = isBreak(ch)
		}
	}
	e.writeIndicator("'", false, false, false)
}

var yamlEscapes = map[rune]string{
	0: `\0`, '\x07': `\a`, '\x08': `\b`, '\t': `\t`, '\n': `\n`, '\x0b': `\v`,
	'\x0c': `\f`, '\r': `\r`, '\x1b': `\e`, '"': `\"`, '\\': `\\`,
	'\x85': `\N`, '\xa0': `\_`, '\u2028': `\L`, '\u2029': `\P`,
}

func (e *emitter) writeDoubleQuoted(s string) {
	e.writeIndicator(`"`, true, false, false)
	var b strings.Builder
	for _, r := range s {
		printable := (r >= 0x20 && r <= 0x7e) || (r >= 0xa0 && r <= 0xd7ff) || (r >= 0xe000 && r <= 0xfffd)
		if printable && r != '"' && r != '\\' && r != 0xfeff {
			b.WriteRune(r)
			continue
		}
		if esc, ok := yamlEscapes[r]; ok {
			b.WriteString(esc)
			continue
		}
		switch {
		case r <= 0xff:
			b.WriteString(`\x`)
			b.WriteString(hex(uint64(r), 2))
		case r <= 0xffff:
			b.WriteString(`\u`)
			b.WriteString(hex(uint64(r), 4))
		default:
			b.WriteString(`\U`)
			b.WriteString(hex(uint64(r), 8))
		}
	}
	e.write(b.String())
	e.writeIndicator(`"`, false, false, false)
}

func hex(v uint64, width int) string {
	s := strings.ToUpper(strconv.FormatUint(v, 16))
	return strings.Repeat("0", max(0, width-len(s))) + s
}

// analysis is PyYAML's ScalarAnalysis: which styles can carry a scalar.
type analysis struct {
	empty, multiline                  bool
	allowFlowPlain, allowBlockPlain   bool
	allowSingleQuoted, allowBlockText bool
}

func isSpaceOrBreak0(r rune) bool {
	return r == 0 || r == ' ' || r == '\t' || r == '\r' || isBreak(r)
}

// analyze follows PyYAML's Emitter.analyze_scalar with allow_unicode set.
func analyze(s string) analysis {
	if s == "" {
		return analysis{empty: true, allowBlockPlain: true, allowSingleQuoted: true}
	}
	text := []rune(s)
	var blockInd, flowInd, lineBreaks, special bool
	var leadingSpace, leadingBreak, trailingSpace, trailingBreak, breakSpace, spaceBreak bool
	if strings.HasPrefix(s, "---") || strings.HasPrefix(s, "...") {
		blockInd, flowInd = true, true
	}
	precededByWS := true
	followedByWS := len(text) == 1 || isSpaceOrBreak0(text[1])
	prevSpace, prevBreak := false, false
	for i, ch := range text {
		if i == 0 {
			if strings.ContainsRune("#,[]{}&*!|>'\"%@`", ch) {
				flowInd, blockInd = true, true
			}
			if ch == '?' || ch == ':' {
				flowInd = true
				if followedByWS {
					blockInd = true
				}
			}
			if ch == '-' && followedByWS {
				flowInd, blockInd = true, true
			}
		} else {
			if strings.ContainsRune(",?[]{}", ch) {
				flowInd = true
			}
			if ch == ':' {
				flowInd = true
				if followedByWS {
					blockInd = true
				}
			}
			if ch == '#' && precededByWS {
				flowInd, blockInd = true, true
			}
		}
		if isBreak(ch) {
			lineBreaks = true
		}
		if !(ch == '\n' || (ch >= 0x20 && ch <= 0x7e)) {
			unicodeOK := (ch == 0x85 || (ch >= 0xa0 && ch <= 0xd7ff) || (ch >= 0xe000 && ch <= 0xfffd) ||
				(ch >= 0x10000 && ch < 0x10ffff)) && ch != 0xfeff
			if !unicodeOK {
				special = true
			}
		}
		switch {
		case ch == ' ':
			if i == 0 {
				leadingSpace = true
			}
			if i == len(text)-1 {
				trailingSpace = true
			}
			if prevBreak {
				breakSpace = true
			}
			prevSpace, prevBreak = true, false
		case isBreak(ch):
			if i == 0 {
				leadingBreak = true
			}
			if i == len(text)-1 {
				trailingBreak = true
			}
			if prevSpace {
				spaceBreak = true
			}
			prevSpace, prevBreak = false, true
		default:
			prevSpace, prevBreak = false, false
		}
		precededByWS = isSpaceOrBreak0(ch)
		followedByWS = i+2 >= len(text) || isSpaceOrBreak0(text[i+2])
	}
	a := analysis{multiline: lineBreaks, allowFlowPlain: true, allowBlockPlain: true, allowSingleQuoted: true, allowBlockText: true}
	if leadingSpace || leadingBreak || trailingSpace || trailingBreak {
		a.allowFlowPlain, a.allowBlockPlain = false, false
	}
	if trailingSpace {
		a.allowBlockText = false
	}
	if breakSpace {
		a.allowFlowPlain, a.allowBlockPlain, a.allowSingleQuoted = false, false, false
	}
	if spaceBreak || special {
		a.allowFlowPlain, a.allowBlockPlain, a.allowSingleQuoted, a.allowBlockText = false, false, false, false
	}
	if lineBreaks {
		a.allowFlowPlain, a.allowBlockPlain = false, false
	}
	if flowInd {
		a.allowFlowPlain = false
	}
	if blockInd {
		a.allowBlockPlain = false
	}
	return a
}

// The implicit resolvers of PyYAML (YAML 1.1): a plain scalar matching one
// of them would read back as a bool, float, int, merge key, null,
// timestamp or value, not as a string.
var (
	reBool  = regexp.MustCompile(`^(?:yes|Yes|YES|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|off|Off|OFF)$`)
	reFloat = regexp.MustCompile(`^(?:[-+]?(?:[0-9][0-9_]*)\.[0-9_]*(?:[eE][-+][0-9]+)?|\.[0-9][0-9_]*(?:[eE][-+][0-9]+)?|[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+\.[0-9_]*|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$`)
	reInt   = regexp.MustCompile(`^(?:[-+]?0b[0-1_]+|[-+]?0[0-7_]+|[-+]?(?:0|[1-9][0-9_]*)|[-+]?0x[0-9a-fA-F_]+|[-+]?[1-9][0-9_]*(?::[0-5]?[0-9])+)$`)
	reNull  = regexp.MustCompile(`^(?:~|null|Null|NULL|)$`)
	reTime  = regexp.MustCompile(`^(?:[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]|[0-9][0-9][0-9][0-9]-[0-9][0-9]?-[0-9][0-9]?(?:[Tt]|[ \t]+)[0-9][0-9]?:[0-9][0-9]:[0-9][0-9](?:\.[0-9]*)?(?:[ \t]*(?:Z|[-+][0-9][0-9]?(?::[0-9][0-9])?))?)$`)
)

// resolvesNonStr reports whether the plain scalar s would be read back as
// something other than a string, looking only at the resolvers registered
// for its first character, as PyYAML does.
func resolvesNonStr(s string) bool {
	if s == "" {
		return true // null
	}
	c := s[0]
	s = strings.TrimSuffix(s, "\n") // Python's $ also matches before a final newline
	switch {
	case strings.IndexByte("yYnNtTfFoO", c) >= 0 && reBool.MatchString(s):
		return true
	case strings.IndexByte("-+0123456789.", c) >= 0 && reFloat.MatchString(s):
		return true
	case strings.IndexByte("-+0123456789", c) >= 0 && reInt.MatchString(s):
		return true
	case c == '<' && s == "<<":
		return true
	case (c == '~' || c == 'n' || c == 'N') && reNull.MatchString(s):
		return true
	case c >= '0' && c <= '9' && reTime.MatchString(s):
		return true
	case s == "=", s == "!", s == "&", s == "*":
		return true
	}
	return false
}
