package idl_test

import (
	"bytes"
	"encoding/json"
	"math"
	"math/rand/v2"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"testing"
	"unicode/utf8"

	"github.com/afor-go/afor/internal/peers"
	"github.com/afor-go/afor/ros/idl"
)

// differentialInputs are .msg texts whose acceptance and parse must agree
// with rosidl_adapter's parser: edge cases of names, types, numbers,
// strings and arrays. (Bare "Header" and the ROS 1 "time"/"duration" are
// left out: we resolve and reject them on purpose.)
var differentialInputs = []string{
	"int32 x", "int32 x 5", "int32  x", "int32 x  5", "int32\tx\t5", " int32 x", "int32",
	"int32 X", "int32 x_", "int32 x__y", "int32 _x", "int32 x1_y2", "int32 x-y",
	"int32 A=1", "int32 A = 1", "int32 A =1", "int32 A1_B2=3", "int32 A_=1", "int32 a=1", "int32 A__B=1",
	"int32 x 0x10", "int32 x 0X1f", "int32 x 0o17", "int32 x 0b101", "int32 x +5", "int32 x -0",
	"int32 x 1_000", "int32 x 0_1", "int32 x 010", "int32 x 00", "int32 x 1__0", "int32 x 1_",
	"int32 x 0x_1f", "int32 x 1.0", "int32 x 2147483648", "int32 x -2147483648", "int32 x -2147483649",
	"uint64 x 18446744073709551615", "uint64 x 18446744073709551616", "uint64 x -1", "uint64 x -0",
	"int64 x -9223372036854775808", "int64 x -9223372036854775809", "int64 x 9223372036854775807",
	"int8 x 127", "int8 x -129", "uint8 x 255", "uint16 x 65536", "uint32 x 4294967295",
	"byte x 255", "byte x 256", "byte x -1", "byte x 0x10", "char x 65", "char x A", "char x -1",
	"bool x true", "bool x TRUE", "bool x 1", "bool x 0", "bool x False", "bool x yes", "bool x 2",
	"float64 x 1", "float64 x 1.5", "float64 x .5", "float64 x 5.", "float64 x -1e-3", "float64 x 1E3",
	"float64 x inf", "float64 x -Infinity", "float64 x nan", "float64 x 1_000.5", "float64 x 1e400",
	"float64 x 0x1p3", "float64 x 1,5", "float64 x abc", "float32 x 3.4e39", "float64 x +.5e-2",
	"string x", "string x hello", "string x hello world", "string x 'quoted'", "string x \"dq\"",
	"string x 'it\\'s'", "string x \"say \\\"hi\\\"\"", "string x 'a'b'", "string x '", "string x \"",
	"string x 'unclosed", "string x a#b", "string x 'a#b'", "string x a=b", "string A=", "string A=x y",
	"string A='q'", "string A=\"\"", "string<=3 x abc", "string<=3 x abcd", "string<=3 x 'ab'",
	"string<=1 x é", "string<=1 x éé", "wstring x 'w'", "wstring<=2 x abc", "string<=0 x", "string<=-1 x",
	"string<= x", "string<=3 A=x", "wstring A=w",
	"int32[3] x", "int32[0] x", "int32[-1] x", "int32[<=3] x", "int32[<=0] x", "int32[] x", "int32[abc] x",
	"int32] x", "int32[ x", "int32[3][2] x", "int32[+3] x",
	"int32[3] x [1, 2, 3]", "int32[3] x [1,2]", "int32[3] x [1, 2, 3, 4]", "int32[<=2] x [1, 2, 3]",
	"int32[<=2] x []", "int32[] x []", "int32[] x [ ]", "int32[] x [1,]", "int32[] x [,1]", "int32[] x 1",
	"int32[] x [1, 2", "int32[] x 1, 2]", "float64[] x [1.5, -2, inf]", "bool[] x [true, 0]",
	"string[] x []", "string[] x [a, b]", "string[] x ['a, b', \"c\"]", "string[] x [ 'a' , 'b' ]",
	"string[] x ['a',]", "string[] x ['a', ]", "string[] x ['a' 'b']", "string[] x ['a'b]", "string[] x ['a\\'b\\'c']", "string[] x ['\\'\\'x']", "string[] x [,'a']", "string[] x ['a]", "string[] x [' x ']", "string[] x [a b]",
	"string<=1[] x ['ab']", "string[2] x ['a']", "string[<=1] x ['a', 'b']", "string[] x ['it\\'s']",
	"int32[3] A=1", "int32 A=[1]",
	"Foo x", "pkg/Foo x", "other/Foo[] x", "other/Foo[<=2] x", "Foo_Request x", "Sample_Foo x",
	"foo x", "pkg/foo x", "Pkg/Foo x", "pkg_/Foo x", "p__kg/Foo x", "a/b/C x", "/Foo x", "pkg/ x",
	"Foo x 1", "Foo[] x []", "Foo A=1", "Foo_Bar x",
	"int32 x\nint32 x", "int32 A=1\nint32 A=2", "int32 x\nint32 X=1", "int32 x # c", "# c\nint32 x",
	"int32 x\n  # indented\nint32 y", "int32 x\vint32 y", "int32 x\rint32 y", "int32 x\r\nint32 y",
	"int32 x\u2028int32 y", "int32 x\u0085int32 y", "int32 \u00a0x", "int32 x\u3000", "int32 x 5\u2003",
	"int32 x\x1fint32 y", "int32\u00a0x", "string x \u00a0a\u00a0", "int32 x\n\n\nint32 y 3", "int32 x 5 # five", "int32 x 5 6",
}

