package dynmsg

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"gopkg.in/yaml.v3"

	"github.com/afor-go/afor/ros/idl"
)

// ParseYAML parses the VALUES argument of `ros2 topic pub` (and of
// `ros2 service call`): a YAML mapping, in flow ("{data: hello}") or block
// ("data: 1") style, from field names to values; nested messages are
// mappings and arrays are lists. Missing fields keep their defaults, so ""
// and "{}" give [Type.Zero]. An unknown field or a value that is not of the
// field's type is an error matching [ErrBadValue] that names the field and
// the expected type.
//
// The values accepted follow what ros2 topic pub accepts, where that is
// unambiguous: integers (decimal, 0x, 0o, 0b, with _ separators) or
// numeric strings for integer fields, range-checked; integers, floats,
// .inf, .nan or numeric strings for float fields; true/false (and YAML
// 1.1's yes/no/on/off) for bool fields; any scalar for string fields (a
// number as Python would print it); an integer 0..255 or a one-character
// string for byte fields; a list of the exact length for fixed arrays and
// of at most the bound for bounded ones. Time-stamp shortcuts ("auto",
// "now") need [Type.ParseYAMLAt].
func (t *Type) ParseYAML(values string) (Message, error) {
	return t.parse(values, nil)
}

// ParseYAMLAt is ParseYAML with ros2 topic pub's time-stamp shortcuts:
// "auto" as the value of a std_msgs/msg/Header field gives a header stamped
// now (empty frame_id), and "now" as the value of a builtin_interfaces/msg/Time
// field gives now.
func (t *Type) ParseYAMLAt(values string, now time.Time) (Message, error) {
	return t.parse(values, &now)
}

func (t *Type) parse(values string, now *time.Time) (Message, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(values), &doc); err != nil {
		return nil, badValue("values are not YAML: %v", err)
	}
	if doc.Kind == 0 || len(doc.Content) == 0 {
		return t.Zero(), nil // empty input
	}
	p := parser{now: now}
	root := doc.Content[0]
	if root.Kind == yaml.ScalarNode && root.Tag == "!!null" {
		return t.Zero(), nil
	}
	if root.Kind != yaml.MappingNode {
		return nil, badValue("values must be a YAML mapping of the fields of %s, like \"{%s: ...}\", not %s",
			t.name, firstField(t.msg), describeNode(root))
	}
	return p.message(t.msg, root)
}

func firstField(mt *msgType) string {
	if len(mt.fields) == 0 {
		return "field"
	}
	return mt.fields[0].name
}

// aliasError rejects YAML aliases (*name): expanding them could make a
// short input exponentially large.
func aliasError() error { return badValue("YAML aliases (*name) are not supported") }

// parser converts YAML nodes to message values.
type parser struct {
	now *time.Time
}

// message converts a mapping node to a message of type mt.
func (p *parser) message(mt *msgType, n *yaml.Node) (Message, error) {
	if n.Kind == yaml.AliasNode {
		return nil, aliasError()
	}
	m := mt.zero()
	if n.Kind == yaml.ScalarNode && n.Tag == "!!null" {
		return m, nil
	}
	if n.Kind != yaml.MappingNode {
		return nil, badValue("%s is not a mapping of the fields of %s", describeNode(n), mt.name)
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if k.Kind != yaml.ScalarNode {
			return nil, badValue("a key of %s is %s, not a field name", mt.name, describeNode(k))
		}
		idx, ok := mt.index[k.Value]
		if !ok {
			return nil, mt.unknownField(k.Value)
		}
		f := &mt.fields[idx]
		val, err := p.value(f, v)
		if err != nil {
			return nil, inField(f.name, err)
		}
		m[f.name] = val
	}
	return m, nil
}

// value converts the node of field f.
func (p *parser) value(f *field, n *yaml.Node) (any, error) {
	if n.Kind == yaml.AliasNode {
		return nil, aliasError()
	}
	if f.array == notArray {
		return p.scalar(f, n)
	}
	if n.Kind != yaml.SequenceNode {
		return nil, badValue("%s is not a list for %s", describeNode(n), f.typeString())
	}
	l := len(n.Content)
	switch {
	case f.array == fixedArray && l != f.size:
		return nil, badValue("%d elements for %s, want exactly %d", l, f.typeString(), f.size)
	case f.array == boundedArray && l > f.size:
		return nil, badValue("%d elements for %s, want at most %d", l, f.typeString(), f.size)
	}
	elems := make([]any, l)
	for i, e := range n.Content {
		v, err := p.scalar(f, e)
		if err != nil {
			return nil, inField(fmt.Sprintf("[%d]", i), err)
		}
		elems[i] = v
	}
	return typedSlice(f, elems), nil
}

