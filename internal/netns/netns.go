// Package netns runs a package's tests inside a private network namespace
// whose only interface is loopback, so that test traffic (DDS discovery
// multicast above all) can never leave the machine and real peers advertise
// 127.0.0.1.
//
// A package opts in from its TestMain:
//
//	func TestMain(m *testing.M) { os.Exit(netns.Main(m)) }
//
// or, composed with goleak:
//
//	func TestMain(m *testing.M) {
//		if code, done := netns.Exec(); done {
//			os.Exit(code)
//		}
//		goleak.VerifyTestMain(m)
//	}
//
// Outside the namespace, [Exec] runs the test binary again, with the same
// arguments (so -test.run, -test.count, -test.v, -test.fuzz, -test.bench ...
// keep working), in a new user and network namespace, and hands back the
// child's exit status; the child's output goes straight to the parent's.
// Inside, it brings lo up with multicast and routes 224.0.0.0/4 through it,
// from 127.0.0.1.
//
// Network namespaces are Linux's: elsewhere the namespace cannot be made.
// When the namespace cannot be made (user namespaces disabled), the tests run
// without it and [Require] skips the tests that need it; when the CI
// environment variable is set, that is an error instead and the package
// fails.
package netns

import (
	"errors"
	"fmt"
	"net"
	"os"
	"testing"
)

// EnvInside names the variable that Exec sets in the child it starts inside
// the namespace; its presence is how the child knows it is inside.
const EnvInside = "AFOR_NETNS"

// envUnavailable carries, in a process that failed to make the namespace, the
// reason, for Require's skip message.
const envUnavailable = "AFOR_NETNS_UNAVAILABLE"

// ErrNotLoopbackOnly is returned by [Check] when the network seen by the
// process is not the namespace this package makes.
var ErrNotLoopbackOnly = errors.New("netns: not in a loopback-only network namespace")

// Main runs m inside the namespace (see [Exec]) and returns the exit code for
// [os.Exit].
func Main(m *testing.M) int {
	if code, done := Exec(); done {
		return code
	}
	return m.Run()
}

// Exec makes sure the tests run inside the namespace. Called in a process
// outside it, Exec re-executes the test binary inside a new user and
// network namespace, waits for it and returns its exit code with done true:
// the caller exits with that code. Called inside (in that child), it sets up
// lo and returns done false: the caller runs its tests.
//
// When the namespace cannot be made, Exec prints why on stderr and returns
// done false outside CI (the tests run, [Require] skips those that need the
// namespace) and 1, true in CI (the CI environment variable is set).
func Exec() (code int, done bool) {
	if os.Getenv(EnvInside) != "" {
		if err := setupLoopback(); err != nil {
			fmt.Fprintf(os.Stderr, "netns: inside the namespace but lo cannot be set up: %v\n", err)
			return 1, true
		}
		return 0, false
	}
	code, err := reexec()
	if err == nil {
		return code, true
	}
	if os.Getenv("CI") != "" {
		fmt.Fprintf(os.Stderr, "netns: cannot make the loopback-only network namespace (required in CI): %v\n", err)
		return 1, true
	}
	fmt.Fprintf(os.Stderr, "netns: cannot make the loopback-only network namespace, tests that need it skip: %v\n", err)
	os.Setenv(envUnavailable, err.Error())
	return 0, false
}

// Inside reports whether the process runs inside the namespace: started by
// [Exec] and seeing only lo, up, with multicast.
func Inside() bool {
	return os.Getenv(EnvInside) != "" && Check() == nil
}

// Check returns nil when lo is the only interface and it is up with
// multicast, and an error wrapping [ErrNotLoopbackOnly] saying what differs
// otherwise.
func Check() error {
	ifs, err := net.Interfaces()
	if err != nil {
		return fmt.Errorf("%w: %v", ErrNotLoopbackOnly, err)
	}
	if len(ifs) != 1 || ifs[0].Name != "lo" {
		names := make([]string, len(ifs))
		for i, ifc := range ifs {
			names[i] = ifc.Name
		}
		return fmt.Errorf("%w: interfaces %v", ErrNotLoopbackOnly, names)
	}
	const want = net.FlagUp | net.FlagLoopback | net.FlagMulticast
	if ifs[0].Flags&want != want {
		return fmt.Errorf("%w: lo is %v", ErrNotLoopbackOnly, ifs[0].Flags)
	}
	return nil
}

// Require skips t (fails it in CI) unless the process runs inside the
// namespace: the package's TestMain must call [Main] or [Exec].
func Require(t testing.TB) {
	t.Helper()
	if Inside() {
		return
	}
	why := "not inside the loopback-only network namespace: the package's TestMain must call netns.Main or netns.Exec"
	if reason := os.Getenv(envUnavailable); reason != "" {
		why = "the loopback-only network namespace could not be made (user namespaces disabled? see kernel.unprivileged_userns_clone, kernel.apparmor_restrict_unprivileged_userns): " + reason
	} else if os.Getenv(EnvInside) != "" {
		why = Check().Error()
	}
	if os.Getenv("CI") != "" {
		t.Fatal(why)
	}
	t.Skip(why)
}