func canonicalValue(t idl.Type, v idl.Value) any {
	if t.IsArray() {
		out := make([]any, len(v.Elems))
		for i, e := range v.Elems {
			out[i] = canonicalValue(t.Elem(), e)
		}
		return out
	}
	switch k := t.Kind; {
	case k == idl.Bool:
		return v.Bool
	case k.IsSigned():
		return map[string]any{"i": strconv.FormatInt(v.Int, 10)}
	case k.IsInteger():
		return map[string]any{"i": strconv.FormatUint(v.Uint, 10)}
	case k.IsFloat():
		return map[string]any{"f": v.Float}
	}
	return map[string]any{"s": v.Str}
}

// normalize turns the floats that Python spelled in hex into float64s.
func normalize(t *testing.T, v any) any {
	switch v := v.(type) {
	case []any:
		for i := range v {
			v[i] = normalize(t, v[i])
		}
	case map[string]any:
		if s, ok := v["f"].(string); ok {
			f, err := strconv.ParseFloat(s, 64)
			if err != nil {
				t.Fatalf("python float %q: %v", s, err)
			}
			v["f"] = f
		}
	}
	return v
}

func sameValue(a, b any) bool {
	if fa, ok := a.(map[string]any); ok {
		if fb, ok := b.(map[string]any); ok {
			x, xok := fa["f"].(float64)
			y, yok := fb["f"].(float64)
			if xok && yok {
				return x == y || math.IsNaN(x) && math.IsNaN(y)
			}
		}
	}
	if la, ok := a.([]any); ok {
		lb, ok := b.([]any)
		if !ok || len(la) != len(lb) {
			return false
		}
		for i := range la {
			if !sameValue(la[i], lb[i]) {
				return false
			}
		}
		return true
	}
	return reflect.DeepEqual(a, b)
}

// TestDifferentialParser runs every input through rosidl_adapter's parser
// and ours: both must accept or both reject, and accepted inputs must give
// the same field and constant types, names and values.
func TestDifferentialParser(t *testing.T) {
	py := peers.Python(t, "rosidl_adapter")
	accepted := differential(t, py, differentialInputs)
	t.Logf("%d inputs, %d accepted by both, the rest rejected by both", len(differentialInputs), accepted)
}

// TestDifferentialMutations does the same for random mutations of the
// differential inputs (a fixed seed, so every run checks the same inputs).
func TestDifferentialMutations(t *testing.T) {
	py := peers.Python(t, "rosidl_adapter")
	const alphabet = " \t\n#=,[]<>/'\"\\_-+.0123456789eExaAbB:"
	rng := rand.New(rand.NewPCG(1, 2))
	inputs := make([]string, 0, 3000)
	for len(inputs) < cap(inputs) {
		b := []byte(differentialInputs[rng.IntN(len(differentialInputs))])
		for range 1 + rng.IntN(3) {
			i := rng.IntN(len(b) + 1)
			c := alphabet[rng.IntN(len(alphabet))]
			switch op := rng.IntN(3); {
			case op == 0 || len(b) == 0:
				b = append(b[:i], append([]byte{c}, b[i:]...)...)
			case op == 1 && i < len(b):
				b = append(b[:i], b[i+1:]...)
			case i < len(b):
				b[i] = c
			}
		}
		if utf8.Valid(b) { // rosidl reads files as UTF-8: invalid ones fail there too
			inputs = append(inputs, string(b))
		}
	}
	accepted := differential(t, py, inputs)
	t.Logf("%d mutated inputs, %d accepted by both, the rest rejected by both", len(inputs), accepted)
}

// differentialInput is one .msg, .srv or .action text.
type differentialInput struct {
	kind string // "msg", "srv" or "action"
	text string
}

// parseKind parses an input with our parser and returns its messages.
func parseKind(in differentialInput) ([]*idl.Message, error) {
	switch in.kind {
	case "srv":
		s, err := idl.ParseService("pkg", "Srv", []byte(in.text))
		if err != nil {
			return nil, err
		}
		return []*idl.Message{s.Request, s.Response}, nil
	case "action":
		a, err := idl.ParseAction("pkg", "Act", []byte(in.text))
		if err != nil {
			return nil, err
		}
		return []*idl.Message{a.Goal, a.Result, a.Feedback}, nil
	}
	m, err := idl.ParseMessage("pkg", "Msg", []byte(in.text))
	if err != nil {
		return nil, err
	}
	return []*idl.Message{m}, nil
}

