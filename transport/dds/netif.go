package dds

import (
	"context"
	"fmt"
	"maps"
	"net"
	"net/netip"
	"slices"
	"sync"
	"time"

	"github.com/afor-go/afor/transport/dds/internal/rtps"
)

// Interfaces, addresses and multicast.
//
// A participant announces the IPv4 addresses of the host's interfaces
// that are up, loopback excepted (or those of Config.Interfaces), in every
// discovery range, as Fast DDS does: a peer on another host that learns
// of it through a static peer can then answer, and a Fast DDS peer on the
// same host, which ignores a loopback locator from a participant it does
// not know to be local, reaches it at once. With no such address it
// announces 127.0.0.1. In the SUBNET range it multicasts its SPDP
// announcements on every multicast-capable interface among them, not only
// the one the routing table would pick, and listens on each.
//
// The host's interfaces are read again before every SPDP announcement
// (every AnnouncePeriod): an address that changed, an interface that went
// down or came up, is announced at once (the fast announcements start
// again), the participant's writers announce their new locators through
// SEDP, and multicast follows the interfaces. A remote participant whose
// announced locators change is followed the same way: its endpoints' and
// its discovery endpoints' destinations change in place, with nothing
// unmatched.

// netIface is a network interface as discovery sees it.
type netIface struct {
	index     int
	name      string
	up        bool
	multicast bool
	loopback  bool
	prefixes  []netip.Prefix // IPv4 only
}

// listInterfaces reads the host's interfaces.
func listInterfaces() ([]netIface, error) {
	ifs, err := net.Interfaces()
	if err != nil {
		return nil, err
	}
	out := make([]netIface, 0, len(ifs))
	for _, ifc := range ifs {
		ni := netIface{
			index: ifc.Index, name: ifc.Name, up: ifc.Flags&net.FlagUp != 0,
			multicast: ifc.Flags&net.FlagMulticast != 0, loopback: ifc.Flags&net.FlagLoopback != 0,
		}
		as, err := ifc.Addrs()
		if err != nil {
			continue
		}
		for _, a := range as {
			pfx, err := netip.ParsePrefix(a.String())
			if err != nil || !pfx.Addr().Is4() {
				continue
			}
			ni.prefixes = append(ni.prefixes, pfx)
		}
		out = append(out, ni)
	}
	return out, nil
}

// loopbackAddr is 127.0.0.1.
var loopbackAddr = netip.AddrFrom4([4]byte{127, 0, 0, 1})

// localNet is what the participant knows of the host's network at one
// time: what it announces, where it multicasts, what is local. It is
// replaced as a whole when the interfaces change.
type localNet struct {
	addrs            []netip.Addr // announced
	meta, user, acks []rtps.Locator
	// mcast lists the interfaces SPDP is multicast on (SUBNET range).
	mcast []netIface
	// own holds every address of the host (127.0.0.1 too), subnets the
	// subnets of its interfaces that are up: see pickLocators.
	own     map[netip.Addr]bool
	subnets []netip.Prefix
}

