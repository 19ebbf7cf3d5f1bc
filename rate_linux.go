//go:build linux

package afor

import (
	"encoding/binary"
	"errors"
	"os"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// kernelTicker is a periodic kernel timer (timerfd on CLOCK_MONOTONIC, the
// clock of Go's monotonic readings) that Go's network poller waits on.
//
// Go's own timers are what a Rate would otherwise wait on, and an idle Go
// process waits for them in epoll_pwait, whose timeout counts whole
// milliseconds, rounded down: a tick 4.3 ms away costs a wake-up at 4 ms and
// another one a millisecond later, 0.7 ms late. The kernel's periodic timer
// wakes the poller once, on time, and counts the expirations nobody read.
//
// The descriptor is non-blocking, so its read never waits in the kernel:
// it is a raw system call (syscall.RawSyscall), which skips the runtime's
// entersyscall. An ordinary read would wake the runtime's sysmon thread
// from its deep sleep at every tick of an otherwise idle process, three
// more context switches per tick.
type kernelTicker struct {
	f   *os.File
	rc  syscall.RawConn
	buf [8]byte
	n   uint64
	err syscall.Errno
	fn  func(fd uintptr) bool
}

// newKernelTicker starts a kernel timer that expires at start + k*period
// for k = 1, 2, ... It fails where the kernel has no timerfd, and when
// start has no monotonic clock reading: in a testing/synctest bubble,
// whose fake clock only Go's timers follow.
func newKernelTicker(start time.Time, period time.Duration) (*kernelTicker, error) {
	if start == start.Round(0) { // Round(0) strips the monotonic reading
		return nil, errors.ErrUnsupported
	}
	fd, err := unix.TimerfdCreate(unix.CLOCK_MONOTONIC, unix.TFD_NONBLOCK|unix.TFD_CLOEXEC)
	if err != nil {
		return nil, err
	}
	// start on the kernel's clock, a few nanoseconds late rather than
	// early: a tick never comes before its time.
	elapsed := time.Since(start)
	var now unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_MONOTONIC, &now); err != nil {
		unix.Close(fd)
		return nil, err
	}
	first := time.Duration(now.Nano()) - elapsed + period
	spec := unix.ItimerSpec{
		Value:    unix.NsecToTimespec(int64(first)),
		Interval: unix.NsecToTimespec(int64(period)),
	}
	if err := unix.TimerfdSettime(fd, unix.TFD_TIMER_ABSTIME, &spec, nil); err != nil {
		unix.Close(fd)
		return nil, err
	}
	// A non-blocking descriptor: os.NewFile hands it to the poller.
	f := os.NewFile(uintptr(fd), "afor-rate-timerfd")
	rc, err := f.SyscallConn()
	if err != nil {
		f.Close()
		return nil, err
	}
	t := &kernelTicker{f: f, rc: rc}
	t.fn = t.read
	return t, nil
}

// read reads the expiration count; it reports false when the timer has
// not expired yet (RawConn.Read then waits in the poller).
func (t *kernelTicker) read(fd uintptr) bool {
	for {
		_, _, e := syscall.RawSyscall(syscall.SYS_READ, fd, uintptr(unsafe.Pointer(&t.buf[0])), uintptr(len(t.buf)))
		switch e {
		case syscall.EINTR:
			continue
		case syscall.EAGAIN:
			return false
		}
		t.err = e
		if e == 0 {
			t.n = binary.NativeEndian.Uint64(t.buf[:])
		}
		return true
	}
}

// wait blocks until the timer expires and returns how many times it
// expired since the last wait (at least 1). It fails once close was
// called.
func (t *kernelTicker) wait() (uint64, error) {
	t.n, t.err = 0, 0
	if err := t.rc.Read(t.fn); err != nil {
		return 0, err
	}
	if t.err != 0 {
		return 0, t.err
	}
	return t.n, nil
}

// close stops the timer; a wait under way returns an error.
func (t *kernelTicker) close() { _ = t.f.Close() }
