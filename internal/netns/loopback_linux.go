package netns

import (
	"encoding/binary"
	"errors"
	"fmt"
	"net"
	"syscall"
)

// setupLoopback brings lo up with multicast and adds the route
// 224.0.0.0/4 dev lo, the equivalent of
//
//	ip link set lo up multicast on
//	ip route add 224.0.0.0/4 dev lo src 127.0.0.1
//
// The preferred source matters: without it the link-scope route cannot pick
// lo's host-scope 127.0.0.1 and multicast datagrams leave from 0.0.0.0.
//
// It speaks rtnetlink directly rather than running ip: no dependency on
// iproute2 being installed and on PATH, no extra process per test binary,
// and errors that name the failing step.
func setupLoopback() error {
	lo, err := net.InterfaceByName("lo")
	if err != nil {
		return fmt.Errorf("netns: %w", err)
	}
	fd, err := syscall.Socket(syscall.AF_NETLINK, syscall.SOCK_RAW|syscall.SOCK_CLOEXEC, syscall.NETLINK_ROUTE)
	if err != nil {
		return fmt.Errorf("netns: netlink socket: %w", err)
	}
	defer syscall.Close(fd)
	if err := syscall.Bind(fd, &syscall.SockaddrNetlink{Family: syscall.AF_NETLINK}); err != nil {
		return fmt.Errorf("netns: netlink bind: %w", err)
	}

	// ifinfomsg: family, pad, type, index, flags, change
	link := make([]byte, 16)
	link[0] = syscall.AF_UNSPEC
	binary.NativeEndian.PutUint32(link[4:], uint32(lo.Index))
	const flags = syscall.IFF_UP | syscall.IFF_MULTICAST
	binary.NativeEndian.PutUint32(link[8:], flags)
	binary.NativeEndian.PutUint32(link[12:], flags)
	if err := request(fd, 1, syscall.RTM_NEWLINK, syscall.NLM_F_ACK, link); err != nil {
		return fmt.Errorf("netns: set lo up multicast on: %w", err)
	}

	// rtmsg: family, dst_len, src_len, tos, table, protocol, scope, type, flags
	route := []byte{
		syscall.AF_INET, 4, 0, 0,
		syscall.RT_TABLE_MAIN, syscall.RTPROT_BOOT, syscall.RT_SCOPE_LINK, syscall.RTN_UNICAST,
		0, 0, 0, 0,
	}
	route = appendAttr(route, syscall.RTA_DST, []byte{224, 0, 0, 0})
	route = appendAttr(route, syscall.RTA_PREFSRC, []byte{127, 0, 0, 1})
	route = appendAttr(route, syscall.RTA_OIF, binary.NativeEndian.AppendUint32(nil, uint32(lo.Index)))
	err = request(fd, 2, syscall.RTM_NEWROUTE, syscall.NLM_F_ACK|syscall.NLM_F_CREATE|syscall.NLM_F_EXCL, route)
	if err != nil && !errors.Is(err, syscall.EEXIST) {
		return fmt.Errorf("netns: route add 224.0.0.0/4 dev lo: %w", err)
	}
	return nil
}

// appendAttr appends one rtattr (length, type, value, padding to 4 bytes).
func appendAttr(b []byte, typ uint16, value []byte) []byte {
	b = binary.NativeEndian.AppendUint16(b, uint16(syscall.SizeofRtAttr+len(value)))
	b = binary.NativeEndian.AppendUint16(b, typ)
	b = append(b, value...)
	for len(b)%syscall.NLMSG_ALIGNTO != 0 {
		b = append(b, 0)
	}
	return b
}

// request sends one netlink request and waits for its acknowledgement,
// returning the errno the kernel answered with.
func request(fd int, seq uint32, typ uint16, flags uint16, body []byte) error {
	msg := make([]byte, syscall.NLMSG_HDRLEN, syscall.NLMSG_HDRLEN+len(body))
	binary.NativeEndian.PutUint32(msg[0:], uint32(syscall.NLMSG_HDRLEN+len(body)))
	binary.NativeEndian.PutUint16(msg[4:], typ)
	binary.NativeEndian.PutUint16(msg[6:], syscall.NLM_F_REQUEST|flags)
	binary.NativeEndian.PutUint32(msg[8:], seq)
	msg = append(msg, body...)
	if err := syscall.Sendto(fd, msg, 0, &syscall.SockaddrNetlink{Family: syscall.AF_NETLINK}); err != nil {
		return err
	}
	buf := make([]byte, 4096)
	for {
		n, _, err := syscall.Recvfrom(fd, buf, 0)
		if err != nil {
			return err
		}
		msgs, err := syscall.ParseNetlinkMessage(buf[:n])
		if err != nil {
			return err
		}
		for _, m := range msgs {
			if m.Header.Seq != seq || m.Header.Type != syscall.NLMSG_ERROR {
				continue
			}
			if len(m.Data) < 4 {
				return errors.New("short netlink acknowledgement")
			}
			if errno := int32(binary.NativeEndian.Uint32(m.Data)); errno != 0 {
				return syscall.Errno(-errno)
			}
			return nil
		}
	}
}
