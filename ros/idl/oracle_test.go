package idl_test

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/afor-go/afor/internal/peers"
	"github.com/afor-go/afor/ros/idl"
	"github.com/afor-go/afor/ros/interfaces"
)

// rosidlModules are the Python modules the oracle driver needs: ROS 2's
// own .msg parser, IDL parser and type description generator.
var rosidlModules = []string{"rosidl_adapter", "rosidl_parser", "rosidl_generator_type_description"}

// runDriver runs testdata/rosidl_hashes.py and decodes what it prints into
// out.
func runDriver(t *testing.T, py string, out any, args ...string) {
	t.Helper()
	cmd := exec.CommandContext(t.Context(), py, append([]string{filepath.Join("testdata", "rosidl_hashes.py")}, args...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	b, err := cmd.Output()
	if err != nil {
		t.Fatalf("rosidl_hashes.py %v: %v\n%s", args, err, stderr.String())
	}
	if err := json.Unmarshal(b, out); err != nil {
		t.Fatalf("rosidl_hashes.py output: %v", err)
	}
}

// registered lists every type name a registry can hash.
func registered(r *idl.Registry) []string {
	var names []string
	for _, m := range r.Messages() {
		names = append(names, m.FullName())
	}
	for _, s := range r.Services() {
		names = append(names, s.FullName())
	}
	for _, a := range r.Actions() {
		names = append(names, a.FullName())
	}
	slices.Sort(names)
	return names
}

func pkgOf(name string) string {
	pkg, _, _ := strings.Cut(name, "/")
	return pkg
}

// compareHashes checks that r gives the hashes of want.
func compareHashes(t *testing.T, r *idl.Registry, want map[string]string) {
	t.Helper()
	if len(want) == 0 {
		t.Fatal("no reference hash")
	}
	for name, h := range want {
		got, err := r.TypeHash(name)
		if err != nil {
			t.Errorf("%s: rosidl has %s, we fail: %v", name, h, err)
		} else if got != h {
			t.Errorf("%s: rosidl has %s, we have %s", name, h, got)
		}
	}
}

type rosidlField struct {
	Name string `json:"name"`
	Type struct {
		TypeID         int    `json:"type_id"`
		Capacity       int    `json:"capacity"`
		StringCapacity int    `json:"string_capacity"`
		NestedTypeName string `json:"nested_type_name"`
	} `json:"type"`
	DefaultValue string `json:"default_value"`
}

type rosidlType struct {
	Hash        string `json:"hash"`
	Description struct {
		TypeName string        `json:"type_name"`
		Fields   []rosidlField `json:"fields"`
	} `json:"description"`
}

// TestOracleRosidl describes and hashes, with rosidl's own tools
// (rosidl_adapter, rosidl_parser, rosidl_generator_type_description),
// every shipped interface, every file of Debian's ros2-test-interface-files
// (bounded strings, wstrings, every array kind, defaults) and
// testdata/edge_msgs (spellings of default values), and compares every
// type, including the synthesized service and action parts.
func TestOracleRosidl(t *testing.T) {
	src := testInterfaceFiles(t)
	py := peers.Python(t, rosidlModules...)
	root := t.TempDir()
	if err := os.CopyFS(filepath.Join(root, "test_interface_files"), os.DirFS(src)); err != nil {
		t.Fatal(err)
	}
	if err := os.CopyFS(filepath.Join(root, "edge_msgs"), os.DirFS(filepath.Join("testdata", "edge_msgs"))); err != nil {
		t.Fatal(err)
	}
	shipped, err := filepath.Abs(filepath.Join("..", "interfaces"))
	if err != nil {
		t.Fatal(err)
	}
	var want map[string]rosidlType
	runDriver(t, py, &want, "generate", root, shipped)

	r, err := interfaces.Registry()
	if err != nil {
		t.Fatal(err)
	}
	hashes := make(map[string]string)
	for name, w := range want {
		hashes[name] = w.Hash
	}

	t.Run("shipped", func(t *testing.T) {
		shippedHashes := make(map[string]string)
		for name, h := range hashes {
			if p := pkgOf(name); p != "test_interface_files" && p != "edge_msgs" {
				shippedHashes[name] = h
			}
		}
		compareHashes(t, r, shippedHashes)
		for _, name := range registered(r) {
			if _, ok := shippedHashes[name]; !ok {
				t.Errorf("%s: we register it, rosidl does not", name)
			}
		}
		t.Logf("%d shipped types agree with rosidl_generator_type_description", len(shippedHashes))
	})

	all := idl.NewRegistry()
	if err := all.LoadFS(os.DirFS(root)); err != nil {
		t.Fatal(err)
	}
	if err := interfaces.Load(all); err != nil {
		t.Fatal(err)
	}

	t.Run("test_interface_files", func(t *testing.T) {
		tif := make(map[string]string)
		for name, h := range hashes {
			if pkgOf(name) == "test_interface_files" {
				tif[name] = h
			}
		}
		compareHashes(t, all, tif)
		t.Logf("%d test interface types agree with rosidl_generator_type_description", len(tif))
	})

	t.Run("descriptions", func(t *testing.T) {
		defaults := 0
		for name, w := range want {
			d, err := all.TypeDescription(name)
			if err != nil {
				t.Errorf("%s: %v", name, err)
				continue
			}
			got, wd := d.Type, w.Description
			if got.TypeName != wd.TypeName || len(got.Fields) != len(wd.Fields) {
				t.Errorf("%s: got %s with %d fields, want %s with %d", name, got.TypeName, len(got.Fields), wd.TypeName, len(wd.Fields))
				continue
			}
			for i, f := range got.Fields {
				wf := wd.Fields[i]
				if f.Name != wf.Name || f.TypeID != wf.Type.TypeID || f.Capacity != wf.Type.Capacity ||
					f.StringCapacity != wf.Type.StringCapacity || f.NestedTypeName != wf.Type.NestedTypeName ||
					f.DefaultValue != wf.DefaultValue {
					t.Errorf("%s field %d: got %+v, want %+v", name, i, f, wf)
				}
				if wf.DefaultValue != "" {
					defaults++
				}
			}
		}
		if defaults < 50 {
			t.Errorf("only %d default values compared", defaults)
		}
		t.Logf("%d individual descriptions agree, %d of their fields with default values", len(want), defaults)
	})
}

// TestOracleInstalledPackages compares with the hashes that the ROS 2
// message packages installed from PyPI ship (their share/<pkg>/**/*.json),
// which also checks that the shipped field lists match the real ROS 2
// definitions.
func TestOracleInstalledPackages(t *testing.T) {
	pkgs := []string{"builtin_interfaces", "std_msgs", "geometry_msgs", "sensor_msgs", "nav_msgs",
		"std_srvs", "service_msgs", "action_msgs", "unique_identifier_msgs",
		"rmw_dds_common", "rcl_interfaces", "rosgraph_msgs", "test_msgs"}
	py := peers.Python(t, pkgs...)
	var want map[string]string
	runDriver(t, py, &want, append([]string{"installed"}, pkgs...)...)
	// test_msgs' keyed types exist as .idl files only (with @key
	// annotations), which no .msg file can state: not shipped.
	for _, name := range []string{"KeyedLong", "KeyedString", "ComplexNestedKey", "NonKeyedWithNestedKey"} {
		delete(want, "test_msgs/msg/"+name)
	}
	r, err := interfaces.Registry()
	if err != nil {
		t.Fatal(err)
	}
	compareHashes(t, r, want)
	// Every type of those packages is shipped.
	for _, name := range registered(r) {
		if slices.Contains(pkgs, pkgOf(name)) {
			if _, ok := want[name]; !ok {
				t.Errorf("%s: shipped but not in the installed package", name)
			}
		}
	}
	t.Logf("%d types agree with the installed ROS 2 packages", len(want))
}
