//go:build linux

package netns_test

import (
	"bytes"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/afor-go/afor/internal/netns"
	"go.uber.org/goleak"
)

// TestMain runs the tests inside the namespace, and fails them if they leave
// goroutines behind.
func TestMain(m *testing.M) {
	if os.Getenv(envNoUserns) != "" {
		// Simulate a host without user namespaces: this process runs in a
		// user namespace of its own (see TestWithoutUserNamespaces) and
		// forbids new ones below it.
		if err := os.WriteFile("/proc/sys/user/max_user_namespaces", []byte("0"), 0); err != nil {
			fmt.Fprintln(os.Stderr, "cannot forbid user namespaces:", err)
			os.Exit(3)
		}
	}
	if code, done := netns.Exec(); done {
		os.Exit(code)
	}
	goleak.VerifyTestMain(m)
}

// envHelper makes TestHelperProcess act instead of skipping.
const envHelper = "AFOR_NETNS_TEST_HELPER"

// envNoUserns makes TestMain forbid user namespaces before calling Exec.
const envNoUserns = "AFOR_NETNS_TEST_NO_USERNS"

// helper runs this test binary again, outside the namespace, with
// -test.run selecting TestHelperProcess (count times) in the given mode; it
// returns the output and exit status.
func helper(t *testing.T, mode string, count int, attr *syscall.SysProcAttr, env ...string) (string, int) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "-test.run=^TestHelperProcess$", "-test.v", "-test.count="+strconv.Itoa(count))
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, netns.EnvInside+"=") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, envHelper+"="+mode)
	cmd.Env = append(cmd.Env, env...)
	cmd.SysProcAttr = attr
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	switch {
	case err == nil:
		return string(out), 0
	case errors.As(err, &exit):
		return string(out), exit.ExitCode()
	default:
		t.Fatalf("helper: %v\n%s", err, out)
		return "", 0
	}
}

func TestOnlyLoopbackUpWithMulticast(t *testing.T) {
	netns.Require(t)
	ifs, err := net.Interfaces()
	if err != nil {
		t.Fatal(err)
	}
	if len(ifs) != 1 || ifs[0].Name != "lo" {
		t.Fatalf("interfaces %v, want only lo", ifs)
	}
	for _, f := range []net.Flags{net.FlagUp, net.FlagLoopback, net.FlagMulticast, net.FlagRunning} {
		if ifs[0].Flags&f == 0 {
			t.Errorf("lo flags %v, missing %v", ifs[0].Flags, f)
		}
	}
	if err := netns.Check(); err != nil {
		t.Errorf("Check: %v", err)
	}
}

// TestMulticastComesBack sends a datagram to the DDS discovery group
// 239.255.0.1:7400 through the route on lo, without choosing an outgoing
// interface, and receives it on a socket joined to the group.
func TestMulticastComesBack(t *testing.T) {
	netns.Require(t)
	lo, err := net.InterfaceByName("lo")
	if err != nil {
		t.Fatal(err)
	}
	group := &net.UDPAddr{IP: net.IPv4(239, 255, 0, 1), Port: 7400}
	rx, err := net.ListenMulticastUDP("udp4", lo, group)
	if err != nil {
		t.Fatal(err)
	}
	defer rx.Close()
	tx, err := net.DialUDP("udp4", nil, group)
	if err != nil {
		t.Fatalf("dial the group (is the 224.0.0.0/4 route there?): %v", err)
	}
	defer tx.Close()
	msg := []byte("RTPS hello")
	if _, err := tx.Write(msg); err != nil {
		t.Fatal(err)
	}
	if err := rx.SetReadDeadline(time.Now().Add(10 * time.Second)); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 64)
	n, from, err := rx.ReadFromUDP(buf)
	if err != nil {
		t.Fatalf("no datagram back from the group: %v", err)
	}
	if !bytes.Equal(buf[:n], msg) {
		t.Errorf("got %q, want %q", buf[:n], msg)
	}
	if !from.IP.IsLoopback() {
		t.Errorf("datagram from %v, want a loopback address", from)
	}
}

// TestReexecKeepsFlagsAndStatus runs this test binary again from outside
// (a nested namespace of its own) with -test.run selecting one helper test:
// only that test runs, inside a namespace, and its failure becomes the exit
// status of the outer process.
func TestReexecKeepsFlagsAndStatus(t *testing.T) {
	netns.Require(t)
	for _, tc := range []struct {
		mode string
		code int
	}{{"pass", 0}, {"fail", 1}} {
		t.Run(tc.mode, func(t *testing.T) {
			out, code := helper(t, tc.mode, 2, nil)
			if code != tc.code {
				t.Fatalf("exit status %d, want %d\n%s", code, tc.code, out)
			}
			if got := strings.Count(out, "=== RUN   TestHelperProcess"); got != 2 {
				t.Errorf("TestHelperProcess ran %d times, want 2 (-test.count=2)\n%s", got, out)
			}
			if got := strings.Count(out, "helper inside=true"); got != 2 {
				t.Errorf("helper reported inside %d times, want 2\n%s", got, out)
			}
			if strings.Contains(out, "=== RUN   TestOnlyLoopback") {
				t.Errorf("-test.run lost in the re-exec: other tests ran\n%s", out)
			}
		})
	}
}

// TestWithoutUserNamespaces runs this test binary again where user
// namespaces are forbidden: outside CI the tests run outside the namespace
// and Require skips them; in CI the binary fails before any test.
func TestWithoutUserNamespaces(t *testing.T) {
	netns.Require(t)
	attr := &syscall.SysProcAttr{
		Cloneflags:  syscall.CLONE_NEWUSER,
		UidMappings: []syscall.SysProcIDMap{{ContainerID: 0, HostID: os.Getuid(), Size: 1}},
		GidMappings: []syscall.SysProcIDMap{{ContainerID: 0, HostID: os.Getgid(), Size: 1}},
	}
	t.Run("local", func(t *testing.T) {
		out, code := helper(t, "require", 1, attr, envNoUserns+"=1", "CI=")
		if code != 0 {
			t.Fatalf("exit status %d, want 0\n%s", code, out)
		}
		for _, want := range []string{"cannot make the loopback-only network namespace", "helper inside=false", "--- SKIP: TestHelperProcess", "could not be made"} {
			if !strings.Contains(out, want) {
				t.Errorf("output lacks %q\n%s", want, out)
			}
		}
	})
	t.Run("CI", func(t *testing.T) {
		out, code := helper(t, "require", 1, attr, envNoUserns+"=1", "CI=true")
		if code != 1 {
			t.Fatalf("exit status %d, want 1\n%s", code, out)
		}
		if !strings.Contains(out, "required in CI") || strings.Contains(out, "=== RUN") {
			t.Errorf("want a failure before any test\n%s", out)
		}
	})
}

// TestHelperProcess is run by TestReexecKeepsFlagsAndStatus; it does nothing
// otherwise.
func TestHelperProcess(t *testing.T) {
	mode := os.Getenv(envHelper)
	if mode == "" {
		t.Skip("helper of TestReexecKeepsFlagsAndStatus")
	}
	t.Logf("helper inside=%v", netns.Inside())
	switch mode {
	case "fail":
		t.Fatal("failing as asked")
	case "require":
		netns.Require(t)
	}
}
