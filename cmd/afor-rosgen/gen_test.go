package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"text/template"

	"github.com/afor-go/afor/internal/peers"
	"github.com/afor-go/afor/ros/idl"
	"github.com/afor-go/afor/ros/interfaces"
)

func TestNames(t *testing.T) {
	for in, want := range map[string]string{"frame_id": "FrameID", "int8_value": "Int8Value", "x": "X", "type_name": "TypeName_", "goal_id": "GoalID"} {
		if got := fieldName(in); got != want {
			t.Errorf("fieldName(%q) = %q, want %q", in, got, want)
		}
	}
	for in, want := range map[string]string{"PointCloud2": "point_cloud2", "UInt16": "u_int16", "MultiDOFJointState": "multi_dof_joint_state", "Header": "header"} {
		if got := fileName(in); got != want {
			t.Errorf("fileName(%q) = %q, want %q", in, got, want)
		}
	}
	if got := typeName("Fibonacci_SendGoal_Request"); got != "FibonacciSendGoalRequest" {
		t.Error(got)
	}
	// A suffix the go tool reads as a build constraint is avoided
	// (diagnostic_msgs/srv/SelfTest).
	for in, want := range map[string]string{"srv_self_test": "srv_self_test_type.go", "msg_linux": "msg_linux_type.go",
		"msg_arm64": "msg_arm64_type.go", "msg_pose": "msg_pose.go", "msg_test_x": "msg_test_x.go"} {
		if got := goFileName(in); got != want {
			t.Errorf("goFileName(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestShippedUpToDate regenerates the shipped packages in memory and compares
// them with the committed files of ros/msgs.
func TestShippedUpToDate(t *testing.T) {
	reg, err := interfaces.Registry()
	if err != nil {
		t.Fatal(err)
	}
	pkgs := packagesOf(reg)
	files, err := Generate(Config{Registry: reg, Packages: pkgs, Prefix: shippedPrefix, Source: "the shipped interface definitions"})
	if err != nil {
		t.Fatal(err)
	}
	root := peers.ModuleRoot()
	if root == "" {
		t.Skip("module root not found")
	}
	for name, want := range files {
		got, err := os.ReadFile(filepath.Join(root, "ros", "msgs", filepath.FromSlash(name)))
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("ros/msgs/%s is stale (run go generate in ros/msgs): %v", name, err)
		}
	}
}

// genModule generates the ROS package in pkgDir into a temporary module
// "gentest" (package gentest/msgs/<pkg>) that uses this module through a
// replace directive, adds testdata/roundtrip_test.go.tmpl beside the
// generated files, and returns the module folder and the package name.
func genModule(t *testing.T, pkgDir string) (dir, pkg string, reg *idl.Registry) {
	t.Helper()
	root := peers.ModuleRoot()
	if root == "" {
		t.Skip("module root not found")
	}
	// The shipped packages, less the one being generated when afor ships
	// it too (test_msgs): the wheel's copy replaces it.
	reg = idl.NewRegistry()
	if err := reg.LoadFS(without{interfaces.FS(), filepath.Base(pkgDir)}); err != nil {
		t.Fatal(err)
	}
	pkg, err := loadPackageDir(reg, pkgDir)
	if err != nil {
		t.Fatal(err)
	}
	files, err := Generate(Config{Registry: reg, Packages: []string{pkg}, Prefix: "gentest/msgs", DepPrefix: shippedPrefix})
	if err != nil {
		t.Fatal(err)
	}
	dir = t.TempDir()
	gomod := "module gentest\n\ngo 1.26\n\nrequire github.com/afor-go/afor v0.0.0\n\nreplace github.com/afor-go/afor => " + root + "\n"
	write(t, filepath.Join(dir, "go.mod"), []byte(gomod))
	if sum, err := os.ReadFile(filepath.Join(root, "go.sum")); err == nil {
		write(t, filepath.Join(dir, "go.sum"), sum)
	}
	if err := writeFiles(filepath.Join(dir, "msgs"), []string{pkg}, files); err != nil {
		t.Fatal(err)
	}
	var types []string
	for _, m := range reg.Messages() {
		if m.Package == pkg {
			types = append(types, typeName(m.Name))
		}
	}
	slices.Sort(types)
	tmpl := template.Must(template.ParseFiles("testdata/roundtrip_test.go.tmpl"))
	var b bytes.Buffer
	if err := tmpl.Execute(&b, map[string]any{"Package": pkg, "Types": types}); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(dir, "msgs", pkg, "roundtrip_test.go"), b.Bytes())
	return dir, pkg, reg
}

// goIn runs the go command in dir with extra environment variables.
func goIn(t *testing.T, dir string, env []string, args ...string) {
	t.Helper()
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("go command not found")
	}
	cmd := exec.Command(goBin, args...)
	cmd.Dir = dir
	cmd.Env = append(append(os.Environ(), "GOFLAGS=-mod=mod", "GOWORK=off"), env...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	t.Logf("go %s:\n%s", strings.Join(args, " "), out)
}

// TestGenerateTestInterfaceFiles generates Go types for Debian's
// ros2-test-interface-files (every field kind, bounds, defaults, constants,
// services and an action) into a temporary module, then vets them and runs
// a round-trip test of our own there.
func TestGenerateTestInterfaceFiles(t *testing.T) {
	const src = "/usr/share/test_interface_files"
	if _, err := os.Stat(filepath.Join(src, "msg")); err != nil {
		t.Skipf("%s missing (Debian package ros2-test-interface-files): %v", src, err)
	}
	dir, pkg, reg := genModule(t, src)
	env := cycloneDriver(t, reg, pkg)
	goIn(t, dir, nil, "vet", "./...")
	goIn(t, dir, env, "test", "-count=1", "-v", "./...")
}

// TestGenerateTestMsgsAgainstRclpy generates Go types from the .msg/.srv/
// .action files of the test_msgs wheel (the same definitions as
// test_interface_files plus Builtins and NestedMessage) and runs, in the
// temporary module, the round trip through rclpy: random values of every
// type are encoded in Go, deserialized and serialized by rclpy
// (rmw_fastrtps_cpp), and decoded in Go again. It also compares every
// generated type hash with the hashes the wheel ships in its .json files.
func TestGenerateTestMsgsAgainstRclpy(t *testing.T) {
	py := peers.Python(t, "rclpy", "test_msgs.msg")
	out, err := exec.Command(py, "-c", "import os, sys; print(os.path.join(sys.prefix, 'share', 'test_msgs'))").Output()
	if err != nil {
		t.Fatalf("locating test_msgs: %v", err)
	}
	share := strings.TrimSpace(string(out))
	hashes := map[string]string{}
	jsons, _ := filepath.Glob(filepath.Join(share, "*", "*.json"))
	for _, j := range jsons {
		data, err := os.ReadFile(j)
		if err != nil {
			t.Fatal(err)
		}
		var doc struct {
			TypeHashes []struct {
				TypeName   string `json:"type_name"`
				HashString string `json:"hash_string"`
			} `json:"type_hashes"`
		}
		if err := json.Unmarshal(data, &doc); err != nil {
			t.Fatalf("%s: %v", j, err)
		}
		for _, h := range doc.TypeHashes {
			hashes[h.TypeName] = h.HashString
		}
	}
	// Copy the ROS 2 syntax files only: the wheel also has IDL-only types
	// (keyed structures) that .msg cannot express.
	pkgDir := filepath.Join(t.TempDir(), "test_msgs")
	for _, kind := range []string{"msg", "srv", "action"} {
		files, _ := filepath.Glob(filepath.Join(share, kind, "*."+kind))
		for _, f := range files {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			write(t, filepath.Join(pkgDir, kind, filepath.Base(f)), data)
		}
	}
	dir, _, _ := genModule(t, pkgDir)
	hj, _ := json.Marshal(hashes)
	write(t, filepath.Join(dir, "hashes.json"), hj)
	script := filepath.Join(peers.ModuleRoot(), "ros", "msgs", "testdata", "rclpy_oracle.py")
	goIn(t, dir, []string{"AFOR_ORACLE_PY=" + py, "AFOR_ORACLE_SCRIPT=" + script, "AFOR_ORACLE_HASHES=" + filepath.Join(dir, "hashes.json")},
		"test", "-count=1", "-run", "TestRclpy|TestHashes", "-v", "./...")
}

func write(t *testing.T, path string, data []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestRun(t *testing.T) {
	var stderr bytes.Buffer
	if err := run([]string{"-shipped"}, &stderr); err == nil {
		t.Error("missing -prefix accepted")
	}
	if err := run([]string{"-prefix", "x"}, &stderr); err == nil {
		t.Error("nothing to generate accepted")
	}
	out := t.TempDir()
	stale := filepath.Join(out, "std_msgs", "msg_gone.go")
	mine := filepath.Join(out, "std_msgs", "helpers.go")
	write(t, stale, []byte(generatedMarker+"\n\npackage std_msgs\n"))
	write(t, mine, []byte("package std_msgs\n"))
	if err := run([]string{"-shipped", "-out", out, "-prefix", "example.com/msgs"}, &stderr); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(out, "std_msgs", "msg_string.go")); err != nil {
		t.Error(err)
	}
	if _, err := os.Stat(stale); err == nil {
		t.Error("stale generated file kept")
	}
	if _, err := os.Stat(mine); err != nil {
		t.Error("hand-written file removed")
	}
	// Generated packages import each other under -prefix.
	src, err := os.ReadFile(filepath.Join(out, "geometry_msgs", "msg_pose_stamped.go"))
	if err != nil || !bytes.Contains(src, []byte(`"example.com/msgs/std_msgs"`)) {
		t.Errorf("geometry_msgs/msg_pose_stamped.go does not import example.com/msgs/std_msgs: %v", err)
	}
}

// cycloneDriver writes IDL equivalent to the messages of pkg (and of the
// types they use), compiles it with Cyclone DDS's idlc and builds
// ros/internal/cdrtest/testdata/roundtrip.c against it. It returns the
// environment that enables the TestCyclone of the round-trip template, or
// nil (with a log line) when idlc, gcc or the Cyclone headers are missing.
// Types holding a wstring are left out: Cyclone 0.10's idlc has no wstring.
func cycloneDriver(t *testing.T, reg *idl.Registry, pkg string) []string {
	t.Helper()
	idlc, err1 := exec.LookPath("idlc")
	gcc, err2 := exec.LookPath("gcc")
	_, err3 := os.Stat("/usr/include/dds/ddsi/ddsi_cdrstream.h")
	if err1 != nil || err2 != nil || err3 != nil {
		t.Logf("Cyclone DDS oracle skipped: idlc (cyclonedds-tools), gcc or cyclonedds-dev headers missing")
		return nil
	}
	text, names, err := idlOf(reg, pkg)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	write(t, filepath.Join(dir, "types.idl"), []byte(text))
	var table strings.Builder
	for _, n := range names {
		fmt.Fprintf(&table, "  { %q, &%s_desc },\n", n, cName(n))
	}
	write(t, filepath.Join(dir, "table.inc"), []byte(table.String()))
	driver, err := filepath.Abs(filepath.Join("..", "..", "ros", "internal", "cdrtest", "testdata", "roundtrip.c"))
	if err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{idlc, "types.idl"}, {gcc, "-Wall", "-Werror", "-o", "roundtrip", driver, "types.c", "-I.", "-lddsc"}} {
		cmd := exec.Command(args[0], args[1:]...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	return []string{"AFOR_CYCLONE_DRIVER=" + filepath.Join(dir, "roundtrip"), "AFOR_CYCLONE_TYPES=" + strings.Join(names, ",")}
}

// cName is the C name idlc gives the struct of a ROS type:
// "pkg/msg/Name" -> "pkg_msg_dds__Name_".
func cName(full string) string {
	parts := strings.Split(full, "/")
	return parts[0] + "_" + parts[1] + "_dds__" + parts[2] + "_"
}

// idlOf returns IDL for the messages of pkg and every type they use, each
// struct in module <pkg>::<ns>::dds_ as rosidl names them, in dependency
// order, and the full names of the covered messages of pkg. Messages that
// hold a wstring, directly or not, are left out.
func idlOf(reg *idl.Registry, pkg string) (string, []string, error) {
	var b strings.Builder
	done := map[string]bool{}
	wide := map[string]bool{}
	var visit func(full string) error
	visit = func(full string) error {
		if _, ok := done[full]; ok {
			return nil
		}
		done[full] = true
		m, err := reg.Message(full)
		if err != nil {
			return err
		}
		fields := m.Fields
		if len(fields) == 0 {
			fields = []idl.Field{idl.PlaceholderField()}
		}
		var members strings.Builder
		for _, f := range fields {
			if f.Type.Kind == idl.WString {
				wide[full] = true
				return nil
			}
			if f.Type.Kind == idl.Nested {
				if err := visit(f.Type.FullName()); err != nil {
					return err
				}
				if wide[f.Type.FullName()] {
					wide[full] = true
					return nil
				}
			}
			members.WriteString("  " + idlMember(f) + "\n")
		}
		fmt.Fprintf(&b, "module %s { module %s { module dds_ {\n@final struct %s_ {\n%s};\n}; }; };\n",
			m.Package, m.Namespace, m.Name, members.String())
		return nil
	}
	var names []string
	for _, m := range reg.Messages() {
		if m.Package != pkg {
			continue
		}
		if err := visit(m.FullName()); err != nil {
			return "", nil, err
		}
		if !wide[m.FullName()] {
			names = append(names, m.FullName())
		}
	}
	return b.String(), names, nil
}

// idlMember returns the IDL declaration of field f. Member names get a
// "m_" prefix, which the wire format ignores, so that .msg field names that
// are IDL keywords ("sequence") stay legal.
func idlMember(f idl.Field) string {
	var base string
	t := f.Type
	f.Name = "m_" + f.Name
	switch t.Kind {
	case idl.Bool:
		base = "boolean"
	case idl.Byte:
		base = "octet"
	case idl.Char, idl.Uint8:
		base = "uint8"
	case idl.Float32:
		base = "float"
	case idl.Float64:
		base = "double"
	case idl.String:
		base = "string"
		if t.StringBound > 0 {
			base = fmt.Sprintf("string<%d>", t.StringBound)
		}
	case idl.Nested:
		parts := strings.Split(t.FullName(), "/")
		base = parts[0] + "::" + parts[1] + "::dds_::" + parts[2] + "_"
	default:
		base = t.Kind.String() // int8 ... uint64
	}
	switch t.Array {
	case idl.FixedArray:
		return fmt.Sprintf("%s %s[%d];", base, f.Name, t.Size)
	case idl.BoundedArray:
		return fmt.Sprintf("sequence<%s, %d> %s;", base, t.Size, f.Name)
	case idl.UnboundedArray:
		return fmt.Sprintf("sequence<%s> %s;", base, f.Name)
	}
	return base + " " + f.Name + ";"
}

// without is an interface tree with one top-level package hidden.
type without struct {
	fs.FS
	pkg string
}

// ReadDir lists name, leaving the hidden package out of the root.
func (w without) ReadDir(name string) ([]fs.DirEntry, error) {
	entries, err := fs.ReadDir(w.FS, name)
	if name != "." {
		return entries, err
	}
	return slices.DeleteFunc(entries, func(e fs.DirEntry) bool { return e.Name() == w.pkg }), err
}
