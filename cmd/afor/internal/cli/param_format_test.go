package cli

import (
	"reflect"
	"strings"
	"testing"
)

// paramText and writeYAMLParam spell each parameter type as ros2 param get
// and ros2 param dump do.
func TestParamFormats(t *testing.T) {
	for _, c := range []struct {
		v           any
		label, text string
		yaml        string
	}{
		{[]byte{1, 'a'}, "Byte values are", `[b'\x01', b'a']`, "k:\n- 1\n- 97\n"},
		{[]bool{true, false}, "Boolean values are", "[True, False]", "k:\n- true\n- false\n"},
		{[]int64{1, -2}, "Integer values are", "array('q', [1, -2])", "k:\n- 1\n- -2\n"},
		{[]float64{1, 0.5}, "Double values are", "array('d', [1.0, 0.5])", "k:\n- 1.0\n- 0.5\n"},
		{[]string{"a", "it's", "5"}, "String values are", `['a', "it's", '5']`, "k:\n- a\n- 'it''s'\n- '5'\n"},
		{[]string{}, "String values are", "[]", "k: []\n"},
		{int64(5), "Integer value is", "5", "k: 5\n"},
	} {
		label, text := paramText(c.v)
		if label != c.label || text != c.text {
			t.Errorf("paramText(%#v) = %q, %q; want %q, %q", c.v, label, text, c.label, c.text)
		}
		var b strings.Builder
		writeYAMLParam(&b, "", "k", c.v)
		if b.String() != c.yaml {
			t.Errorf("writeYAMLParam(%#v) = %q, want %q", c.v, b.String(), c.yaml)
		}
	}
	for in, want := range map[string]any{"[true, false]": []bool{true, false}, "[1, 2]": []int64{1, 2}, "[1, 2.5]": []float64{1, 2.5}, "[a, 'b']": []string{"a", "b"}} {
		got, err := parseParamValue(in)
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("parseParamValue(%q) = %#v, %v; want %#v", in, got, err, want)
		}
	}
}
