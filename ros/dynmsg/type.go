package dynmsg

import (
	"fmt"

	"github.com/afor-go/afor/ros/idl"
)

// Message is one message value: field name to value, with the Go types
// listed in the package documentation. The field order is that of the
// message definition, which the [Type] keeps.
type Message = map[string]any

// Type is a resolved message type: its definition and those of every
// message nested in it, ready to convert values. It is immutable and safe
// for concurrent use.
type Type struct {
	name string
	hash string
	msg  *msgType
}

// msgType is the compiled form of one message definition.
type msgType struct {
	name   string // full name, "std_msgs/msg/String"
	fields []field
	index  map[string]int // field name -> position in fields
	def    *idl.Message
	// minSize is a lower bound of the encoded size in bytes (at least 1),
	// used to check sequence lengths read off the wire before allocating.
	minSize int
}

// field is one compiled field.
type field struct {
	name   string
	typ    idl.Type      // as declared
	kind   idl.Kind      // element kind
	array  idl.ArrayKind // not, fixed, bounded or unbounded
	size   int           // N of T[N] and T[<=N], else 0
	sbound int           // N of string<=N, else 0
	nested *msgType      // element type of Nested fields
	def    any           // default value (its Go type), nil when none
}

// bound returns the sequence bound to check (0 means none).
func (f *field) bound() int {
	if f.array == boundedArray {
		return f.size
	}
	return 0
}

// Short names for the array kinds.
const (
	notArray     = idl.NotArray
	fixedArray   = idl.FixedArray
	boundedArray = idl.BoundedArray
)

// NewType resolves the message type name ("std_msgs/msg/String" or
// "std_msgs/String", or a part of a service or action such as
// "example_interfaces/srv/AddTwoInts_Request") in reg. It fails with
// [ErrUnknownType] when reg does not hold the type or a type nested in it.
func NewType(reg *idl.Registry, name string) (*Type, error) {
	m, err := reg.Message(name)
	if err != nil {
		return nil, err
	}
	c := compiler{reg: reg, done: map[string]*msgType{}, active: map[string]bool{}}
	mt, err := c.compile(m)
	if err != nil {
		return nil, err
	}
	hash, err := reg.TypeHash(m.FullName())
	if err != nil {
		return nil, err
	}
	return &Type{name: m.FullName(), hash: hash, msg: mt}, nil
}

// compiler compiles a message and the messages nested in it once each.
type compiler struct {
	reg    *idl.Registry
	done   map[string]*msgType
	active map[string]bool
}

func (c *compiler) compile(m *idl.Message) (*msgType, error) {
	name := m.FullName()
	if mt, ok := c.done[name]; ok {
		return mt, nil
	}
	if c.active[name] {
		return nil, fmt.Errorf("%w: %s contains itself", idl.ErrCycle, name)
	}
	c.active[name] = true
	defer delete(c.active, name)
	mt := &msgType{name: name, def: m, index: make(map[string]int, len(m.Fields))}
	for _, f := range m.Fields {
		cf := field{
			name:   f.Name,
			typ:    f.Type,
			kind:   f.Type.Kind,
			array:  f.Type.Array,
			size:   f.Type.Size,
			sbound: f.Type.StringBound,
		}
		if f.Type.Kind == idl.Nested {
			nm, err := c.reg.Resolve(f.Type)
			if err != nil {
				return nil, fmt.Errorf("field %s of %s: %w", f.Name, name, err)
			}
			if cf.nested, err = c.compile(nm); err != nil {
				return nil, err
			}
		}
		if f.Default != nil {
			cf.def = defaultValue(&cf, *f.Default)
		}
		mt.index[f.Name] = len(mt.fields)
		mt.fields = append(mt.fields, cf)
	}
	mt.minSize = minSize(mt)
	c.done[name] = mt
	return mt, nil
}

// minSize returns a lower bound of the encoded size of a value of mt,
// ignoring alignment, and at least 1.
func minSize(mt *msgType) int {
	if len(mt.fields) == 0 {
		return 1 // the placeholder uint8
	}
	n := 0
	for i := range mt.fields {
		f := &mt.fields[i]
		var elem int
		switch {
		case f.kind == idl.Nested:
			elem = f.nested.minSize
		case f.kind.IsString():
			elem = 4
		default:
			elem = f.kind.Size()
		}
		switch f.array {
		case notArray:
			n += elem
		case fixedArray:
			n += elem * f.size
		default:
			n += 4
		}
		if n > 1<<30 {
			return 1 << 30
		}
	}
	return max(n, 1)
}

// Name returns the full name of the type, "std_msgs/msg/String".
func (t *Type) Name() string { return t.name }

// Hash returns the RIHS01 type hash, "RIHS01_" and 64 hex digits.
func (t *Type) Hash() string { return t.hash }

// Fields returns the names of the fields of the type, in definition order.
func (t *Type) Fields() []string {
	out := make([]string, len(t.msg.fields))
	for i := range t.msg.fields {
		out[i] = t.msg.fields[i].name
	}
	return out
}

// Definition returns the parsed definition of the type. It is shared: do
// not modify it.
func (t *Type) Definition() *idl.Message { return t.msg.def }
