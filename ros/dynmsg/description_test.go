package dynmsg_test

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/afor-go/afor/ros"
	"github.com/afor-go/afor/ros/dynmsg"
	"github.com/afor-go/afor/ros/idl"
	"github.com/afor-go/afor/ros/interfaces"
	"github.com/afor-go/afor/ros/msgs/type_description_interfaces"
)

// Every shipped message type, rebuilt from its description alone, hashes
// as its definition does and has the same default values.
func TestTypeFromDescriptionShipped(t *testing.T) {
	reg, err := interfaces.Registry()
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, m := range reg.Messages() {
		name := m.FullName()
		d, err := reg.TypeDescription(name)
		if err != nil {
			t.Fatal(err)
		}
		// Through the wire form, as a node receives it.
		wire := ros.TypeDescriptionToMsg(d)
		payload, err := wire.AppendCDR(nil)
		if err != nil {
			t.Fatal(err)
		}
		var back type_description_interfaces.TypeDescription
		if err := back.UnmarshalCDR(payload); err != nil {
			t.Fatal(err)
		}
		rd, err := ros.TypeDescriptionFromMsg(&back)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		got, err := dynmsg.NewTypeFromDescription(rd)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		want, err := dynmsg.NewType(reg, name)
		if err != nil {
			t.Fatal(err)
		}
		if got.Hash() != want.Hash() || got.Name() != name {
			t.Errorf("%s: %s %s, want %s", name, got.Name(), got.Hash(), want.Hash())
		}
		if !reflect.DeepEqual(got.Zero(), want.Zero()) {
			t.Errorf("%s: zero %v, want %v", name, got.Zero(), want.Zero())
		}
		n++
	}
	if n < 300 {
		t.Errorf("only %d types", n)
	}
}

// field is a FieldDescription shorthand.
func field(name string, typeID, capacity int, nested string) idl.FieldDescription {
	return idl.FieldDescription{Name: name, TypeID: typeID, Capacity: capacity, NestedTypeName: nested}
}

func TestTypeFromDescriptionHostile(t *testing.T) {
	chain := func(n int) *idl.TypeDescription {
		d := &idl.TypeDescription{Type: idl.IndividualTypeDescription{TypeName: "deep/msg/T0", Fields: []idl.FieldDescription{field("next", 1, 0, "deep/msg/T1")}}}
		for i := 1; i < n; i++ {
			f := field("next", 1, 0, fmt.Sprintf("deep/msg/T%d", i+1))
			if i == n-1 {
				f = field("x", 2, 0, "")
			}
			d.Referenced = append(d.Referenced, idl.IndividualTypeDescription{TypeName: fmt.Sprintf("deep/msg/T%d", i), Fields: []idl.FieldDescription{f}})
		}
		return d
	}
	many := &idl.TypeDescription{Type: idl.IndividualTypeDescription{TypeName: "big/msg/Wide"}}
	for i := range dynmsg.MaxDescribedFields + 1 {
		many.Type.Fields = append(many.Type.Fields, field(fmt.Sprintf("f%d", i), 2, 0, ""))
	}
	tooManyTypes := &idl.TypeDescription{Type: idl.IndividualTypeDescription{TypeName: "big/msg/T", Fields: []idl.FieldDescription{field("x", 2, 0, "")}}}
	for i := range dynmsg.MaxDescribedTypes {
		tooManyTypes.Referenced = append(tooManyTypes.Referenced, idl.IndividualTypeDescription{TypeName: fmt.Sprintf("big/msg/R%d", i), Fields: []idl.FieldDescription{field("x", 2, 0, "")}})
	}
	for _, tc := range []struct {
		name string
		d    *idl.TypeDescription
		want string
	}{
		{"nil", nil, "no description"},
		{"deep", chain(dynmsg.MaxDescribedDepth + 5), "nest deeper"},
		{"cycle", &idl.TypeDescription{
			Type:       idl.IndividualTypeDescription{TypeName: "c/msg/A", Fields: []idl.FieldDescription{field("b", 1, 0, "c/msg/B")}},
			Referenced: []idl.IndividualTypeDescription{{TypeName: "c/msg/B", Fields: []idl.FieldDescription{field("a", 1+144, 0, "c/msg/A")}}},
		}, "contains itself"},
		{"self", &idl.TypeDescription{
			Type: idl.IndividualTypeDescription{TypeName: "c/msg/A", Fields: []idl.FieldDescription{field("a", 1+144, 0, "c/msg/A")}},
		}, "contains itself"},
		{"many fields", many, "fields, the limit"},
		{"many types", tooManyTypes, "types, the limit"},
		{"explosion", &idl.TypeDescription{
			Type:       idl.IndividualTypeDescription{TypeName: "x/msg/A", Fields: []idl.FieldDescription{field("b", 1+48, 1<<12, "x/msg/B")}},
			Referenced: []idl.IndividualTypeDescription{{TypeName: "x/msg/B", Fields: []idl.FieldDescription{field("v", 2+48, 1<<12, "")}}},
		}, "more than"},
		{"huge array", &idl.TypeDescription{
			Type: idl.IndividualTypeDescription{TypeName: "x/msg/A", Fields: []idl.FieldDescription{field("v", 2+48, 1<<30, "")}},
		}, "capacity"},
		{"missing", &idl.TypeDescription{
			Type: idl.IndividualTypeDescription{TypeName: "x/msg/A", Fields: []idl.FieldDescription{field("b", 1, 0, "x/msg/Nope")}},
		}, "does not contain"},
		{"type id", &idl.TypeDescription{
			Type: idl.IndividualTypeDescription{TypeName: "x/msg/A", Fields: []idl.FieldDescription{field("v", 13, 0, "")}},
		}, "type id 13"},
		{"type id range", &idl.TypeDescription{
			Type: idl.IndividualTypeDescription{TypeName: "x/msg/A", Fields: []idl.FieldDescription{field("v", 250, 0, "")}},
		}, "unknown type id"},
		{"bad name", &idl.TypeDescription{
			Type: idl.IndividualTypeDescription{TypeName: "x/A", Fields: []idl.FieldDescription{field("v", 2, 0, "")}},
		}, "not a type name"},
		{"bad field", &idl.TypeDescription{
			Type: idl.IndividualTypeDescription{TypeName: "x/msg/A", Fields: []idl.FieldDescription{field("1v", 2, 0, "")}},
		}, "not a field name"},
		{"twice", &idl.TypeDescription{
			Type:       idl.IndividualTypeDescription{TypeName: "x/msg/A", Fields: []idl.FieldDescription{field("v", 2, 0, "")}},
			Referenced: []idl.IndividualTypeDescription{{TypeName: "x/msg/A", Fields: []idl.FieldDescription{field("v", 2, 0, "")}}},
		}, "described twice"},
		{"no field", &idl.TypeDescription{Type: idl.IndividualTypeDescription{TypeName: "x/msg/A"}}, "no field"},
		{"bounded string", &idl.TypeDescription{
			Type: idl.IndividualTypeDescription{TypeName: "x/msg/A", Fields: []idl.FieldDescription{field("s", 21, 0, "")}},
		}, "string capacity"},
	} {
		_, err := dynmsg.NewTypeFromDescription(tc.d)
		if !errors.Is(err, dynmsg.ErrBadDescription) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want an error saying %q", tc.name, err, tc.want)
		}
	}
	// Just within the limits.
	if _, err := dynmsg.NewTypeFromDescription(chain(dynmsg.MaxDescribedDepth)); err != nil {
		t.Errorf("a chain %d deep: %v", dynmsg.MaxDescribedDepth, err)
	}
}

