//go:build linux

package hosts

import (
	"errors"
	"fmt"
	"net"
	"os"
	"runtime"

	"golang.org/x/sys/unix"
)

// vnetHdrLen is the size of the virtio_net_hdr that precedes every frame
// read from or written to a packet socket with PACKET_VNET_HDR.
const vnetHdrLen = 10

// maxFrame bounds a frame read from a packet socket: a segmentation
// offload frame is at most 64 KiB plus its headers.
const maxFrame = vnetHdrLen + 14 + 65535 + 64

// inNetns runs f on a thread that has entered the network namespace of
// process pid, and takes the thread back to its own namespace after.
// Sockets f opens belong to pid's namespace for their whole life.
func inNetns(pid int, f func() error) error {
	runtime.LockOSThread()
	self, err := os.Open("/proc/thread-self/ns/net")
	if err != nil {
		runtime.UnlockOSThread()
		return err
	}
	defer self.Close()
	target, err := os.Open(fmt.Sprintf("/proc/%d/ns/net", pid))
	if err != nil {
		runtime.UnlockOSThread()
		return err
	}
	defer target.Close()
	if err := unix.Setns(int(target.Fd()), unix.CLONE_NEWNET); err != nil {
		runtime.UnlockOSThread()
		return fmt.Errorf("setns: %w", err)
	}
	ferr := f()
	if err := unix.Setns(int(self.Fd()), unix.CLONE_NEWNET); err != nil {
		// The thread stays locked, so the runtime ends it with this
		// goroutine rather than run other goroutines in pid's namespace.
		return errors.Join(ferr, fmt.Errorf("setns back: %w", err))
	}
	runtime.UnlockOSThread()
	return ferr
}

// htons converts a 16-bit value to network byte order.
func htons(v uint16) uint16 { return v<<8 | v>>8 }

// openPacket opens a packet socket on interface ifname of the network
// namespace of process pid: it receives every frame that arrives on the
// interface (not those it sends), each preceded by a virtio_net_hdr, and
// sends frames given the same way. The header carries what the kernel
// left undone (a checksum to complete, a large segment to split), so
// frames pass through unchanged. The socket is non-blocking, in the Go
// poller: closing the file ends a blocked Read.
func openPacket(pid int, ifname string) (*os.File, error) {
	fd := -1
	err := inNetns(pid, func() error {
		ifi, err := net.InterfaceByName(ifname)
		if err != nil {
			return err
		}
		fd, err = unix.Socket(unix.AF_PACKET, unix.SOCK_RAW|unix.SOCK_NONBLOCK|unix.SOCK_CLOEXEC, int(htons(unix.ETH_P_ALL)))
		if err != nil {
			return fmt.Errorf("packet socket: %w", err)
		}
		for _, o := range []struct {
			name string
			opt  int
		}{{"PACKET_VNET_HDR", unix.PACKET_VNET_HDR}, {"PACKET_IGNORE_OUTGOING", unix.PACKET_IGNORE_OUTGOING}} {
			if err := unix.SetsockoptInt(fd, unix.SOL_PACKET, o.opt, 1); err != nil {
				return fmt.Errorf("%s: %w", o.name, err)
			}
		}
		_ = unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_RCVBUF, 8<<20)
		_ = unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_SNDBUF, 8<<20)
		return unix.Bind(fd, &unix.SockaddrLinklayer{Protocol: htons(unix.ETH_P_ALL), Ifindex: ifi.Index})
	})
	if err != nil {
		if fd >= 0 {
			unix.Close(fd)
		}
		return nil, fmt.Errorf("hosts: packet socket on %s: %w", ifname, err)
	}
	return os.NewFile(uintptr(fd), ifname), nil
}

// packetDrops returns how many frames the kernel dropped since the last
// call because the socket's receive buffer was full.
func packetDrops(f *os.File) uint64 {
	rc, err := f.SyscallConn()
	if err != nil {
		return 0
	}
	var n uint64
	_ = rc.Control(func(fd uintptr) {
		if st, err := unix.GetsockoptTpacketStats(int(fd), unix.SOL_PACKET, unix.PACKET_STATISTICS); err == nil {
			n = uint64(st.Drops)
		}
	})
	return n
}
