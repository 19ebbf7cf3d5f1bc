package idl_test

import (
	"errors"
	"os"
	"strings"
	"sync"
	"testing"
	"testing/fstest"

	"go.uber.org/goleak"

	"github.com/afor-go/afor/ros/idl"
	"github.com/afor-go/afor/ros/interfaces"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

func mustRegistry(t *testing.T, files map[string]string) *idl.Registry {
	t.Helper()
	fsys := fstest.MapFS{}
	for name, src := range files {
		fsys[name] = &fstest.MapFile{Data: []byte(src)}
	}
	r := idl.NewRegistry()
	if err := r.LoadFS(fsys); err != nil {
		t.Fatal(err)
	}
	return r
}

func TestTypeDescriptionJSON(t *testing.T) {
	r, err := interfaces.Registry()
	if err != nil {
		t.Fatal(err)
	}
	got, err := r.TypeDescriptionJSON("std_msgs/msg/String")
	if err != nil {
		t.Fatal(err)
	}
	want := `{"type_description": {"type_name": "std_msgs/msg/String", "fields": [{"name": "data", "type": {"type_id": 17, "capacity": 0, "string_capacity": 0, "nested_type_name": ""}}]}, "referenced_type_descriptions": []}`
	if string(got) != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	// An empty message gets the placeholder field.
	got, err = r.TypeDescriptionJSON("std_msgs/Empty")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(got), `"fields": [{"name": "structure_needs_at_least_one_member", "type": {"type_id": 3,`) {
		t.Errorf("Empty: %s", got)
	}
	// References are listed once each, sorted by name.
	got, err = r.TypeDescriptionJSON("example_interfaces/srv/AddTwoInts")
	if err != nil {
		t.Fatal(err)
	}
	refs := []string{
		`"type_name": "builtin_interfaces/msg/Time"`,
		`"type_name": "example_interfaces/srv/AddTwoInts_Event"`,
		`"type_name": "example_interfaces/srv/AddTwoInts_Request"`,
		`"type_name": "example_interfaces/srv/AddTwoInts_Response"`,
		`"type_name": "service_msgs/msg/ServiceEventInfo"`,
	}
	last := strings.Index(string(got), `"referenced_type_descriptions"`)
	for _, ref := range refs {
		i := strings.Index(string(got), ref)
		if i < last || strings.Count(string(got), ref) != 1 {
			t.Errorf("%s: at %d (previous at %d) in %s", ref, i, last, got)
		}
		last = i
	}
	if !strings.Contains(string(got), `{"name": "client_gid", "type": {"type_id": 51, "capacity": 16, "string_capacity": 0, "nested_type_name": ""}}`) {
		t.Errorf("char[16] client_gid: %s", got)
	}
	if !strings.Contains(string(got), `{"name": "request", "type": {"type_id": 97, "capacity": 1, "string_capacity": 0, "nested_type_name": "example_interfaces/srv/AddTwoInts_Request"}}`) {
		t.Errorf("request[<=1]: %s", got)
	}
}

func TestTypeID(t *testing.T) {
	tests := []struct {
		typ  idl.Type
		want int
	}{
		{idl.Type{Kind: idl.Nested}, 1},
		{idl.Type{Kind: idl.Int8}, 2},
		{idl.Type{Kind: idl.Char}, 3},
		{idl.Type{Kind: idl.Uint8}, 3},
		{idl.Type{Kind: idl.Float32}, 10},
		{idl.Type{Kind: idl.Bool}, 15},
		{idl.Type{Kind: idl.Byte}, 16},
		{idl.Type{Kind: idl.String}, 17},
		{idl.Type{Kind: idl.WString}, 18},
		{idl.Type{Kind: idl.String, StringBound: 4}, 21},
		{idl.Type{Kind: idl.WString, StringBound: 4}, 22},
		{idl.Type{Kind: idl.Float64, Array: idl.FixedArray, Size: 36}, 59},
		{idl.Type{Kind: idl.Nested, Array: idl.BoundedArray, Size: 1}, 97},
		{idl.Type{Kind: idl.Nested, Array: idl.UnboundedArray}, 145},
		{idl.Type{Kind: idl.String, StringBound: 3, Array: idl.UnboundedArray}, 165},
		{idl.Type{}, 0},
	}
	for _, tt := range tests {
		if got := idl.TypeID(tt.typ); got != tt.want {
			t.Errorf("TypeID(%s) = %d, want %d", tt.typ, got, tt.want)
		}
	}
}

