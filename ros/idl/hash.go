package idl

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strconv"
)

// TypeID returns the type_id of t in a ROS 2 type description
// (type_description_interfaces/msg/FieldType): the element's id (NESTED 1,
// int8 2 ... uint64 9, float32 10, float64 11, bool 15, byte 16, string 17,
// wstring 18, bounded string 21, bounded wstring 22; char is uint8, 3),
// plus 48 for a fixed array, 96 for a bounded and 144 for an unbounded
// sequence.
func TypeID(t Type) int {
	var id int
	switch t.Kind {
	case Nested:
		id = 1
	case Int8:
		id = 2
	case Uint8, Char:
		id = 3
	case Int16:
		id = 4
	case Uint16:
		id = 5
	case Int32:
		id = 6
	case Uint32:
		id = 7
	case Int64:
		id = 8
	case Uint64:
		id = 9
	case Float32:
		id = 10
	case Float64:
		id = 11
	case Bool:
		id = 15
	case Byte:
		id = 16
	case String:
		id = 17
		if t.StringBound > 0 {
			id = 21
		}
	case WString:
		id = 18
		if t.StringBound > 0 {
			id = 22
		}
	default:
		return 0
	}
	switch t.Array {
	case FixedArray:
		id += 48
	case BoundedArray:
		id += 96
	case UnboundedArray:
		id += 144
	}
	return id
}

// describedFields returns the name and the fields of the individual type
// description of a registered type: a message's fields (or the placeholder
// field of an empty message), a service's request_message,
// response_message and event_message, an action's six members. Called with
// r.mu held.
func (r *Registry) describedFields(name string) ([]Field, bool) {
	if m, ok := r.msgs[name]; ok {
		if len(m.Fields) == 0 {
			return []Field{PlaceholderField()}, true
		}
		return m.Fields, true
	}
	if s, ok := r.srvs[name]; ok {
		ref := func(n string) Type {
			return Type{Kind: Nested, Package: s.Package, Namespace: s.Namespace, Name: n}
		}
		return []Field{
			{Name: "request_message", Type: ref(s.Request.Name)},
			{Name: "response_message", Type: ref(s.Response.Name)},
			{Name: "event_message", Type: ref(s.Name + "_Event")},
		}, true
	}
	if a, ok := r.actions[name]; ok {
		ref := func(n string) Type {
			return Type{Kind: Nested, Package: a.Package, Namespace: "action", Name: n}
		}
		return []Field{
			{Name: "goal", Type: ref(a.Goal.Name)},
			{Name: "result", Type: ref(a.Result.Name)},
			{Name: "feedback", Type: ref(a.Feedback.Name)},
			{Name: "send_goal_service", Type: ref(a.Name + "_SendGoal")},
			{Name: "get_result_service", Type: ref(a.Name + "_GetResult")},
			{Name: "feedback_message", Type: ref(a.Name + "_FeedbackMessage")},
		}, true
	}
	return nil, false
}

// TypeDescription is a type with every type it refers to, transitively, as
// in type_description_interfaces/msg/TypeDescription: what RIHS01 hashes
// and what a node's GetTypeDescription service returns.
type TypeDescription struct {
	// Type describes the type itself.
	Type IndividualTypeDescription
	// Referenced describes every type Type refers to, directly or not,
	// once each, sorted by name.
	Referenced []IndividualTypeDescription
}

// IndividualTypeDescription describes one type without its references
// (type_description_interfaces/msg/IndividualTypeDescription).
type IndividualTypeDescription struct {
	// TypeName is the full name, "pkg/msg/Name".
	TypeName string
	// Fields in declaration order; an empty message has the placeholder
	// field (see [PlaceholderField]), a service and an action their
	// synthesized members.
	Fields []FieldDescription
}

// FieldDescription describes one field
// (type_description_interfaces/msg/Field and FieldType).
type FieldDescription struct {
	// Name is the field name.
	Name string
	// TypeID is the FieldType id, see [TypeID].
	TypeID int
	// Capacity is N for T[N] and T[<=N], else 0.
	Capacity int
	// StringCapacity is N for string<=N and wstring<=N elements, else 0.
	StringCapacity int
	// NestedTypeName is "pkg/msg/Name" for nested types, else "".
	NestedTypeName string
	// DefaultValue is the default value as rosidl_generator_type_description
	// spells it (Python's str of the value: "True", "1.0", "(1, 2)",
	// "('a', 'b')"), "" without a default. Strings that contain
	// backslashes are given as parsed, which may differ from rosidl's
	// double unescaping.
	DefaultValue string
}

// TypeDescription returns the type description of a registered message,
// service or action (fullName as for [Registry.Message]). It fails with
// [ErrUnknownType] when the type or one it refers to is missing.
func (r *Registry) TypeDescription(fullName string) (*TypeDescription, error) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return r.typeDescription(fullName)
}

func (r *Registry) typeDescription(fullName string) (*TypeDescription, error) {
	top, err := r.canonical(fullName)
	if err != nil {
		return nil, err
	}
	fields, _ := r.describedFields(top)
	// Collect the referenced types, transitively.
	seen := make(map[string][]Field)
	queue := nestedNames(nil, fields)
	for len(queue) > 0 {
		n := queue[len(queue)-1]
		queue = queue[:len(queue)-1]
		if _, ok := seen[n]; ok {
			continue
		}
		fs, ok := r.describedFields(n)
		if !ok {
			return nil, fmt.Errorf("%w: %s (referenced by %s)", ErrUnknownType, n, top)
		}
		seen[n] = fs
		queue = nestedNames(queue, fs)
	}
	refs := make([]string, 0, len(seen))
	for n := range seen {
		refs = append(refs, n)
	}
	slices.Sort(refs)
	d := &TypeDescription{
		Type:       describe(top, fields),
		Referenced: make([]IndividualTypeDescription, len(refs)),
	}
	for i, n := range refs {
		d.Referenced[i] = describe(n, seen[n])
	}
	return d, nil
}