// selectAddrs chooses, among ifs, the addresses to announce and the
// interfaces to multicast on (see the comment at the top of the file).
// When strict, a Config.Interfaces name that matches no interface with an
// IPv4 address is an error; else it contributes nothing (it may come
// back).
func (r *resolved) selectAddrs(ifs []netIface, strict bool) (addrs []netip.Addr, mcast []netIface, err error) {
	addMcast := func(ni netIface) {
		if r.multicast && ni.up && ni.multicast && !slices.ContainsFunc(mcast, func(m netIface) bool { return m.index == ni.index }) {
			mcast = append(mcast, ni)
		}
	}
	if len(r.Interfaces) > 0 {
		for _, s := range r.Interfaces {
			if a, err := netip.ParseAddr(s); err == nil && a.Unmap().Is4() {
				a = a.Unmap()
				addrs = append(addrs, a)
				for _, ni := range ifs {
					if slices.ContainsFunc(ni.prefixes, func(p netip.Prefix) bool { return p.Addr() == a }) {
						addMcast(ni)
					}
				}
				continue
			}
			i := slices.IndexFunc(ifs, func(ni netIface) bool { return ni.name == s })
			if i < 0 || len(ifs[i].prefixes) == 0 {
				if strict {
					return nil, nil, fmt.Errorf("%w: interface %q not found or without IPv4 address", ErrInvalidConfig, s)
				}
				continue
			}
			if !ifs[i].up {
				continue
			}
			for _, p := range ifs[i].prefixes {
				addrs = append(addrs, p.Addr())
			}
			addMcast(ifs[i])
		}
	} else {
		for _, ni := range ifs {
			if !ni.up || ni.loopback {
				continue
			}
			for _, p := range ni.prefixes {
				addrs = append(addrs, p.Addr())
			}
			addMcast(ni)
		}
	}
	if len(addrs) == 0 {
		addrs = []netip.Addr{loopbackAddr}
		for _, ni := range ifs {
			if ni.loopback {
				addMcast(ni)
			}
		}
	}
	return addrs, mcast, nil
}

// newLocalNet builds the participant's view of ifs, with the ports of its
// sockets.
func (p *Participant) newLocalNet(ifs []netIface, strict bool) (*localNet, error) {
	addrs, mcast, err := p.cfg.selectAddrs(ifs, strict)
	if err != nil {
		return nil, err
	}
	ln := &localNet{addrs: addrs, mcast: mcast, own: map[netip.Addr]bool{loopbackAddr: true}}
	d, i := p.cfg.DomainID, p.socks.index
	ackPort := p.socks.acks.LocalAddr().(*net.UDPAddr).AddrPort().Port()
	for _, a := range addrs {
		ln.own[a] = true
		ln.meta = append(ln.meta, rtps.LocatorUDPv4(a, uint16(metaUnicastPort(d, i))))
		ln.user = append(ln.user, rtps.LocatorUDPv4(a, uint16(userUnicastPort(d, i))))
		ln.acks = append(ln.acks, rtps.LocatorUDPv4(a, ackPort))
	}
	for _, ni := range ifs {
		for _, pfx := range ni.prefixes {
			ln.own[pfx.Addr()] = true
			if ni.up && !ni.loopback {
				ln.subnets = append(ln.subnets, pfx.Masked())
			}
		}
	}
	return ln, nil
}

// sameAnnouncement reports whether a and b announce the same thing.
func (a *localNet) sameAnnouncement(b *localNet) bool {
	if !slices.Equal(a.addrs, b.addrs) || len(a.mcast) != len(b.mcast) {
		return false
	}
	for i := range a.mcast {
		if a.mcast[i].index != b.mcast[i].index {
			return false
		}
	}
	return true
}

// onSubnet reports whether a is in a subnet of one of the host's
// interfaces.
func (a *localNet) onSubnet(addr netip.Addr) bool {
	for _, p := range a.subnets {
		if p.Contains(addr) {
			return true
		}
	}
	return false
}

// netView returns the participant's current view of the network.
func (p *Participant) netView() *localNet { return p.netState.Load() }

// refreshNet reads the interfaces again and, when what the participant
// announces or where it multicasts changed, switches to the new view and
// reports true.
func (p *Participant) refreshNet() bool {
	ifs, err := p.cfg.interfaces()
	if err != nil {
		p.log.Debug("dds: listing interfaces", "err", err)
		return false
	}
	ln, err := p.newLocalNet(ifs, false)
	if err != nil {
		return false
	}
	old := p.netView()
	if old.sameAnnouncement(ln) {
		if !maps.Equal(old.own, ln.own) || !slices.Equal(old.subnets, ln.subnets) {
			p.netState.Store(ln)
		}
		return false
	}
	p.netState.Store(ln)
	p.mcaster.follow(p, ln.mcast)
	p.log.Debug("dds: interfaces changed", "addrs", ln.addrs, "multicast", len(ln.mcast))
	return true
}

