//go:build linux

package hosts

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"io"
	"net/netip"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/afor-go/afor/internal/netns"
)

// Lab is a set of simulated hosts and the networks between them. Its
// methods are called from the goroutine of the test that made it; they
// fail that test on error. Everything is torn down when the test ends.
type Lab struct {
	t       testing.TB
	exe     string
	nsenter string
	ip      string
	tc      string
	wd      string
	seed    uint64
	sw      *holder

	mu     sync.Mutex
	nets   []*Network
	hosts  []*Host
	closed bool
}

// holder is a process holding a network and a mount namespace.
type holder struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
	pid   int
}

// New makes an empty lab: no hosts, no networks. It skips the test (fails
// it in CI) where the lab cannot be made: outside Linux's user namespaces
// (the package's TestMain must call [Main]), or without ip, tc or nsenter.
func New(t testing.TB) *Lab {
	t.Helper()
	netns.Require(t)
	l := &Lab{t: t}
	for _, tool := range []struct {
		dst  *string
		name string
		pkg  string
	}{{&l.ip, "ip", "iproute2"}, {&l.tc, "tc", "iproute2"}, {&l.nsenter, "nsenter", "util-linux"}} {
		p, err := exec.LookPath(tool.name)
		if err != nil {
			why := fmt.Sprintf("hosts: %s (Debian package %s) is not installed: %v", tool.name, tool.pkg, err)
			if os.Getenv("CI") != "" {
				t.Fatal(why)
			}
			t.Skip(why)
		}
		*tool.dst = p
	}
	var err error
	if l.exe, err = os.Executable(); err != nil {
		t.Fatal(err)
	}
	if l.wd, err = os.Getwd(); err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256([]byte(t.Name()))
	l.seed = binary.LittleEndian.Uint64(sum[:])
	t.Cleanup(l.close)
	l.sw = l.startHolder("switch")
	return l
}

// startHolder starts a holder process in new network and mount
// namespaces; name seeds the machine ID of the host.
func (l *Lab) startHolder(name string) *holder {
	l.t.Helper()
	sum := sha256.Sum256([]byte(fmt.Sprintf("%s/%d", name, l.seed)))
	cmd := exec.Command(l.exe)
	cmd.Env = append(environ(), envRole+"="+holderRole, envMachineID+"="+hex.EncodeToString(sum[:16]))
	cmd.Stderr = os.Stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{
		Cloneflags: syscall.CLONE_NEWNET | syscall.CLONE_NEWNS,
		Pdeathsig:  syscall.SIGKILL,
	}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		l.t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		l.t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		l.t.Fatalf("hosts: starting the namespace holder of %s: %v", name, err)
	}
	h := &holder{cmd: cmd, stdin: stdin, pid: cmd.Process.Pid}
	ready := make(chan error, 1)
	go func() { ready <- readReady(stdout) }()
	select {
	case err = <-ready:
	case <-time.After(20 * time.Second):
		err = fmt.Errorf("not ready in 20 s")
	}
	if err != nil {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		l.t.Fatalf("hosts: namespaces of %s: %v", name, err)
	}
	go func() { _, _ = io.Copy(io.Discard, stdout) }()
	l.run(h, l.ip, "link", "set", "lo", "up")
	return h
}

// stop ends the holder, and with it its namespaces once nothing else
// runs in them.
func (h *holder) stop() {
	_ = h.stdin.Close()
	done := make(chan struct{})
	go func() { _ = h.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		_ = h.cmd.Process.Kill()
		<-done
	}
}

// environ is the process's environment without the role variables, and
// with GORACE's atexit_sleep_ms at 0 (unless set): a test binary built with
// -race otherwise waits a second before it exits, each role and holder.
func environ() []string {
	var env []string
	gorace := "atexit_sleep_ms=0"
	for _, kv := range os.Environ() {
		switch {
		case strings.HasPrefix(kv, envRole+"="), strings.HasPrefix(kv, envMachineID+"="):
		case strings.HasPrefix(kv, "GORACE="):
			if v := strings.TrimPrefix(kv, "GORACE="); strings.Contains(v, "atexit_sleep_ms") {
				gorace = v
			} else {
				gorace = strings.TrimSpace(v + " " + gorace)
			}
		default:
			env = append(env, kv)
		}
	}
	return append(env, "GORACE="+gorace)
}