// typedSlice converts elements already of f's element Go type into the
// slice type Decode produces.
func typedSlice(f *field, elems []any) any {
	switch f.kind {
	case idl.Bool:
		return collect[bool](elems)
	case idl.Byte, idl.Char, idl.Uint8:
		return collect[uint8](elems)
	case idl.Int8:
		return collect[int8](elems)
	case idl.Int16:
		return collect[int16](elems)
	case idl.Uint16:
		return collect[uint16](elems)
	case idl.Int32:
		return collect[int32](elems)
	case idl.Uint32:
		return collect[uint32](elems)
	case idl.Int64:
		return collect[int64](elems)
	case idl.Uint64:
		return collect[uint64](elems)
	case idl.Float32:
		return collect[float32](elems)
	case idl.Float64:
		return collect[float64](elems)
	case idl.String, idl.WString:
		return collect[string](elems)
	case idl.Nested:
		return collect[Message](elems)
	}
	return elems
}

func collect[T any](elems []any) []T {
	out := make([]T, len(elems))
	for i, e := range elems {
		out[i] = e.(T)
	}
	return out
}

// scalar converts one element (or a non-array field) of f's kind.
func (p *parser) scalar(f *field, n *yaml.Node) (any, error) {
	if f.kind == idl.Nested {
		if p.now != nil && n.Kind == yaml.ScalarNode {
			switch {
			case f.nested.name == "std_msgs/msg/Header" && n.Value == "auto":
				m := f.nested.zero()
				m["stamp"] = stamp(*p.now)
				return m, nil
			case f.nested.name == "builtin_interfaces/msg/Time" && n.Value == "now":
				return stamp(*p.now), nil
			}
		}
		return p.message(f.nested, n)
	}
	want := f.elemString()
	if n.Kind == yaml.AliasNode {
		return nil, aliasError()
	}
	if n.Kind != yaml.ScalarNode {
		return nil, badValue("%s is not %s", describeNode(n), aType(want))
	}
	switch f.kind {
	case idl.Bool:
		switch {
		case n.Tag == "!!bool" || (n.Style == 0 && reBool.MatchString(n.Value)):
			switch n.Value[0] {
			case 't', 'T', 'y', 'Y':
				return true, nil
			case 'o', 'O':
				return strings.EqualFold(n.Value, "on"), nil
			}
			return false, nil
		}
		return nil, badValue("%s is not a bool (true or false)", describeNode(n))
	case idl.String, idl.WString:
		s := scalarText(n)
		if f.sbound > 0 && stringLen(f.kind, s) > f.sbound {
			return nil, badValue("%q is longer than the bound of %s", s, want)
		}
		if f.kind == idl.WString && !utf8.ValidString(s) {
			return nil, badValue("%q is not valid UTF-8", s)
		}
		return s, nil
	case idl.Float32, idl.Float64:
		x, ok := parseFloat(n)
		if !ok {
			return nil, badValue("%s is not %s", describeNode(n), aType(want))
		}
		if f.kind == idl.Float32 {
			if !math.IsInf(x, 0) && !math.IsNaN(x) && math.Abs(x) > math.MaxFloat32 {
				return nil, badValue("%s is out of range for a float32", describeNode(n))
			}
			return float32(x), nil
		}
		return x, nil
	case idl.Byte:
		if s := n.Value; n.Tag == "!!str" && utf8.RuneCountInString(s) == 1 {
			if r, _ := utf8.DecodeRuneInString(s); r <= 0xff {
				return uint8(r), nil
			}
		}
	}
	neg, mag, ok := parseInt(n)
	if !ok {
		return nil, badValue("%s is not %s", describeNode(n), aType(want))
	}
	lo, hi := intRange(f.kind)
	var maxNeg uint64
	if lo < 0 {
		maxNeg = uint64(-(lo + 1)) + 1
	}
	if (neg && mag > maxNeg) || (!neg && mag > hi) {
		return nil, badValue("%s is out of range for %s [%d, %d]", describeNode(n), want, lo, hi)
	}
	u := mag
	if neg {
		u = -mag
	}
	switch f.kind {
	case idl.Byte, idl.Char, idl.Uint8:
		return uint8(u), nil
	case idl.Int8:
		return int8(u), nil
	case idl.Int16:
		return int16(u), nil
	case idl.Uint16:
		return uint16(u), nil
	case idl.Int32:
		return int32(u), nil
	case idl.Uint32:
		return uint32(u), nil
	case idl.Int64:
		return int64(u), nil
	}
	return u, nil
}