// A type rebuilt from its description decodes what the original encodes.
func TestTypeFromDescriptionDecodes(t *testing.T) {
	reg, err := interfaces.Registry()
	if err != nil {
		t.Fatal(err)
	}
	orig, err := dynmsg.NewType(reg, "sensor_msgs/msg/JointState")
	if err != nil {
		t.Fatal(err)
	}
	d, _ := reg.TypeDescription("sensor_msgs/msg/JointState")
	rebuilt, err := dynmsg.NewTypeFromDescription(d)
	if err != nil {
		t.Fatal(err)
	}
	msg, err := orig.ParseYAML("{name: [a, b], position: [1.5, 2.5], header: {frame_id: base}}")
	if err != nil {
		t.Fatal(err)
	}
	payload, err := orig.Encode(msg)
	if err != nil {
		t.Fatal(err)
	}
	got, err := rebuilt.Decode(payload)
	if err != nil {
		t.Fatal(err)
	}
	a := orig.FormatYAML(msg, dynmsg.FormatOptions{})
	b := rebuilt.FormatYAML(got, dynmsg.FormatOptions{})
	if a != b {
		t.Errorf("decoded\n%s\nwant\n%s", b, a)
	}
}

// FuzzTypeFromDescription decodes a type description message from bytes
// off the wire and builds its type: no panic, bounded work, and a type
// that is built works (its zero value encodes and decodes).
func FuzzTypeFromDescription(f *testing.F) {
	reg, err := interfaces.Registry()
	if err != nil {
		f.Fatal(err)
	}
	for _, name := range []string{"std_msgs/msg/String", "sensor_msgs/msg/Image", "geometry_msgs/msg/PoseStamped",
		"test_msgs/msg/Defaults", "test_msgs/msg/BoundedSequences", "std_srvs/srv/SetBool", "std_msgs/msg/Empty"} {
		d, err := reg.TypeDescription(name)
		if err != nil {
			f.Fatal(err)
		}
		m := ros.TypeDescriptionToMsg(d)
		b, err := m.AppendCDR(nil)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var m type_description_interfaces.TypeDescription
		if err := m.UnmarshalCDR(data); err != nil {
			return
		}
		d, err := ros.TypeDescriptionFromMsg(&m)
		if err != nil {
			return
		}
		typ, err := dynmsg.NewTypeFromDescription(d)
		if err != nil {
			if !errors.Is(err, dynmsg.ErrBadDescription) {
				t.Fatalf("error not matching ErrBadDescription: %v", err)
			}
			return
		}
		payload, err := typ.Encode(typ.Zero())
		if err != nil {
			t.Fatalf("%s: the zero message does not encode: %v", typ.Name(), err)
		}
		if _, err := typ.Decode(payload); err != nil {
			t.Fatalf("%s: the zero message does not decode: %v", typ.Name(), err)
		}
	})
}
