package idl_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/afor-go/afor/ros/idl"
	"github.com/afor-go/afor/ros/interfaces"
)

// testInterfaceFilesDir is where Debian's ros2-test-interface-files package
// installs rosidl's test interfaces.
const testInterfaceFilesDir = "/usr/share/test_interface_files"

// testInterfaceFiles returns the folder of ros2-test-interface-files, or
// skips the test (fails in CI, whose setup installs the package).
func testInterfaceFiles(t *testing.T) string {
	t.Helper()
	if _, err := os.Stat(filepath.Join(testInterfaceFilesDir, "msg")); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("ros2-test-interface-files missing in CI: %v", err)
		}
		t.Skipf("ros2-test-interface-files not installed (apt-get install ros2-test-interface-files): %v", err)
	}
	return testInterfaceFilesDir
}

// TestParseTestInterfaceFiles parses every file of rosidl's test
// interfaces and checks that every nested reference resolves.
func TestParseTestInterfaceFiles(t *testing.T) {
	dir := testInterfaceFiles(t)
	r := idl.NewRegistry()
	n := 0
	for _, kind := range []string{"msg", "srv", "action"} {
		files, err := filepath.Glob(filepath.Join(dir, kind, "*."+kind))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			src, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			if err := r.AddFile("test_interface_files", f, src); err != nil {
				t.Errorf("%s: %v", f, err)
			}
			n++
		}
	}
	if n < 16 {
		t.Fatalf("only %d files in %s", n, dir)
	}
	if err := interfaces.Load(r); err != nil {
		t.Fatal(err)
	}
	if err := r.Check(); err != nil {
		t.Fatal(err)
	}
	// Spot checks of what the files declare.
	m, err := r.Message("test_interface_files/msg/Strings")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range m.Fields {
		if f.Name == "bounded_string_value_default4" {
			if f.Type.Kind != idl.String || f.Type.StringBound != 22 || f.Default == nil || f.Default.Str != "Hello'world!" {
				t.Errorf("bounded_string_value_default4 = %+v, default %+v", f.Type, f.Default)
			}
		}
	}
	c, err := r.Message("test_interface_files/msg/Constants")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, k := range c.Constants {
		names = append(names, k.Name)
	}
	if !strings.Contains(strings.Join(names, " "), "INT64_CONST") {
		t.Errorf("constants = %v", names)
	}
}
