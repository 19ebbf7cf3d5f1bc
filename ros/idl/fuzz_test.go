package idl_test

import (
	"errors"
	"io/fs"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/afor-go/afor/ros/idl"
	"github.com/afor-go/afor/ros/interfaces"
)

// addSeeds adds the shipped interface files with the given extension and
// the differential inputs to the corpus.
func addSeeds(f *testing.F, ext string) {
	f.Helper()
	err := fs.WalkDir(interfaces.FS(), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ext) {
			return err
		}
		b, err := fs.ReadFile(interfaces.FS(), p)
		f.Add(b)
		return err
	})
	if err != nil {
		f.Fatal(err)
	}
	for _, s := range differentialInputs {
		f.Add([]byte(s))
	}
	f.Add([]byte("int32 x\n---\nint32 y\n---\nint32 z\n"))
	f.Add([]byte("string<=5[<=3] names ['a', \"b\\\"c\"]  # comment\r\n---\n"))
}

// checkMessage verifies invariants of a parsed message: valid kinds, names
// and sizes, types that print and parse back to themselves, and default
// values that fit their type.
func checkMessage(t *testing.T, m *idl.Message) {
	t.Helper()
	check := func(name string, typ idl.Type) {
		if typ.Kind == idl.Invalid || typ.Kind > idl.Nested {
			t.Fatalf("%s: kind %v", name, typ.Kind)
		}
		if typ.IsArray() != (typ.Array != idl.NotArray) || (typ.Array == idl.UnboundedArray) != (typ.IsArray() && typ.Size == 0) {
			t.Fatalf("%s: array %v size %d", name, typ.Array, typ.Size)
		}
		back, err := idl.ParseType(typ.String(), m.Package)
		if err != nil || back != typ {
			t.Fatalf("%s: %s parses back as %+v, %v", name, typ, back, err)
		}
	}
	for _, f := range m.Fields {
		check(f.Name, f.Type)
		if f.Default != nil {
			if f.Type.IsArray() && (f.Type.Array == idl.FixedArray && len(f.Default.Elems) != f.Type.Size ||
				f.Type.Array == idl.BoundedArray && len(f.Default.Elems) > f.Type.Size) {
				t.Fatalf("%s: %d default elements for %s", f.Name, len(f.Default.Elems), f.Type)
			}
			v, err := idl.ParseValue(f.Type, f.Default.Literal)
			if err != nil || v.Literal != f.Default.Literal || len(v.Elems) != len(f.Default.Elems) {
				t.Fatalf("%s: default %q parses back as %+v, %v", f.Name, f.Default.Literal, v, err)
			}
		}
	}
	for _, c := range m.Constants {
		check(c.Name, c.Type)
		if c.Type.IsArray() || c.Type.Kind == idl.Nested || c.Type.StringBound != 0 {
			t.Fatalf("constant %s of type %s", c.Name, c.Type)
		}
	}
	// Hashing must fail cleanly on unresolved types, never panic.
	r := idl.NewRegistry()
	if err := r.AddMessage(m); err != nil {
		t.Fatal(err)
	}
	if _, err := r.TypeHash(m.FullName()); err != nil && !errors.Is(err, idl.ErrUnknownType) {
		t.Fatalf("TypeHash: %v", err)
	}
	_ = r.Check()
}

// sameMessage checks that two parses agree on everything but positions.
func sameMessage(t *testing.T, a, b *idl.Message) {
	t.Helper()
	if len(a.Fields) != len(b.Fields) || len(a.Constants) != len(b.Constants) {
		t.Fatalf("%d fields and %d constants became %d and %d", len(a.Fields), len(a.Constants), len(b.Fields), len(b.Constants))
	}
	for i, f := range a.Fields {
		g := b.Fields[i]
		if f.Name != g.Name || f.Type != g.Type || (f.Default == nil) != (g.Default == nil) ||
			f.Default != nil && !reflect.DeepEqual(*f.Default, *g.Default) && !hasNaN(*f.Default) {
			t.Fatalf("field %+v became %+v", f, g)
		}
	}
	for i, c := range a.Constants {
		g := b.Constants[i]
		if c.Name != g.Name || c.Type != g.Type || !reflect.DeepEqual(c.Value, g.Value) && !hasNaN(c.Value) {
			t.Fatalf("constant %+v became %+v", c, g)
		}
	}
}

func hasNaN(v idl.Value) bool {
	if math.IsNaN(v.Float) {
		return true
	}
	for _, e := range v.Elems {
		if hasNaN(e) {
			return true
		}
	}
	return false
}

func checkError(t *testing.T, err error) {
	t.Helper()
	if !errors.Is(err, idl.ErrSyntax) && !errors.Is(err, idl.ErrTooLarge) {
		t.Fatalf("error %v is neither ErrSyntax nor ErrTooLarge", err)
	}
	var se *idl.SyntaxError
	if errors.As(err, &se) && (se.Pos.Line < 1 || se.Pos.Col < 1) {
		t.Fatalf("error position %s", se.Pos)
	}
}

func FuzzParseMessage(f *testing.F) {
	addSeeds(f, ".msg")
	f.Fuzz(func(t *testing.T, src []byte) {
		m, err := idl.ParseMessage("pkg", "Msg", src)
		if err != nil {
			checkError(t, err)
			return
		}
		checkMessage(t, m)
		back, err := idl.ParseMessage("pkg", "Msg", m.Format())
		if err != nil {
			t.Fatalf("formatted message does not parse: %v\n%s", err, m.Format())
		}
		sameMessage(t, m, back)
	})
}

func FuzzParseService(f *testing.F) {
	addSeeds(f, ".srv")
	f.Fuzz(func(t *testing.T, src []byte) {
		s, err := idl.ParseService("pkg", "Srv", src)
		if err != nil {
			checkError(t, err)
			return
		}
		checkMessage(t, s.Request)
		checkMessage(t, s.Response)
		back, err := idl.ParseService("pkg", "Srv", s.Format())
		if err != nil {
			t.Fatalf("formatted service does not parse: %v\n%s", err, s.Format())
		}
		sameMessage(t, s.Request, back.Request)
		sameMessage(t, s.Response, back.Response)
		r := idl.NewRegistry()
		if err := r.AddService(s); err != nil {
			t.Fatal(err)
		}
		if _, err := r.TypeHash(s.FullName()); err != nil && !errors.Is(err, idl.ErrUnknownType) {
			t.Fatal(err)
		}
	})
}

func FuzzParseAction(f *testing.F) {
	addSeeds(f, ".action")
	f.Fuzz(func(t *testing.T, src []byte) {
		a, err := idl.ParseAction("pkg", "Act", src)
		if err != nil {
			checkError(t, err)
			return
		}
		checkMessage(t, a.Goal)
		checkMessage(t, a.Result)
		checkMessage(t, a.Feedback)
		back, err := idl.ParseAction("pkg", "Act", a.Format())
		if err != nil {
			t.Fatalf("formatted action does not parse: %v\n%s", err, a.Format())
		}
		sameMessage(t, a.Goal, back.Goal)
		sameMessage(t, a.Result, back.Result)
		sameMessage(t, a.Feedback, back.Feedback)
		r := idl.NewRegistry()
		if err := r.AddAction(a); err != nil {
			t.Fatal(err)
		}
		if _, err := r.TypeHash(a.FullName()); err != nil && !errors.Is(err, idl.ErrUnknownType) {
			t.Fatal(err)
		}
	})
}
