package dynmsg

import (
	"errors"
	"fmt"
	"strings"

	"github.com/afor-go/afor/ros/idl"
)

// Limits of the type descriptions [NewTypeFromDescription] accepts. A
// description comes from another process (a node's
// ~/get_type_description): these bound what it can make this one build.
const (
	// MaxDescribedTypes bounds the types of one description: the type and
	// the types it refers to.
	MaxDescribedTypes = 1024
	// MaxDescribedFields bounds the fields of one type.
	MaxDescribedFields = 1024
	// MaxDescribedDepth bounds how deep types nest in one another.
	MaxDescribedDepth = 32
	// MaxDescribedElements bounds the values of a message at its default
	// (fixed arrays of fixed arrays multiply): what Zero allocates.
	MaxDescribedElements = 1 << 16
	// maxDescribedName bounds type and field names, as
	// type_description_interfaces does (string<=255).
	maxDescribedName = 255
)

// ErrBadDescription is matched by the errors of [NewTypeFromDescription]
// for a description that does not describe a usable type: a name that is
// not one, an unknown field type, a reference to a type it does not
// contain, a type that contains itself, or a limit exceeded. The error
// says which type and field.
var ErrBadDescription = errors.New("dynmsg: invalid type description")

// NewTypeFromDescription builds the type that d describes (its Type, with
// the types of d.Referenced), as a node's ~/get_type_description gives it
// ([ros.TypeDescriptionClient]): a type this process has no definition of.
// The description is validated first, within the Max* limits; a
// description that does not describe a type fails with an error matching
// [ErrBadDescription]. The type's [Type.Hash] is computed from the
// description: compare it with the hash the type is advertised with before
// trusting it.
//
// Default values are read from rosidl's spelling ("True", "1.5",
// "(1, 2)"); one that does not read as its field's type is left out (the
// field defaults to zero): defaults do not take part in the hash.
func NewTypeFromDescription(d *idl.TypeDescription) (*Type, error) {
	if d == nil {
		return nil, fmt.Errorf("%w: no description", ErrBadDescription)
	}
	if n := 1 + len(d.Referenced); n > MaxDescribedTypes {
		return nil, fmt.Errorf("%w: %d types, the limit is %d", ErrBadDescription, n, MaxDescribedTypes)
	}
	byName := make(map[string]*idl.IndividualTypeDescription, 1+len(d.Referenced))
	all := []*idl.IndividualTypeDescription{&d.Type}
	for i := range d.Referenced {
		all = append(all, &d.Referenced[i])
	}
	for _, t := range all {
		if err := checkTypeName(t.TypeName); err != nil {
			return nil, err
		}
		if _, dup := byName[t.TypeName]; dup {
			return nil, fmt.Errorf("%w: %s is described twice", ErrBadDescription, t.TypeName)
		}
		byName[t.TypeName] = t
	}
	reg := idl.NewRegistry()
	for _, t := range all {
		m, err := describedMessage(t, byName)
		if err != nil {
			return nil, err
		}
		if err := reg.AddMessage(m); err != nil {
			return nil, fmt.Errorf("%w: %w", ErrBadDescription, err)
		}
	}
	if err := checkNesting(d.Type.TypeName, byName); err != nil {
		return nil, err
	}
	t, err := NewType(reg, d.Type.TypeName)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrBadDescription, err)
	}
	return t, nil
}

// checkTypeName checks a described type name: "pkg/msg/Name" (or srv,
// action), each part an identifier.
func checkTypeName(name string) error {
	parts := strings.Split(name, "/")
	if len(name) > maxDescribedName || len(parts) != 3 || !isIdentifier(parts[0]) || !isIdentifier(parts[2]) ||
		(parts[1] != "msg" && parts[1] != "srv" && parts[1] != "action") {
		return fmt.Errorf("%w: %q is not a type name such as pkg/msg/Name", ErrBadDescription, name)
	}
	return nil
}

// isIdentifier reports whether s is a letter then letters, digits and
// underscores.
func isIdentifier(s string) bool {
	if s == "" || len(s) > maxDescribedName {
		return false
	}
	for i, c := range []byte(s) {
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z':
		case i > 0 && ('0' <= c && c <= '9' || c == '_'):
		default:
			return false
		}
	}
	return true
}

// describedKinds maps the element type ids of type_description_interfaces
// to the kinds of package idl (char is uint8, as rosidl describes it).
var describedKinds = map[int]idl.Kind{
	1: idl.Nested, 2: idl.Int8, 3: idl.Uint8, 4: idl.Int16, 5: idl.Uint16, 6: idl.Int32, 7: idl.Uint32,
	8: idl.Int64, 9: idl.Uint64, 10: idl.Float32, 11: idl.Float64, 15: idl.Bool, 16: idl.Byte,
	17: idl.String, 18: idl.WString, 21: idl.String, 22: idl.WString,
}

