package zenoh

import (
	"bufio"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"
)

// listenEndpoint returns the TCP endpoint on which the process pid listens,
// read from /proc, waiting up to 10 s for the listener: how a test learns
// the port a peer that was told to listen on port 0 got.
func listenEndpoint(t *testing.T, pid int) string {
	t.Helper()
	if runtime.GOOS != "linux" {
		t.Skip("reading a process's listening port needs Linux's /proc")
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		if port, ok := listeningPort(pid); ok {
			return fmt.Sprintf("tcp/127.0.0.1:%d", port)
		}
		if time.Now().After(deadline) {
			t.Fatalf("process %d listens on no TCP port", pid)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// listeningPort finds a TCP socket of pid in the LISTEN state.
func listeningPort(pid int) (int, bool) {
	dir := fmt.Sprintf("/proc/%d/", pid)
	fds, err := os.ReadDir(dir + "fd")
	if err != nil {
		return 0, false
	}
	inodes := make(map[string]bool)
	for _, fd := range fds {
		target, err := os.Readlink(dir + "fd/" + fd.Name())
		if inode, ok := strings.CutPrefix(target, "socket:["); err == nil && ok {
			inodes[strings.TrimSuffix(inode, "]")] = true
		}
	}
	for _, table := range []string{"net/tcp", "net/tcp6"} {
		f, err := os.Open(dir + table)
		if err != nil {
			continue
		}
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			fields := strings.Fields(sc.Text())
			if len(fields) < 10 || fields[3] != "0A" || !inodes[fields[9]] { // 0A: LISTEN
				continue
			}
			_, hexPort, _ := strings.Cut(fields[1], ":")
			if port, err := strconv.ParseUint(hexPort, 16, 16); err == nil {
				f.Close()
				return int(port), true
			}
		}
		f.Close()
	}
	return 0, false
}

// TestListeningPort checks listeningPort against a listener of this process.
func TestListeningPort(t *testing.T) {
	s := openT(t, Config{Listen: []string{"tcp/127.0.0.1:0"}})
	if got := listenEndpoint(t, os.Getpid()); got != s.ListenAddrs()[0] {
		t.Fatalf("listenEndpoint = %s, want %s", got, s.ListenAddrs()[0])
	}
}
