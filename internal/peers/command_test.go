package peers

import (
	"path/filepath"
	"testing"
)

func TestCommandFindsProgramOnPath(t *testing.T) {
	p := Command(t, "sh")
	if !filepath.IsAbs(p) {
		t.Errorf("Command(sh) = %q, want an absolute path", p)
	}
}

func TestCommandSkipsWhenMissingOutsideCI(t *testing.T) {
	t.Setenv("CI", "")
	var skipped bool
	t.Run("missing", func(t *testing.T) {
		defer func() { skipped = t.Skipped() }()
		Command(t, "afor-no-such-program")
		t.Error("Command returned for a missing program")
	})
	if !skipped {
		t.Error("a missing program did not skip the test outside CI")
	}
}