// describedMessage turns one individual description into a message
// definition.
func describedMessage(t *idl.IndividualTypeDescription, byName map[string]*idl.IndividualTypeDescription) (*idl.Message, error) {
	if len(t.Fields) > MaxDescribedFields {
		return nil, fmt.Errorf("%w: %s has %d fields, the limit is %d", ErrBadDescription, t.TypeName, len(t.Fields), MaxDescribedFields)
	}
	parts := strings.Split(t.TypeName, "/")
	m := &idl.Message{Package: parts[0], Namespace: parts[1], Name: parts[2]}
	if len(t.Fields) == 1 && t.Fields[0].Name == idl.PlaceholderField().Name && t.Fields[0].TypeID == 3 {
		return m, nil // an empty message, as its description spells it
	}
	if len(t.Fields) == 0 {
		return nil, fmt.Errorf("%w: %s has no field (an empty message has a placeholder)", ErrBadDescription, t.TypeName)
	}
	seen := make(map[string]bool, len(t.Fields))
	for _, f := range t.Fields {
		bad := func(format string, args ...any) error {
			return fmt.Errorf("%w: field %q of %s: %s", ErrBadDescription, f.Name, t.TypeName, fmt.Sprintf(format, args...))
		}
		if !isIdentifier(f.Name) {
			return nil, bad("not a field name")
		}
		if seen[f.Name] {
			return nil, bad("described twice")
		}
		seen[f.Name] = true
		if f.TypeID <= 0 || f.TypeID >= 4*48 {
			return nil, bad("unknown type id %d", f.TypeID)
		}
		kind, ok := describedKinds[f.TypeID%48]
		if !ok {
			return nil, bad("type id %d is not supported", f.TypeID)
		}
		typ := idl.Type{Kind: kind, Array: []idl.ArrayKind{idl.NotArray, idl.FixedArray, idl.BoundedArray, idl.UnboundedArray}[f.TypeID/48]}
		if typ.Array == idl.FixedArray || typ.Array == idl.BoundedArray {
			if f.Capacity < 1 || f.Capacity > MaxDescribedElements {
				return nil, bad("array capacity %d is not in 1..%d", f.Capacity, MaxDescribedElements)
			}
			typ.Size = f.Capacity
		}
		if id := f.TypeID % 48; id == 21 || id == 22 {
			if f.StringCapacity < 1 || f.StringCapacity > MaxDescribedElements {
				return nil, bad("string capacity %d is not in 1..%d", f.StringCapacity, MaxDescribedElements)
			}
			typ.StringBound = f.StringCapacity
		}
		if kind == idl.Nested {
			if _, ok := byName[f.NestedTypeName]; !ok {
				return nil, bad("refers to %q, which the description does not contain", f.NestedTypeName)
			}
			np := strings.Split(f.NestedTypeName, "/")
			typ.Package, typ.Namespace, typ.Name = np[0], np[1], np[2]
		}
		field := idl.Field{Name: f.Name, Type: typ}
		if f.DefaultValue != "" && kind != idl.Nested {
			if v, ok := describedDefault(typ, f.DefaultValue); ok {
				field.Default = &v
			}
		}
		m.Fields = append(m.Fields, field)
	}
	return m, nil
}

// checkNesting walks the types nested in top: none may contain itself,
// the nesting is at most MaxDescribedDepth deep, and a message at its
// default holds at most MaxDescribedElements values.
func checkNesting(top string, byName map[string]*idl.IndividualTypeDescription) error {
	elems := map[string]int{} // values of a message at its default, per type
	active := map[string]bool{}
	var walk func(name string, depth int) (int, error)
	walk = func(name string, depth int) (int, error) {
		if n, ok := elems[name]; ok {
			return n, nil
		}
		if active[name] {
			return 0, fmt.Errorf("%w: %s contains itself", ErrBadDescription, name)
		}
		if depth > MaxDescribedDepth {
			return 0, fmt.Errorf("%w: types nest deeper than %d levels at %s", ErrBadDescription, MaxDescribedDepth, name)
		}
		active[name] = true
		defer delete(active, name)
		total := 0
		for _, f := range byName[name].Fields {
			n := 1
			if f.TypeID%48 == 1 {
				var err error
				if n, err = walk(f.NestedTypeName, depth+1); err != nil {
					return 0, err
				}
				n++ // the nested message itself
			}
			if f.TypeID/48 == 1 { // a fixed array holds capacity values
				n *= f.Capacity // both at most MaxDescribedElements: no overflow
			}
			if total += n; total > MaxDescribedElements {
				return 0, fmt.Errorf("%w: %s holds more than %d values", ErrBadDescription, name, MaxDescribedElements)
			}
		}
		elems[name] = max(total, 1)
		return elems[name], nil
	}
	_, err := walk(top, 0)
	return err
}

// describedDefault reads a default value as rosidl_generator_type_description
// spells it (Python's str of the value) for type t.
func describedDefault(t idl.Type, s string) (idl.Value, bool) {
	lit := s
	switch {
	case t.IsArray():
		if len(s) < 2 || s[0] != '(' || s[len(s)-1] != ')' {
			return idl.Value{}, false
		}
		inner := strings.TrimSuffix(strings.TrimSpace(s[1:len(s)-1]), ",")
		if t.Kind == idl.Bool {
			inner = strings.NewReplacer("True", "true", "False", "false").Replace(inner)
		}
		lit = "[" + inner + "]"
	case t.Kind == idl.Bool:
		switch s {
		case "True":
			lit = "true"
		case "False":
			lit = "false"
		}
	case t.Kind.IsString():
		lit = `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s) + `"`
	}
	v, err := idl.ParseValue(t, lit)
	if err != nil {
		return idl.Value{}, false
	}
	return v, true
}