func stringLen(k idl.Kind, s string) int {
	if k == idl.WString {
		n := 0
		for _, r := range s {
			n++
			if r >= 0x10000 {
				n++
			}
		}
		return n
	}
	return len(s)
}

// stamp returns a builtin_interfaces/msg/Time message for t.
func stamp(t time.Time) Message {
	ns := t.UnixNano()
	return Message{"sec": int32(ns / 1e9), "nanosec": uint32(ns % 1e9)}
}

// scalarText returns the string a scalar gives a string field: its text,
// or for a plain number, bool or null the text Python prints for the value
// PyYAML reads (str(0x10) is "16", str(True) is "True").
func scalarText(n *yaml.Node) string {
	if n.Style != 0 {
		return n.Value
	}
	switch n.Tag {
	case "!!int":
		if neg, mag, ok := parseInt(n); ok {
			if neg {
				return "-" + strconv.FormatUint(mag, 10)
			}
			return strconv.FormatUint(mag, 10)
		}
	case "!!float":
		if x, ok := parseFloat(n); ok {
			return string(appendPyFloat(nil, x))
		}
	case "!!bool":
		if n.Value[0] == 't' || n.Value[0] == 'T' {
			return "True"
		}
		return "False"
	case "!!null":
		return "None"
	}
	return n.Value
}

// parseInt reads an integer scalar: a YAML integer (decimal, 0x, 0o, 0b,
// _ separators), a float with an integral value, or a quoted decimal
// integer as Python's int() reads it.
func parseInt(n *yaml.Node) (neg bool, mag uint64, ok bool) {
	s := n.Value
	switch {
	case n.Tag == "!!float":
		if x, ok := parseFloat(n); ok {
			return floatInt(x)
		}
		return false, 0, false
	case n.Tag == "!!str":
		s = strings.TrimSpace(s)
		if strings.ContainsAny(s, "xXoObB") {
			return false, 0, false // Python's int() reads base 10 only
		}
	case n.Tag != "!!int":
		return false, 0, false
	}
	s = strings.ReplaceAll(s, "_", "")
	if s == "" || strings.HasPrefix(s, "__") {
		return false, 0, false
	}
	switch s[0] {
	case '-':
		neg = true
		s = s[1:]
	case '+':
		s = s[1:]
	}
	if len(s) > 1 && s[0] == '0' && s[1] >= '0' && s[1] <= '9' && n.Tag == "!!int" {
		s = "0o" + s[1:] // YAML 1.1 octal 017
	}
	base := 10
	if n.Tag == "!!int" {
		base = 0
	}
	mag, err := strconv.ParseUint(s, base, 64)
	if err != nil {
		return false, 0, false
	}
	return neg && mag != 0, mag, true
}

// parseFloat reads a float scalar: a YAML int or float (.inf, -.inf, .nan),
// or a quoted number as Python's float() reads it ("1.5", "inf", "nan").
func parseFloat(n *yaml.Node) (float64, bool) {
	s := strings.ReplaceAll(strings.TrimSpace(n.Value), "_", "")
	switch n.Tag {
	case "!!int":
		if neg, mag, ok := parseInt(n); ok {
			if neg {
				return -float64(mag), true
			}
			return float64(mag), true
		}
		return 0, false
	case "!!float", "!!str":
	default:
		return 0, false
	}
	switch strings.ToLower(strings.TrimLeft(s, "+-")) {
	case ".inf", "inf", "infinity":
		if strings.HasPrefix(s, "-") {
			return math.Inf(-1), true
		}
		return math.Inf(1), true
	case ".nan", "nan":
		return math.NaN(), true
	}
	x, err := strconv.ParseFloat(s, 64)
	if err != nil && !isRangeErr(err) {
		return 0, false
	}
	if strings.ContainsAny(s, "xXpP") {
		return 0, false // no hex floats
	}
	return x, true
}

func isRangeErr(err error) bool {
	ne, ok := err.(*strconv.NumError)
	return ok && ne.Err == strconv.ErrRange
}

// describeNode names a YAML node for errors: `"abc"`, `1.5`, "a mapping".
func describeNode(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		if n.Tag == "!!str" {
			return strconv.Quote(n.Value)
		}
		if n.Tag == "!!null" {
			return "null"
		}
		return n.Value
	}
	return "an alias"
}
