package names

import (
	"errors"
	"strings"
	"testing"
)

func FuzzValidate(f *testing.F) {
	for _, s := range []string{"chatter", "/a/b", "~/x", "{node}/{ns}", "foo/{bar", "5x", "a//b", "~", "{ns}/x", "a/{namespace}"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		errName := ValidateName(s)
		if err := ValidateFullName(s); err == nil && errName != nil {
			t.Fatalf("%q is a valid full name but not a valid name: %v", s, errName)
		}
		_ = ValidateNodeName(s)
		_ = ValidateNamespace(s)
		for _, ns := range []string{"/", "/ns/a"} {
			full, err := Expand(s, "node", ns)
			if err != nil {
				if !errors.Is(err, ErrInvalidName) {
					t.Fatalf("Expand(%q): error %v does not match ErrInvalidName", s, err)
				}
				continue
			}
			if errName != nil {
				t.Fatalf("Expand(%q) succeeded but ValidateName failed: %v", s, errName)
			}
			if err := ValidateFullName(full); err != nil {
				t.Fatalf("Expand(%q) = %q, not a valid full name: %v", s, full, err)
			}
		}
	})
}

func FuzzParseArgs(f *testing.F) {
	for _, s := range []string{
		"--ros-args\x00-r\x00foo:=bar",
		"a\x00--ros-args\x00--remap\x00n:__ns:=/x\x00--\x00b",
		"--ros-args\x00-e\x00/enc\x00-r\x00rostopic://~/a:={node}/b",
		"--ros-args\x00-r",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		a, err := ParseArgs(strings.Split(s, "\x00"))
		if err != nil {
			if !errors.Is(err, ErrInvalidArgs) {
				t.Fatalf("error %v does not match ErrInvalidArgs", err)
			}
			return
		}
		for _, r := range a.Rules {
			// Every parsed rule can be applied without panicking.
			_, _ = Resolve([]Rule{r}, "chatter", "node", "/ns", false)
			_ = NodeName([]Rule{r}, "node", "/ns")
			_ = Namespace([]Rule{r}, "node", "/")
		}
	})
}
