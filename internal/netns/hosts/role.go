//go:build linux

package hosts

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"strings"
	"syscall"
	"testing"

	"github.com/afor-go/afor/internal/netns"
)

// envRole names the variable that makes a re-executed test binary play a
// role instead of running its tests.
const envRole = "AFOR_HOSTS_ROLE"

// holderRole is the internal role of the process that holds a host's (or
// the switch's) namespaces.
const holderRole = "afor-hosts-holder"

// envMachineID carries the machine ID a holder gives its host.
const envMachineID = "AFOR_HOSTS_MACHINE_ID"

// A Role is a program the test binary runs, in place of its tests, when a
// test starts it on a host with [Host.StartRole]. It gets the arguments
// given there and returns the process's exit status. Its standard input is
// closed when the test ends (or by [Proc.Stop]): a role that serves until
// then reads it to its end.
type Role func(args []string) int

// Main is the TestMain body of a package whose tests use hosts:
//
//	func TestMain(m *testing.M) { os.Exit(hosts.Main(m, roles)) }
//
// In a process started as a role it runs that role; otherwise it runs the
// tests inside a user and network namespace ([netns.Main]), where [New]
// can make hosts.
func Main(m *testing.M, roles map[string]Role) int {
	if code, done := RunRole(roles); done {
		return code
	}
	return netns.Main(m)
}

// RunRole runs the role the process was started as, and returns its exit
// status with done true; in a process that is no role it returns done
// false. A TestMain that composes with other wrappers (goleak) calls it
// first:
//
//	if code, done := hosts.RunRole(roles); done {
//		os.Exit(code)
//	}
//	if code, done := netns.Exec(); done {
//		os.Exit(code)
//	}
//	goleak.VerifyTestMain(m)
func RunRole(roles map[string]Role) (code int, done bool) {
	name := os.Getenv(envRole)
	if name == "" {
		return 0, false
	}
	if name == holderRole {
		return hold(), true
	}
	r, ok := roles[name]
	if !ok {
		fmt.Fprintf(os.Stderr, "hosts: unknown role %q\n", name)
		return 2, true
	}
	return r(os.Args[1:]), true
}

// hold is the holder process: it runs in the new network and mount
// namespaces it was cloned into, gives the host a /dev/shm and a machine
// ID of its own and no IPv6 (whose neighbour discovery would only add
// noise to the links), says "ready" and waits for its standard input to
// close. The namespaces live as long as it does.
func hold() int {
	fail := func(step string, err error) int {
		fmt.Printf("error %s: %v\n", step, err)
		return 1
	}
	// Mounts made here must stay here (they cannot reach a more
	// privileged namespace anyway).
	_ = syscall.Mount("", "/", "", syscall.MS_REC|syscall.MS_PRIVATE, "")
	if _, err := os.Stat("/dev/shm"); err == nil {
		if err := syscall.Mount("tmpfs", "/dev/shm", "tmpfs", syscall.MS_NOSUID|syscall.MS_NODEV, "mode=1777"); err != nil {
			return fail("mounting /dev/shm", err)
		}
	}
	if id := os.Getenv(envMachineID); id != "" {
		if _, err := os.Stat("/etc/machine-id"); err == nil {
			f := "/dev/shm/.afor-hosts-machine-id"
			if err := os.WriteFile(f, []byte(id+"\n"), 0o444); err != nil {
				return fail("writing the machine ID", err)
			}
			if err := syscall.Mount(f, "/etc/machine-id", "", syscall.MS_BIND, ""); err != nil {
				return fail("mounting the machine ID", err)
			}
		}
	}
	for _, k := range []string{"all", "default"} {
		_ = os.WriteFile("/proc/sys/net/ipv6/conf/"+k+"/disable_ipv6", []byte("1"), 0)
	}
	fmt.Println("ready")
	_, _ = io.Copy(io.Discard, os.Stdin)
	return 0
}

// readReady reads the holder's first line: "ready" or "error ...".
func readReady(r io.Reader) error {
	line, err := bufio.NewReader(r).ReadString('\n')
	line = strings.TrimSpace(line)
	switch {
	case line == "ready":
		return nil
	case line != "":
		return fmt.Errorf("holder: %s", line)
	}
	return fmt.Errorf("holder exited: %v", err)
}
