package dynmsg_test

import (
	"bytes"
	"context"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/afor-go/afor/internal/netns"
	"github.com/afor-go/afor/internal/peers"
	"github.com/afor-go/afor/ros/dynmsg"
)

// EnvRos2CLI names the variable pointing at a `ros2` executable for
// TestRos2TopicEcho.
const EnvRos2CLI = "AFOR_ROS2_CLI"

// TestRos2TopicEcho publishes messages with rclpy and checks that
// `ros2 topic echo --once` prints exactly FormatYAML's text followed by
// "---", and for the golden cases exactly the text of their testdata file.
//
// The ros2 command line is not a wheel: the test runs only when
// AFOR_ROS2_CLI names a ros2 executable that runs next to the rclpy wheels
// of .venv, and skips otherwise, in CI too. One way to make one: take the
// sources of ros2cli, ros2topic and ros2interface (github.com/ros2/ros2cli)
// and rosidl_runtime_py, run "python setup.py egg_info --egg-base SITE" in
// each and copy the packages into SITE, add the pure-Python "packaging"
// package (and a psutil, which only ros2cli's daemon uses), then let
// AFOR_ROS2_CLI point at a script that runs
// PYTHONPATH=SITE .venv/bin/python -c 'from ros2cli.cli import main; main()'.
func TestRos2TopicEcho(t *testing.T) {
	ros2 := os.Getenv(EnvRos2CLI)
	if ros2 == "" {
		t.Skip(EnvRos2CLI + " is unset: point it at a ros2 executable (ros2cli, ros2topic, ros2interface and " +
			"rosidl_runtime_py from source) that runs with the rclpy of .venv; see this test's comment")
	}
	netns.Require(t)
	py := peers.Python(t, "rclpy", "test_msgs.msg", "sensor_msgs.msg")
	reg := registry(t)
	type echoCase struct {
		typ    string
		msg    dynmsg.Message
		opts   dynmsg.FormatOptions
		golden string // testdata file that must match too, or ""
	}
	var cases []echoCase
	for _, g := range goldenCases {
		cases = append(cases, echoCase{g.typ, g.msg, g.opts, g.file})
	}
	for _, c := range []struct{ typ, values string }{
		{"std_msgs/msg/String", "{data: \"it's: 'quoted' and\\nmulti-line\"}"},
		{"sensor_msgs/msg/JointState", "{name: [a, 'true', '1.0'], position: [.nan, -.inf, 0.1]}"},
		{"test_msgs/msg/Arrays", "{byte_values: [0, 65, 255], float32_values: [0.1, 1e30, -0.0], string_values: ['', '#', '- x']}"},
		{"std_msgs/msg/UInt8MultiArray", "{data: [" + bytesList(200) + "]}"}, // truncated at 128
	} {
		m, err := mustType(t, reg, c.typ).ParseYAML(c.values)
		if err != nil {
			t.Fatal(err)
		}
		cases = append(cases, echoCase{c.typ, m, dynmsg.FormatOptions{TruncateLength: 128}, ""})
	}
	for i, c := range cases {
		t.Run(strconv.Itoa(i)+"_"+c.typ, func(t *testing.T) {
			typ := mustType(t, reg, c.typ)
			payload, err := typ.Encode(c.msg)
			if err != nil {
				t.Fatal(err)
			}
			want := typ.FormatYAML(c.msg, c.opts) + "---\n"
			if c.golden != "" {
				g, err := os.ReadFile(filepath.Join("testdata", c.golden))
				if err != nil {
					t.Fatal(err)
				}
				want = string(g) + "---\n"
			}
			topic := "/dynmsg_echo_" + strconv.Itoa(i)

			ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
			defer cancel()
			pub := exec.CommandContext(ctx, py, "testdata/publish.py", topic, c.typ, hex.EncodeToString(payload))
			stdin, err := pub.StdinPipe()
			if err != nil {
				t.Fatal(err)
			}
			var pubErr bytes.Buffer
			pub.Stderr = &pubErr
			if err := pub.Start(); err != nil {
				t.Fatal(err)
			}
			defer func() {
				stdin.Close() // the publisher exits when its stdin closes
				if err := pub.Wait(); err != nil && ctx.Err() == nil {
					t.Errorf("publisher: %v\n%s", err, pubErr.Bytes())
				}
			}()
			args := []string{"topic", "echo", "--once", "--no-daemon", topic, c.typ}
			args = append(args, echoFlags(c.opts)...)
			echo := exec.CommandContext(ctx, ros2, args...)
			var echoErr bytes.Buffer
			echo.Stderr = &echoErr
			got, err := echo.Output()
			if err != nil {
				t.Fatalf("ros2 %v: %v\n%s", args, err, echoErr.Bytes())
			}
			if string(got) != want {
				t.Errorf("ros2 %v printed\n%q\nwe print\n%q", args, got, want)
			}
		})
	}
}