// differential compares rosidl's and our parse of each .msg text and
// returns how many both accepted.
func differential(t *testing.T, py string, texts []string) int {
	t.Helper()
	inputs := make([]differentialInput, len(texts))
	for i, s := range texts {
		inputs[i] = differentialInput{"msg", s}
	}
	return differentialKinds(t, py, inputs)
}

// differentialKinds compares rosidl's and our parse of each input and
// returns how many both accepted.
func differentialKinds(t *testing.T, py string, inputs []differentialInput) int {
	t.Helper()
	pairs := make([][2]string, len(inputs))
	for i, in := range inputs {
		pairs[i] = [2]string{in.kind, in.text}
	}
	in, err := json.Marshal(pairs)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.CommandContext(t.Context(), py, filepath.Join("testdata", "rosidl_hashes.py"), "parse")
	cmd.Stdin = bytes.NewReader(in)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("rosidl_hashes.py parse: %v\n%s", err, stderr.String())
	}
	type part struct {
		Fields    [][]any `json:"fields"`
		Constants [][]any `json:"constants"`
	}
	var results []struct {
		Error string `json:"error"`
		Parts []part `json:"parts"`
	}
	if err := json.Unmarshal(out, &results); err != nil {
		t.Fatal(err)
	}
	if len(results) != len(inputs) {
		t.Fatalf("%d results for %d inputs", len(results), len(inputs))
	}
	accepted := 0
	for i, in := range inputs {
		want := results[i]
		msgs, err := parseKind(in)
		if (err == nil) != (want.Error == "") {
			t.Errorf("%s %q: rosidl error %q, ours %v", in.kind, in.text, want.Error, err)
			continue
		}
		if err != nil {
			continue
		}
		accepted++
		if len(msgs) != len(want.Parts) {
			t.Errorf("%s %q: %d parts, rosidl %d", in.kind, in.text, len(msgs), len(want.Parts))
			continue
		}
		for p, m := range msgs {
			w := want.Parts[p]
			var got [][]any
			for _, f := range m.Fields {
				var def any
				if f.Default != nil {
					def = canonicalValue(f.Type, *f.Default)
				}
				got = append(got, []any{f.Type.String(), f.Name, def})
			}
			var gotC [][]any
			for _, c := range m.Constants {
				gotC = append(gotC, []any{c.Type.String(), c.Name, canonicalValue(c.Type, c.Value)})
			}
			if len(got) != len(w.Fields) || len(gotC) != len(w.Constants) {
				t.Errorf("%s %q part %d: rosidl %v %v, ours %v %v", in.kind, in.text, p, w.Fields, w.Constants, got, gotC)
				continue
			}
			for j := range got {
				wf := w.Fields[j]
				if got[j][0] != wf[0] || got[j][1] != wf[1] || !sameValue(got[j][2], normalize(t, wf[2])) {
					t.Errorf("%s %q part %d: field %d: rosidl %v, ours %v", in.kind, in.text, p, j, wf, got[j])
				}
			}
			for j := range gotC {
				wc := w.Constants[j]
				if gotC[j][0] != wc[0] || gotC[j][1] != wc[1] || !sameValue(gotC[j][2], normalize(t, wc[2])) {
					t.Errorf("%s %q part %d: constant %d: rosidl %v, ours %v", in.kind, in.text, p, j, wc, gotC[j])
				}
			}
		}
	}
	return accepted
}

// TestDifferentialSeparators checks how services and actions are split
// into their messages.
func TestDifferentialSeparators(t *testing.T) {
	py := peers.Python(t, "rosidl_adapter")
	var inputs []differentialInput
	for _, text := range []string{
		"", "---", "---\n", "\n---\n\n", "int32 a\n---\nint32 b", "int32 a\n---\nint32 b\n---\nint32 c",
		"--- ", " ---", "----", "int32 a\r\n---\r\nint32 b\r\n", "int32 a\r---\rint32 b", "int32 a\v---\vint32 b",
		"---\n---", "---\n---\n---", "# c\n---\n# d\n", "int32 a # ---\n---\nbool b", "int32 A=1\n---\nint32 A=1",
		"int32 x\n---\nint32 x", "Foo f\n---\nBar b", "int32 Bad\n---\n", "---\nint32 Bad\n",
		"string s '---'\n---\n", "int32 a\n---#\nint32 b", "int32 a\n\u2028---\u2028int32 b",
	} {
		inputs = append(inputs, differentialInput{"srv", text}, differentialInput{"action", text})
	}
	accepted := differentialKinds(t, py, inputs)
	t.Logf("%d inputs, %d accepted by both, the rest rejected by both", len(inputs), accepted)
}