// command returns a command that runs name in h's namespaces, in the test's
// working directory.
func (l *Lab) command(h *holder, name string, args ...string) *exec.Cmd {
	pid := strconv.Itoa(h.pid)
	a := append([]string{"--target", pid, "--net", "--mount", "--wd=" + l.wd, "--", name}, args...)
	cmd := exec.Command(l.nsenter, a...)
	cmd.Env = environ()
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	return cmd
}

// output runs a command in h's namespaces and returns its output.
func (l *Lab) output(h *holder, name string, args ...string) (string, error) {
	out, err := l.command(h, name, args...).CombinedOutput()
	if err != nil {
		return string(out), fmt.Errorf("hosts: %s %s: %v: %s", name, strings.Join(args, " "), err, strings.TrimSpace(string(out)))
	}
	return string(out), nil
}

// run runs a command in h's namespaces, failing the test on error.
func (l *Lab) run(h *holder, name string, args ...string) {
	l.t.Helper()
	if _, err := l.output(h, name, args...); err != nil {
		l.t.Fatal(err)
	}
}

// close tears the lab down: the switch's ports, then the holders.
func (l *Lab) close() {
	l.mu.Lock()
	l.closed = true
	nets, hosts := l.nets, l.hosts
	l.mu.Unlock()
	for _, n := range nets {
		n.lan.close()
	}
	for _, h := range hosts {
		h.holder.stop()
	}
	if l.sw != nil {
		l.sw.stop()
	}
}

// Network is a LAN: an IPv4 /24 whose hosts are numbered from 1 in the
// order they join it (10.77.1.1, 10.77.1.2, ... for the first network).
type Network struct {
	// Name names the network in messages.
	Name string
	// Prefix is the network's subnet.
	Prefix netip.Prefix
	lab    *Lab
	lan    *lan
	index  int
	joined int
}

// Network adds a LAN: the n-th network of the lab has the subnet
// 10.77.n.0/24.
func (l *Lab) Network(name string) *Network {
	l.t.Helper()
	l.mu.Lock()
	defer l.mu.Unlock()
	i := len(l.nets) + 1
	if i > 250 {
		l.t.Fatal("hosts: too many networks")
	}
	n := &Network{Name: name, Prefix: netip.PrefixFrom(netip.AddrFrom4([4]byte{10, 77, byte(i), 0}), 24), lab: l, lan: newLAN(), index: i}
	l.nets = append(l.nets, n)
	return n
}

// Addr returns the address of the n-th host to join the network (n from 1).
func (n *Network) Addr(host int) netip.Addr {
	a := n.Prefix.Addr().As4()
	a[3] = byte(host)
	return netip.AddrFrom4(a)
}

// Host is a simulated machine: a network namespace with an interface on
// each network it was given, and a mount namespace of its own (its own
// /dev/shm and /etc/machine-id).
type Host struct {
	// Name names the host in messages.
	Name   string
	lab    *Lab
	holder *holder
	index  int
	links  []*Link
}

// Host adds a host with one interface on each of nets, in order: eth0 on
// the first, eth1 on the second... Each has the host's address on that
// network, and the first has the route to 224.0.0.0/4, so multicast leaves
// through it unless a program picks another interface.
func (l *Lab) Host(name string, nets ...*Network) *Host {
	l.t.Helper()
	h := &Host{Name: name, lab: l, holder: l.startHolder(name)}
	l.mu.Lock()
	l.hosts = append(l.hosts, h)
	h.index = len(l.hosts)
	l.mu.Unlock()
	for i, n := range nets {
		h.addLink(i, n)
	}
	return h
}

