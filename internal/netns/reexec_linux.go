package netns

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"runtime"
	"syscall"
)

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