func describe(name string, fields []Field) IndividualTypeDescription {
	d := IndividualTypeDescription{TypeName: name, Fields: make([]FieldDescription, len(fields))}
	for i, f := range fields {
		fd := FieldDescription{
			Name:           f.Name,
			TypeID:         TypeID(f.Type),
			StringCapacity: f.Type.StringBound,
			NestedTypeName: f.Type.FullName(),
		}
		if f.Type.Array == FixedArray || f.Type.Array == BoundedArray {
			fd.Capacity = f.Type.Size
		}
		if f.Default != nil {
			fd.DefaultValue = pyDefault(f.Type, *f.Default)
		}
		d.Fields[i] = fd
	}
	return d
}

func nestedNames(dst []string, fields []Field) []string {
	for _, f := range fields {
		if f.Type.Kind == Nested {
			dst = append(dst, f.Type.FullName())
		}
	}
	return dst
}

// HashJSON returns the description in the exact form that RIHS01 hashes:
// without default values, keys in declaration order, serialized as Python's
// json.dumps does with separators ", " and ": " and ensure_ascii.
func (d *TypeDescription) HashJSON() []byte {
	n := 256
	for _, t := range d.Referenced {
		n += 64 + 160*len(t.Fields)
	}
	b := make([]byte, 0, n+160*len(d.Type.Fields))
	b = append(b, `{"type_description": `...)
	b = d.Type.appendJSON(b)
	b = append(b, `, "referenced_type_descriptions": [`...)
	for i, t := range d.Referenced {
		if i > 0 {
			b = append(b, ", "...)
		}
		b = t.appendJSON(b)
	}
	return append(b, "]}"...)
}

// Hash returns the RIHS01 hash of the description: "RIHS01_" followed by
// the hex SHA-256 of [TypeDescription.HashJSON].
func (d *TypeDescription) Hash() string {
	sum := sha256.Sum256(d.HashJSON())
	return "RIHS01_" + hex.EncodeToString(sum[:])
}

func (t *IndividualTypeDescription) appendJSON(b []byte) []byte {
	b = append(b, `{"type_name": `...)
	b = appendJSONString(b, t.TypeName)
	b = append(b, `, "fields": [`...)
	for i, f := range t.Fields {
		if i > 0 {
			b = append(b, ", "...)
		}
		b = append(b, `{"name": `...)
		b = appendJSONString(b, f.Name)
		b = append(b, `, "type": {"type_id": `...)
		b = strconv.AppendInt(b, int64(f.TypeID), 10)
		b = append(b, `, "capacity": `...)
		b = strconv.AppendInt(b, int64(f.Capacity), 10)
		b = append(b, `, "string_capacity": `...)
		b = strconv.AppendInt(b, int64(f.StringCapacity), 10)
		b = append(b, `, "nested_type_name": `...)
		b = appendJSONString(b, f.NestedTypeName)
		b = append(b, "}}"...)
	}
	return append(b, "]}"...)
}

// TypeDescriptionJSON returns [TypeDescription.HashJSON] of the type
// description of a registered message, service or action.
func (r *Registry) TypeDescriptionJSON(fullName string) ([]byte, error) {
	d, err := r.TypeDescription(fullName)
	if err != nil {
		return nil, err
	}
	return d.HashJSON(), nil
}

// appendJSONString appends s as a JSON string the way Python's json.dumps
// does with ensure_ascii=True.
func appendJSONString(b []byte, s string) []byte {
	const hexDigits = "0123456789abcdef"
	b = append(b, '"')
	for _, r := range s {
		switch {
		case r == '"':
			b = append(b, `\"`...)
		case r == '\\':
			b = append(b, `\\`...)
		case r == '\n':
			b = append(b, `\n`...)
		case r == '\r':
			b = append(b, `\r`...)
		case r == '\t':
			b = append(b, `\t`...)
		case r == '\b':
			b = append(b, `\b`...)
		case r == '\f':
			b = append(b, `\f`...)
		case r >= 0x20 && r < 0x7f:
			b = append(b, byte(r))
		default:
			units := []rune{r}
			if r > 0xffff {
				r -= 0x10000
				units = []rune{0xd800 + (r>>10)&0x3ff, 0xdc00 + r&0x3ff}
			}
			for _, u := range units {
				b = append(b, '\\', 'u', hexDigits[u>>12&0xf], hexDigits[u>>8&0xf], hexDigits[u>>4&0xf], hexDigits[u&0xf])
			}
		}
	}
	return append(b, '"')
}

// TypeHash returns the RIHS01 type hash of a registered message, service
// or action, "RIHS01_" followed by 64 hex digits: the SHA-256 of
// [Registry.TypeDescriptionJSON]. Hashes are cached until the registry
// changes.
func (r *Registry) TypeHash(fullName string) (string, error) {
	r.mu.RLock()
	h, ok := r.hashes[fullName]
	r.mu.RUnlock()
	if ok {
		return h, nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	d, err := r.typeDescription(fullName)
	if err != nil {
		return "", err
	}
	h = d.Hash()
	r.hashes[fullName] = h
	return h, nil
}