// addLink connects h to network n through interface eth<i>.
func (h *Host) addLink(i int, n *Network) {
	l := h.lab
	l.t.Helper()
	n.joined++
	lk := &Link{Host: h, Name: "eth" + strconv.Itoa(i), Network: n,
		sw: fmt.Sprintf("h%de%d", h.index, i), addr: n.Addr(n.joined), first: i == 0}
	l.run(l.sw, l.ip, "link", "add", lk.sw, "type", "veth", "peer", "name", lk.Name, "netns", strconv.Itoa(h.holder.pid))
	l.run(l.sw, l.ip, "link", "set", lk.sw, "up")
	l.run(h.holder, l.ip, "addr", "add", netip.PrefixFrom(lk.addr, n.Prefix.Bits()).String(), "dev", lk.Name)
	l.run(h.holder, l.ip, "link", "set", lk.Name, "up")
	if lk.first {
		l.run(h.holder, l.ip, "route", "add", "224.0.0.0/4", "dev", lk.Name)
	}
	f, err := openPacket(l.sw.pid, lk.sw)
	if err != nil {
		l.t.Fatal(err)
	}
	seed := l.seed + uint64(h.index)<<32 + uint64(i)<<16
	if lk.port, err = n.lan.addPort(f, seed); err != nil {
		f.Close()
		l.t.Fatal(err)
	}
	h.links = append(h.links, lk)
}

// Addr returns the address of the host's first interface.
func (h *Host) Addr() netip.Addr { return h.links[0].Addr() }

// Links returns the host's links, eth0 first.
func (h *Host) Links() []*Link { return h.links }

// Link returns the link of interface name ("eth0"), failing the test
// when the host has none.
func (h *Host) Link(name string) *Link {
	for _, lk := range h.links {
		if lk.Name == name {
			return lk
		}
	}
	h.lab.t.Fatalf("hosts: %s has no interface %s", h.Name, name)
	return nil
}

// Command returns a command that runs name with args on the host (in its
// network and mount namespaces), in the test's working directory and
// environment. Start it with [Host.Start] to read its events, or run it as
// any command.
func (h *Host) Command(name string, args ...string) *exec.Cmd {
	return h.lab.command(h.holder, name, args...)
}

// RoleCommand returns a command that runs the test binary on the host in
// role (see [Main]) with args.
func (h *Host) RoleCommand(role string, args ...string) *exec.Cmd {
	cmd := h.Command(h.lab.exe, args...)
	cmd.Env = append(cmd.Env, envRole+"="+role)
	return cmd
}

// Start starts cmd (from [Host.Command]) and reads its output as events;
// it stops with the test. name names it in messages.
func (h *Host) Start(t testing.TB, name string, cmd *exec.Cmd) *Proc {
	t.Helper()
	return start(t, h.Name+"/"+name, cmd)
}

// StartRole starts the test binary on the host in role with args, and
// reads its output as events.
func (h *Host) StartRole(t testing.TB, role string, args ...string) *Proc {
	t.Helper()
	return h.Start(t, role, h.RoleCommand(role, args...))
}

// IP runs ip with args on the host (ip route, ip addr ...), failing the
// test on error, and returns its output.
func (h *Host) IP(args ...string) string {
	h.lab.t.Helper()
	out, err := h.lab.output(h.holder, h.lab.ip, args...)
	if err != nil {
		h.lab.t.Fatal(err)
	}
	return out
}

// Sysctl sets a network setting of the host, such as
// "net.ipv4.ipfrag_time" (those under net. belong to the host's network
// namespace), failing the test on error.
func (h *Host) Sysctl(name, value string) {
	h.lab.t.Helper()
	path := "/proc/sys/" + strings.ReplaceAll(name, ".", "/")
	err := inNetns(h.holder.pid, func() error { return os.WriteFile(path, []byte(value), 0) })
	if err != nil {
		h.lab.t.Fatalf("hosts: %s: sysctl %s=%s: %v", h.Name, name, value, err)
	}
}