// multicaster sends the participant's multicast datagrams on each of its
// multicast interfaces, from a socket per interface, and keeps the SPDP
// socket a member of the group on each.
type multicaster struct {
	mu     sync.Mutex
	conns  map[int]*net.UDPConn // by interface index
	order  []int
	joined map[int]bool
	closed bool
}

func newMulticaster() *multicaster {
	return &multicaster{conns: map[int]*net.UDPConn{}, joined: map[int]bool{}}
}

// follow opens the sockets of the interfaces in ifs, closes the others,
// and joins the SPDP group on the new ones. It returns how many
// interfaces the group is joined on.
func (m *multicaster) follow(p *Participant, ifs []netIface) int {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return 0
	}
	keep := map[int]bool{}
	m.order = m.order[:0]
	for _, ni := range ifs {
		keep[ni.index] = true
		m.order = append(m.order, ni.index)
		if p.socks.spdp != nil && !m.joined[ni.index] {
			if err := joinGroup(p.socks.spdp, spdpMulticastGroup, ifaceIP(ni)); err != nil {
				p.log.Warn("dds: cannot join the SPDP multicast group", "interface", ni.name, "err", err)
			} else {
				m.joined[ni.index] = true
			}
		}
		if m.conns[ni.index] != nil {
			continue
		}
		c, err := listenUDP(0, false)
		if err == nil {
			if err = setMulticastIface(c, ni); err != nil {
				c.Close()
			}
		}
		if err != nil {
			p.log.Warn("dds: cannot multicast on an interface", "interface", ni.name, "err", err)
			continue
		}
		m.conns[ni.index] = c
	}
	for i, c := range m.conns {
		if !keep[i] {
			c.Close()
			delete(m.conns, i)
		}
	}
	n := 0
	for i := range keep {
		if m.joined[i] {
			n++
		}
	}
	return n
}

// send sends the datagram made of head, body and tail to the group ap on
// every multicast interface, and returns how many sends succeeded and
// failed.
func (m *multicaster) send(head, body, tail []byte, ap netip.AddrPort) (sent, failed int, err error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(m.order) == 0 {
		return 0, 0, nil
	}
	b := slices.Concat(head, body, tail)
	for _, i := range m.order {
		c := m.conns[i]
		if c == nil {
			continue
		}
		if _, e := c.WriteToUDPAddrPort(b, ap); e != nil {
			failed++
			err = e
			continue
		}
		sent++
	}
	return sent, failed, err
}

// close closes the sockets.
func (m *multicaster) close() {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.closed = true
	for i, c := range m.conns {
		c.Close()
		delete(m.conns, i)
	}
	m.order = nil
}

// ifaceIP returns the first IPv4 address of an interface, for the socket
// options that name an interface by address.
func ifaceIP(ni netIface) net.IP {
	if len(ni.prefixes) == 0 {
		return net.IPv4zero
	}
	b := ni.prefixes[0].Addr().As4()
	return net.IPv4(b[0], b[1], b[2], b[3])
}

// republish announces the participant's endpoints again through SEDP, with
// its current locators, after its addresses changed.
func (p *Participant) republish() {
	p.mu.RLock()
	var eds []rtps.EndpointData
	for _, w := range p.writers {
		eds = append(eds, p.endpointData(w.guid, w.topic, w.qos))
	}
	for _, r := range p.readers {
		eds = append(eds, p.endpointData(r.guid, r.topic, r.qos))
	}
	p.mu.RUnlock()
	for i := range eds {
		ed := &eds[i]
		w := p.sedpSubW
		if !ed.EndpointGUID.Entity.IsReader() {
			w = p.sedpPubW
		}
		now := time.Now()
		_, _ = w.write(context.Background(), &change{payload: ed.Append(nil), instance: ed.EndpointGUID, ts: rtps.TimeFrom(now)}, true, now)
	}
}