// echoFlags returns the ros2 topic echo flags for o.
func echoFlags(o dynmsg.FormatOptions) []string {
	var f []string
	if o.TruncateLength > 0 {
		f = append(f, "--truncate-length", strconv.Itoa(o.TruncateLength))
	} else {
		f = append(f, "--full-length")
	}
	if o.NoArr {
		f = append(f, "--no-arr")
	}
	if o.NoStr {
		f = append(f, "--no-str")
	}
	if o.FlowStyle {
		f = append(f, "--flow-style")
	}
	return f
}

// bytesList returns "0, 1, ..., n-1" (mod 256).
func bytesList(n int) string {
	var b bytes.Buffer
	for i := range n {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(strconv.Itoa(i % 256))
	}
	return b.String()
}

// TestRos2Interface compares `ros2 interface list` and `ros2 interface
// show` with ListInterfaces and ShowInterface over the share folder of the
// ROS 2 wheels (original files, comments included), on a sample of types.
// It needs AFOR_ROS2_CLI like TestRos2TopicEcho, with ros2interface
// installed too.
func TestRos2Interface(t *testing.T) {
	ros2 := os.Getenv(EnvRos2CLI)
	if ros2 == "" {
		t.Skip(EnvRos2CLI + " is unset: see TestRos2TopicEcho")
	}
	prefix := venvPrefix(t)
	reg, err := dynmsg.NewRegistry(dynmsg.AmentDirs(prefix)...)
	if err != nil {
		t.Fatal(err)
	}
	run := func(t *testing.T, args ...string) string {
		t.Helper()
		ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
		defer cancel()
		cmd := exec.CommandContext(ctx, ros2, args...)
		cmd.Env = append(os.Environ(), "AMENT_PREFIX_PATH="+prefix)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("ros2 %v: %v\n%s", args, err, stderr.Bytes())
		}
		return string(out)
	}

	// The list: ours also holds the shipped packages the wheels lack.
	real := strings.Split(strings.TrimSuffix(run(t, "interface", "list"), "\n"), "\n")
	installed := map[string]bool{}
	for _, l := range real {
		if pkg, _, ok := strings.Cut(strings.TrimSpace(l), "/"); ok {
			installed[pkg] = true
		}
	}
	var ours []string
	for _, l := range dynmsg.ListInterfaces(reg) {
		pkg, _, ok := strings.Cut(strings.TrimSpace(l), "/")
		if !ok || installed[pkg] {
			ours = append(ours, l)
		}
	}
	// Types defined in .idl files only (test_msgs' keyed ones) are listed
	// by ros2 and unknown to us.
	real = slices.DeleteFunc(real, func(l string) bool {
		name := strings.TrimSpace(l)
		if !strings.Contains(name, "/") {
			return false
		}
		_, err := dynmsg.ShowInterface(reg, name)
		return err != nil
	})
	if got, want := strings.Join(ours, "\n"), strings.Join(real, "\n"); got != want {
		t.Errorf("ListInterfaces differs from ros2 interface list:\n%s\n---\n%s", got, want)
	}

	var names []string
	for _, l := range real {
		if strings.HasPrefix(l, "    ") {
			names = append(names, strings.TrimSpace(l))
		}
	}
	for i, name := range names {
		if i%12 != 0 && !strings.Contains(name, "BatteryState") && !strings.Contains(name, "SetParameters") && !strings.HasSuffix(name, "/Empty") {
			continue // a sample: each run of ros2 takes a second
		}
		t.Run(name, func(t *testing.T) {
			want := run(t, "interface", "show", name)
			got, err := dynmsg.ShowInterface(reg, name)
			if err != nil || got != want {
				t.Errorf("ShowInterface(%s) = %v\n%s\nros2 interface show prints\n%s", name, err, got, want)
			}
		})
	}
}
