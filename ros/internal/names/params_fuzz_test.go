package names

import (
	"errors"
	"strings"
	"testing"
)

func FuzzParseParamValue(f *testing.F) {
	for _, s := range []string{"1", "0x1F", "-.inf", "yes", "'q'", "[1, 2]", "[a, b]", "[true, 1]", "{a: 1}", "&a 1", "[1", "9223372036854775808", "- 1\n- 2"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := ParseParamValue(s)
		if err != nil {
			return
		}
		if v.Type == ParamNotSet || v.Type > ParamStringArray || v.Type == ParamByteArray {
			t.Fatalf("ParseParamValue(%q) gave type %d", s, v.Type)
		}
		if _, err := ParseParamRule("n:p:=" + s); err != nil && !strings.Contains(s, "\n") {
			// A value parsed on its own parses in a rule too (unless it
			// spans lines, which a rule cannot hold either way).
			if !errors.Is(err, ErrInvalidParams) {
				t.Fatalf("rule error %v does not match ErrInvalidParams", err)
			}
		}
	})
}

func FuzzParseParamsFile(f *testing.F) {
	for _, s := range []string{
		"/**:\n  ros__parameters:\n    a: 1\n",
		"ns:\n  n:\n    ros__parameters:\n      g:\n        a: [1, 2]\n",
		"n:\n  ros__parameters:\n    a: &x 1\n    b: *x\n",
		"a: [1\n",
		"- 1\n",
		"n:\n  ros__parameters:\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		overrides, err := ParseParamsFile("f.yaml", data)
		if err != nil {
			if !errors.Is(err, ErrInvalidParams) || !strings.Contains(err.Error(), "f.yaml") {
				t.Fatalf("error %v does not match ErrInvalidParams or name the file", err)
			}
			return
		}
		for _, o := range overrides {
			if err := ValidateParamName(o.Name); err != nil {
				t.Fatalf("override with an invalid name %q: %v", o.Name, err)
			}
			_ = MatchNode(o.Node, "/ns/node")
		}
	})
}

func FuzzMatchNode(f *testing.F) {
	f.Add("/**/a/*", "/x/a/b")
	f.Add("/**/**/**/**/**/**/**/**/**/**/**/**/**/**/**/z", "/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a/a")
	f.Fuzz(func(t *testing.T, pattern, fqn string) {
		got := MatchNode(pattern, fqn)
		if pattern == fqn && !got {
			t.Fatalf("MatchNode(%q, itself) = false", pattern)
		}
	})
}