func TestRegistryLookups(t *testing.T) {
	r := mustRegistry(t, map[string]string{
		"share/pkg/msg/A.msg":       "B b\nint32 x\n",
		"share/pkg/msg/B.msg":       "other/C[] cs\n",
		"other/msg/C.msg":           "",
		"pkg/srv/S.srv":             "A a\n---\nbool ok\n",
		"pkg/action/Act.action":     "---\n---\n",
		"pkg/msg/README.md":         "not an interface",
		"pkg/srv/NotHere.msg":       "int32 ignored: wrong folder\n",
		"unique_identifier_msgs/x":  "",
		"pkg/action/notes.action~":  "",
		"builtin_interfaces/doc.md": "",
	})
	for _, name := range []string{"pkg/msg/A", "pkg/A", "other/msg/C", "pkg/srv/S_Request", "pkg/srv/S_Event",
		"pkg/action/Act_Goal", "pkg/action/Act_FeedbackMessage", "pkg/action/Act_SendGoal_Request"} {
		if _, err := r.Message(name); err != nil {
			t.Errorf("Message(%s): %v", name, err)
		}
	}
	if _, err := r.Message("pkg/srv/NotHere"); !errors.Is(err, idl.ErrUnknownType) {
		t.Errorf("file in the wrong folder was loaded: %v", err)
	}
	if _, err := r.Service("pkg/S"); err != nil {
		t.Error(err)
	}
	if _, err := r.Service("pkg/action/Act_GetResult"); err != nil {
		t.Error(err)
	}
	if _, err := r.Action("pkg/Act"); err != nil {
		t.Error(err)
	}
	if _, err := r.Service("pkg/msg/A"); !errors.Is(err, idl.ErrUnknownType) {
		t.Errorf("Service(message) = %v", err)
	}
	if _, err := r.Action("pkg/S"); !errors.Is(err, idl.ErrUnknownType) {
		t.Errorf("Action(service) = %v", err)
	}
	if _, err := r.Message("pkg/srv/S"); !errors.Is(err, idl.ErrUnknownType) {
		t.Errorf("Message(service) = %v", err)
	}
	for _, bad := range []string{"", "A", "pkg/bad/A", "a/b/c/d", "/A", "pkg/"} {
		if _, err := r.Message(bad); !errors.Is(err, idl.ErrBadName) {
			t.Errorf("Message(%q) = %v, want ErrBadName", bad, err)
		}
	}
	a, _ := r.Message("pkg/A")
	if m, err := r.Resolve(a.Fields[0].Type); err != nil || m.FullName() != "pkg/msg/B" {
		t.Errorf("Resolve = %v, %v", m, err)
	}
	if _, err := r.Resolve(a.Fields[1].Type); !errors.Is(err, idl.ErrUnknownType) {
		t.Errorf("Resolve(int32) = %v", err)
	}
	if n := len(r.Messages()); n != 3+3+3+1+2*3 {
		t.Errorf("%d messages", n)
	}
	if n := len(r.Services()); n != 3 {
		t.Errorf("%d services", n)
	}
	if n := len(r.Actions()); n != 1 {
		t.Errorf("%d actions", n)
	}
	// The action needs unique_identifier_msgs and builtin_interfaces, the
	// service service_msgs.
	err := r.Check()
	for _, missing := range []string{"unique_identifier_msgs/msg/UUID", "builtin_interfaces/msg/Time", "service_msgs/msg/ServiceEventInfo"} {
		if !errors.Is(err, idl.ErrUnknownType) || !strings.Contains(err.Error(), missing) {
			t.Errorf("Check does not report %s: %v", missing, err)
		}
	}
	if _, err := r.TypeHash("pkg/msg/A"); err != nil {
		t.Errorf("TypeHash(A): %v", err)
	}
	if _, err := r.TypeHash("pkg/srv/S"); !errors.Is(err, idl.ErrUnknownType) {
		t.Errorf("TypeHash(S) without service_msgs = %v", err)
	}
	// Adding the missing packages makes everything resolve, and cached
	// hashes are recomputed.
	if err := interfaces.Load(r); err != nil {
		t.Fatal(err)
	}
	if err := r.Check(); err != nil {
		t.Error(err)
	}
	if _, err := r.TypeHash("pkg/srv/S"); err != nil {
		t.Error(err)
	}
}

func TestRegistryErrors(t *testing.T) {
	r := idl.NewRegistry()
	if err := r.AddFile("pkg", "x/A.msg", []byte("int32 x")); err != nil {
		t.Fatal(err)
	}
	if err := r.AddFile("pkg", "y/A.msg", []byte("int32 y")); !errors.Is(err, idl.ErrDuplicate) {
		t.Errorf("duplicate message: %v", err)
	}
	if err := r.AddFile("pkg", "A_Request.msg", nil); err != nil {
		t.Fatal(err)
	}
	if err := r.AddFile("pkg", "A.srv", []byte("---")); err != nil {
		t.Errorf("srv A next to msg A: %v", err)
	}
	if err := r.AddFile("pkg", "A.action", []byte("---\n---")); err != nil {
		t.Errorf("action A next to srv A: %v", err)
	}
	if err := r.AddFile("pkg", "other/A.action", []byte("---\n---")); !errors.Is(err, idl.ErrDuplicate) {
		t.Errorf("action A twice: %v", err)
	}
	if err := r.AddFile("pkg", "B.txt", nil); !errors.Is(err, idl.ErrBadName) {
		t.Errorf("B.txt: %v", err)
	}
	err := r.AddFile("pkg", "dir/C.msg", []byte("int32 x\nint32 Y"))
	var se *idl.SyntaxError
	if !errors.As(err, &se) || se.Pos.File != "dir/C.msg" || se.Pos.Line != 2 {
		t.Errorf("syntax error: %v", err)
	}
	// The parts of the srv exist separately from msg/A_Request.
	if _, err := r.Message("pkg/srv/A_Request"); err != nil {
		t.Error(err)
	}
	if _, err := r.TypeHash("pkg/Nope"); !errors.Is(err, idl.ErrUnknownType) {
		t.Errorf("TypeHash(unknown) = %v", err)
	}
	big := fstest.MapFS{"pkg/msg/Big.msg": &fstest.MapFile{Data: make([]byte, idl.MaxFileSize+1)}}
	if err := idl.NewRegistry().LoadFS(big); !errors.Is(err, idl.ErrTooLarge) {
		t.Errorf("LoadFS(big) = %v", err)
	}
	if err := idl.NewRegistry().LoadFS(os.DirFS("/nonexistent-afor-dir")); err == nil {
		t.Error("LoadFS(missing dir) succeeded")
	}
}

