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
	"os/exec"
	"os/signal"
	"runtime"
	"syscall"
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

// reexec runs this binary again, same arguments, in a new user and network
// namespace, with stdin, stdout and stderr shared. It returns an error only
// when the child could not be started.
func reexec() (int, error) {
	exe, err := os.Executable()
	if err != nil {
		return 0, fmt.Errorf("netns: %w", err)
	}
	cmd := exec.Command(exe, os.Args[1:]...)
	cmd.Args[0] = os.Args[0]
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	cmd.Env = append(os.Environ(), EnvInside+"=1")
	uid, gid := os.Getuid(), os.Getgid()
	cmd.SysProcAttr = &syscall.SysProcAttr{
		Cloneflags: syscall.CLONE_NEWUSER | syscall.CLONE_NEWNET,
		// root inside: CAP_NET_ADMIN over the new network namespace
		UidMappings: []syscall.SysProcIDMap{{ContainerID: 0, HostID: uid, Size: 1}},
		GidMappings: []syscall.SysProcIDMap{{ContainerID: 0, HostID: gid, Size: 1}},
		// the child must not outlive a parent killed by go test's timeout
		Pdeathsig: syscall.SIGKILL,
	}
	// Pdeathsig follows the thread that started the child, not the process:
	// keep this goroutine on that thread until the child is gone.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if err := cmd.Start(); err != nil {
		return 0, fmt.Errorf("netns: starting the test binary in a new user+network namespace: %w", err)
	}
	// Signals meant for the tests (go test's SIGQUIT on timeout, an
	// interrupt) go to the child, whose stack dump is the useful one.
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM, syscall.SIGQUIT)
	forwarded := make(chan struct{})
	go func() {
		defer close(forwarded)
		for s := range sigs {
			_ = cmd.Process.Signal(s)
		}
	}()
	err = cmd.Wait()
	signal.Stop(sigs)
	close(sigs)
	<-forwarded
	var exit *exec.ExitError
	switch {
	case err == nil:
		return 0, nil
	case errors.As(err, &exit):
		if ws, ok := exit.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			fmt.Fprintf(os.Stderr, "netns: test binary killed by %v\n", ws.Signal())
			return 128 + int(ws.Signal()), nil
		}
		return exit.ExitCode(), nil
	default:
		fmt.Fprintf(os.Stderr, "netns: waiting for the test binary: %v\n", err)
		return 1, nil
	}
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