func TestRegistryCycle(t *testing.T) {
	r := mustRegistry(t, map[string]string{
		"pkg/msg/A.msg": "B b\n",
		"pkg/msg/B.msg": "A[] a\n",
		"pkg/msg/C.msg": "C[<=1] c\n",
	})
	err := r.Check()
	if !errors.Is(err, idl.ErrCycle) || !strings.Contains(err.Error(), "pkg/msg/A -> pkg/msg/B -> pkg/msg/A") ||
		!strings.Contains(err.Error(), "pkg/msg/C -> pkg/msg/C") {
		t.Errorf("Check = %v", err)
	}
	// Hashing still terminates.
	if _, err := r.TypeHash("pkg/msg/A"); err != nil {
		t.Error(err)
	}
}

func TestRegistryConcurrent(t *testing.T) {
	r, err := interfaces.Registry()
	if err != nil {
		t.Fatal(err)
	}
	names := []string{"sensor_msgs/msg/Imu", "nav_msgs/msg/Odometry", "example_interfaces/action/Fibonacci", "std_srvs/srv/SetBool"}
	want := make([]string, len(names))
	for i, n := range names {
		if want[i], err = r.TypeHash(n); err != nil {
			t.Fatal(err)
		}
	}
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for i := range 50 {
				j := (g + i) % len(names)
				if h, err := r.TypeHash(names[j]); err != nil || h != want[j] {
					t.Errorf("TypeHash(%s) = %s, %v", names[j], h, err)
				}
				if i%10 == 0 {
					_ = r.AddFile("pkg", "M"+string(rune('A'+g))+string(rune('a'+i/10))+".msg", nil)
				}
			}
		})
	}
	wg.Wait()
}

// TestTypeDescriptionDefaults checks default value spellings against
// values rosidl_generator_type_description gave for testdata/edge_msgs
// (TestOracleDescriptions compares them all when the Python peers exist).
func TestTypeDescriptionDefaults(t *testing.T) {
	src, err := os.ReadFile("testdata/edge_msgs/msg/EdgeDefaults.msg")
	if err != nil {
		t.Fatal(err)
	}
	r := idl.NewRegistry()
	if err := r.AddFile("edge_msgs", "EdgeDefaults.msg", src); err != nil {
		t.Fatal(err)
	}
	d, err := r.TypeDescription("edge_msgs/msg/EdgeDefaults")
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"big":       "1e+16",
		"below_big": "9999999999999998.0",
		"tiny":      "1e-05",
		"small":     "0.0001",
		"neg_zero":  "-0.0",
		"eighths":   "123456789.125",
		"tenth":     "0.1",
		"from_int":  "3.0",
		"floats":    "(1.0, 2.5, 1e+22, 0.0001, -1.5e-07)",
		"one":       "(-9223372036854775808,)",
		"max":       "(18446744073709551615,)",
		"empty":     "()",
		"hex":       "127",
		"octal":     "15",
		"binary":    "3",
		"quotes":    `("it's", 'q"d', 'both\' and "', 'plain', '')`,
		"pair":      "('a, b', 'c')",
		"scalar":    `say "x"`,
		"scalar2":   "it's",
		"spaces":    "  padded  ",
	}
	if len(d.Type.Fields) != len(want) {
		t.Fatalf("%d fields", len(d.Type.Fields))
	}
	for _, f := range d.Type.Fields {
		if f.DefaultValue != want[f.Name] {
			t.Errorf("%s: default %q, want %q", f.Name, f.DefaultValue, want[f.Name])
		}
	}
	if len(d.Referenced) != 0 {
		t.Errorf("references: %+v", d.Referenced)
	}
	if h, err := r.TypeHash("edge_msgs/msg/EdgeDefaults"); err != nil || h != d.Hash() {
		t.Errorf("TypeHash = %s, %v; Hash = %s", h, err, d.Hash())
	}
}
