package zenoh

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"iter"
	"net"
	"net/netip"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/afor-go/afor/transport/zenoh/internal/wire"
)

// Scouting defaults, applied to zero fields of ScoutingConfig.
const (
	// DefaultScoutAddress is the multicast group and port Zenoh nodes
	// scout on.
	DefaultScoutAddress = "224.0.0.224:7446"
	// DefaultScoutPeriod is the first pause between two SCOUT messages.
	DefaultScoutPeriod = time.Second
	// DefaultScoutTimeout bounds how long Open scouts for a node to
	// connect to in client mode.
	DefaultScoutTimeout = 3 * time.Second
)

// maxScoutPeriodFactor caps the scout period at this many Periods.
const maxScoutPeriodFactor = 8

// ScoutingConfig configures UDP multicast scouting: SCOUT messages sent to
// a multicast group, answered by each node with a HELLO giving its Zenoh
// ID, its role and its locators, on an IPv4 or IPv6 multicast group.
//
// In a Session (Config.Scouting), scouting is off unless Multicast is set.
// A scouting peer answers the SCOUTs of others, scouts for routers and
// peers, and links to each one it finds, once per node; without Listen
// endpoints it listens on an ephemeral TCP port of the scouting interface
// (of every interface when Interface is empty), since a HELLO without
// locators cannot be linked to. A scouting client with no Connect endpoint
// scouts for a router or a peer, links to the first one found (Open fails
// with ErrNoRouter after Timeout), and scouts again when that link is lost;
// a scouting client with Connect endpoints links only to those, and only
// answers SCOUTs. Open does not wait for scouted links in peer mode: use
// Session.WaitConnected.
//
// The zero value, with Multicast set, scouts on the reference group
// 224.0.0.224:7446 through the one interface that the operating system's
// routing table chooses (the reference implementation uses every
// multicast interface); set Interface to "lo" to stay on one host.
type ScoutingConfig struct {
	// Multicast enables multicast scouting in a Session. It is false by
	// default, so that sessions in the same network (tests especially)
	// never link to each other unless asked to. Scout ignores it.
	Multicast bool
	// Address is the multicast group and UDP port, "host:port" with an
	// IPv4 or IPv6 multicast host ("[ff02::7a]:7446"). Default
	// DefaultScoutAddress.
	Address string
	// Interface is the network interface to scout on, by name ("lo",
	// "eth0") or by one of its addresses (IPv4 for an IPv4 group). Empty lets the operating
	// system choose (the interface of the multicast or default route).
	Interface string
	// Period is the pause between the first two SCOUT messages; it doubles
	// after each SCOUT up to 8 times Period. Default 1 s.
	Period time.Duration
	// Timeout bounds, in client mode without Connect endpoints, how long
	// Open scouts for a router or a peer. Default 3 s.
	Timeout time.Duration
}

// scoutParams is a validated ScoutingConfig with defaults applied.
type scoutParams struct {
	ScoutingConfig
	group  *net.UDPAddr
	ifaddr net.IP // IPv4 groups: nil for the operating system's choice
	// ifindex is the interface of an IPv6 group (0: the operating
	// system's choice).
	ifindex int
}

// v6 reports whether the group is an IPv6 one.
func (p *scoutParams) v6() bool { return p.group.IP.To4() == nil }

// network is the UDP network of the scouting sockets.
func (p *scoutParams) network() string {
	if p.v6() {
		return "udp6"
	}
	return "udp4"
}

// resolve validates c and fills in the defaults. It looks the interface
// up, so an unknown interface name fails here.
func (c ScoutingConfig) resolve() (*scoutParams, error) {
	p := &scoutParams{ScoutingConfig: c}
	if p.Address == "" {
		p.Address = DefaultScoutAddress
	}
	host, port, err := net.SplitHostPort(p.Address)
	if err != nil {
		return nil, fmt.Errorf("%w: Scouting.Address %q: want a multicast host:port, e.g. %s: %v",
			ErrInvalidConfig, p.Address, DefaultScoutAddress, err)
	}
	ip := net.ParseIP(host)
	if ip == nil || !ip.IsMulticast() {
		return nil, fmt.Errorf("%w: Scouting.Address %q: %q is not a multicast address (224.0.0.0/4 or ff00::/8)",
			ErrInvalidConfig, p.Address, host)
	}
	if ip.To4() != nil {
		ip = ip.To4()
	}
	n, err := strconv.ParseUint(port, 10, 16)
	if err != nil || n == 0 {
		return nil, fmt.Errorf("%w: Scouting.Address %q: bad port %q", ErrInvalidConfig, p.Address, port)
	}
	p.group = &net.UDPAddr{IP: ip, Port: int(n)}
	switch {
	case p.Period < 0:
		return nil, fmt.Errorf("%w: negative Scouting.Period", ErrInvalidConfig)
	case p.Period == 0:
		p.Period = DefaultScoutPeriod
	}
	switch {
	case p.Timeout < 0:
		return nil, fmt.Errorf("%w: negative Scouting.Timeout", ErrInvalidConfig)
	case p.Timeout == 0:
		p.Timeout = DefaultScoutTimeout
	}
	if p.Interface != "" && p.v6() {
		ifi, err := interfaceOf(p.Interface)
		if err != nil {
			return nil, fmt.Errorf("%w: Scouting.Interface %q: %w", ErrInvalidConfig, p.Interface, err)
		}
		p.ifindex = ifi.Index
	} else if p.Interface != "" {
		if p.ifaddr, err = interfaceAddr(p.Interface); err != nil {
			return nil, fmt.Errorf("%w: Scouting.Interface %q: %w", ErrInvalidConfig, p.Interface, err)
		}
	}
	return p, nil
}

// interfaceAddr returns the IPv4 address named by name: an address itself,
// or the first IPv4 address of the interface called name.
func interfaceAddr(name string) (net.IP, error) {
	if ip := net.ParseIP(name); ip != nil {
		if ip.To4() == nil {
			return nil, errors.New("not an IPv4 address")
		}
		return ip.To4(), nil
	}
	ifi, err := net.InterfaceByName(name)
	if err != nil {
		return nil, err
	}
	addrs, err := ifi.Addrs()
	if err != nil {
		return nil, err
	}
	for _, a := range addrs {
		if ipn, ok := a.(*net.IPNet); ok && ipn.IP.To4() != nil {
			return ipn.IP.To4(), nil
		}
	}
	return nil, errors.New("interface has no IPv4 address")
}

// interfaceOf returns the interface called name, or holding the address
// name.
func interfaceOf(name string) (*net.Interface, error) {
	ip := net.ParseIP(name)
	if ip == nil {
		return net.InterfaceByName(name)
	}
	ifs, err := net.Interfaces()
	if err != nil {
		return nil, err
	}
	for i := range ifs {
		addrs, _ := ifs[i].Addrs()
		for _, a := range addrs {
			if ipn, ok := a.(*net.IPNet); ok && ipn.IP.Equal(ip) {
				return &ifs[i], nil
			}
		}
	}
	return nil, errors.New("no interface has this address")
}

// defaultListen is the endpoint of a scouting peer without Listen
// endpoints: an ephemeral port on the scouting interface, or on every
// interface.
func (p *scoutParams) defaultListen() endpoint {
	host := "0.0.0.0"
	if p.v6() {
		host = "::"
	}
	if p.ifaddr != nil {
		host = p.ifaddr.String()
	}
	return endpoint{proto: "tcp", addr: net.JoinHostPort(host, "0")}
}

// listenGroup opens the socket that receives the group's datagrams.
func (p *scoutParams) listenGroup(ctx context.Context) (*net.UDPConn, error) {
	var lc net.ListenConfig
	// For a multicast address, Go binds the port on the wildcard address
	// with SO_REUSEADDR, so other nodes of this host can bind it too.
	pc, err := lc.ListenPacket(ctx, p.network(), p.group.String())
	if err != nil {
		return nil, fmt.Errorf("zenoh: scouting: listen on %s: %w", p.group, err)
	}
	c := pc.(*net.UDPConn)
	join := func() error { return joinGroup(c, p.group.IP, p.ifaddr) }
	if p.v6() {
		join = func() error { return joinGroup6(c, p.group.IP, p.ifindex) }
	}
	if err := join(); err != nil {
		_ = c.Close()
		return nil, fmt.Errorf("zenoh: scouting: join %s on %s: %w", p.group.IP, p.ifaceName(), err)
	}
	return c, nil
}

// listenUnicast opens the socket that sends SCOUTs to the group and
// exchanges HELLOs with other nodes.
func (p *scoutParams) listenUnicast(ctx context.Context) (*net.UDPConn, error) {
	var lc net.ListenConfig
	laddr := "0.0.0.0:0"
	switch {
	case p.v6():
		laddr = "[::]:0"
	case p.ifaddr != nil:
		laddr = net.JoinHostPort(p.ifaddr.String(), "0")
	}
	pc, err := lc.ListenPacket(ctx, p.network(), laddr)
	if err != nil {
		return nil, fmt.Errorf("zenoh: scouting: listen on %s: %w", laddr, err)
	}
	c := pc.(*net.UDPConn)
	set := func() error { return setMulticastSend(c, p.ifaddr) }
	if p.v6() {
		set = func() error { return setMulticastSend6(c, p.ifindex) }
	}
	if err := set(); err != nil {
		_ = c.Close()
		return nil, fmt.Errorf("zenoh: scouting: multicast on %s: %w", p.ifaceName(), err)
	}
	return c, nil
}

func (p *scoutParams) ifaceName() string {
	if p.Interface == "" {
		return "the default interface"
	}
	return p.Interface
}

// sendScouts multicasts scout every period, doubling the period up to
// maxScoutPeriodFactor times p.Period (unless steady reports true, which
// keeps it at p.Period), until ctx ends.
func (p *scoutParams) sendScouts(ctx context.Context, c *net.UDPConn, scout []byte, steady func() bool, log func(msg string, args ...any)) {
	delay := p.Period
	t := time.NewTimer(0)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if _, err := c.WriteToUDP(scout, p.group); err != nil && ctx.Err() == nil {
			log("zenoh: scouting: send SCOUT failed", "group", p.group.String(), "err", err)
		}
		t.Reset(delay)
		if steady != nil && steady() {
			delay = p.Period
		} else {
			delay = min(2*delay, maxScoutPeriodFactor*p.Period)
		}
	}
}

// Role is the role of a Zenoh node, as announced in a HELLO.
type Role uint8

// Roles of Zenoh nodes.
const (
	RoleRouter Role = iota + 1
	RolePeer
	RoleClient
)

// String returns "router", "peer", "client" or "Role(n)".
func (r Role) String() string {
	switch r {
	case RoleRouter:
		return "router"
	case RolePeer:
		return "peer"
	case RoleClient:
		return "client"
	}
	return "Role(" + strconv.Itoa(int(r)) + ")"
}

func roleOf(w wire.WhatAmI) Role { return Role(w) + 1 }

// matcher returns the SCOUT bitmap asking for roles (all when empty).
func matcher(roles []Role) (wire.WhatAmIMatcher, error) {
	if len(roles) == 0 {
		return wire.MatchAll, nil
	}
	var m wire.WhatAmIMatcher
	for _, r := range roles {
		if r < RoleRouter || r > RoleClient {
			return 0, fmt.Errorf("%w: scouting for %v", ErrInvalidConfig, r)
		}
		m |= 1 << (r - 1)
	}
	return m, nil
}

// Hello describes a Zenoh node found by scouting.
type Hello struct {
	// ZID is the node's Zenoh ID, formatted as Session.ZID formats it.
	ZID string
	// Role is what the node is.
	Role Role
	// Locators are where the node accepts links, like
	// "tcp/127.0.0.1:7447". A node that sends none (a client, usually) is
	// reachable only through the links it makes.
	Locators []string
	// From is the address the HELLO came from.
	From *net.UDPAddr
}

// zidString formats a wire Zenoh ID as Session.ZID does.
func zidString(z wire.ZenohID) string {
	b := slices.Clone(z.Slice())
	slices.Reverse(b)
	return fmt.Sprintf("%x", b)
}

// maxScoutSeen bounds the nodes Scout remembers to report each once.
const maxScoutSeen = 4096

// Scout discovers Zenoh nodes by multicast scouting, as zenoh.scout does
// in Python: it sends SCOUT messages asking for the given roles (every
// role when none is given) to cfg's group, every cfg.Period and then less
// often, and yields each node that answers. A node is yielded again only
// when its HELLO changes. cfg.Multicast is ignored.
//
// The sequence ends when ctx ends or the loop breaks; the sockets are
// closed by then. An error (a bad cfg, a socket that cannot be opened or
// fails) is yielded once, with a zero Hello, as the last element.
// Datagrams that are not HELLOs are ignored. The sequence is single-use:
// each range over it scouts anew.
func Scout(ctx context.Context, cfg ScoutingConfig, roles ...Role) iter.Seq2[Hello, error] {
	return func(yield func(Hello, error) bool) {
		if ctx.Err() != nil {
			return
		}
		what, err := matcher(roles)
		if err != nil {
			yield(Hello{}, err)
			return
		}
		p, err := cfg.resolve()
		if err != nil {
			yield(Hello{}, err)
			return
		}
		c, err := p.listenUnicast(ctx)
		if err != nil {
			yield(Hello{}, err)
			return
		}
		scout, err := (&wire.Scout{Version: wire.ProtoVersion, What: what}).AppendBinary(nil)
		if err != nil {
			_ = c.Close()
			yield(Hello{}, err)
			return
		}
		ctx, cancel := context.WithCancel(ctx)
		var wg sync.WaitGroup
		wg.Go(func() {
			p.sendScouts(ctx, c, scout, nil, func(string, ...any) {})
			_ = c.Close() // ends the read below
		})
		defer wg.Wait()
		defer cancel()

		seen := make(map[string]string)
		buf := make([]byte, wire.MaxBatchSize)
		for {
			n, from, err := c.ReadFromUDP(buf)
			if err != nil {
				if ctx.Err() == nil {
					yield(Hello{}, fmt.Errorf("zenoh: scouting: %w", err))
				}
				return
			}
			m, _, err := wire.DecodeScouting(buf[:n], wire.Limits{})
			if err != nil {
				continue
			}
			h, ok := m.(*wire.Hello)
			if !ok || !what.Matches(h.WhatAmI) {
				continue
			}
			hello := Hello{ZID: zidString(h.ZID), Role: roleOf(h.WhatAmI), Locators: h.Locators, From: from}
			key := hello.Role.String() + " " + strings.Join(hello.Locators, " ")
			if seen[hello.ZID] == key {
				continue
			}
			if len(seen) >= maxScoutSeen {
				clear(seen)
			}
			seen[hello.ZID] = key
			if !yield(hello, nil) {
				return
			}
		}
	}
}

// scouter runs the multicast scouting of a session: it answers SCOUTs,
// sends SCOUTs, and links to the nodes that answer.
type scouter struct {
	s     *Session
	p     *scoutParams
	group *net.UDPConn // receives SCOUTs
	uc    *net.UDPConn // sends SCOUTs and HELLOs, receives HELLOs
	zid   wire.ZenohID
	// client tells that the session is a client that scouts for the node
	// it links to (it has no Connect endpoint).
	client bool

	mu      sync.Mutex
	pending map[string]bool // ZIDs being dialled
}

// startScouting opens the scouting sockets and starts the scouting
// goroutines, which end when the session closes. A client without Connect
// endpoints then waits, within ctx and Scouting.Timeout, until it is
// linked to a node.
func (s *Session) startScouting(ctx context.Context) error {
	p, err := s.cfg.Scouting.resolve()
	if err != nil {
		return err
	}
	zid, err := wire.NewZenohID(s.cfg.ZID)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrInvalidConfig, err)
	}
	sc := &scouter{s: s, p: p, zid: zid, pending: make(map[string]bool),
		client: s.cfg.Mode == ModeClient && len(s.cfg.connect) == 0}
	if sc.group, err = p.listenGroup(ctx); err != nil {
		return err
	}
	if sc.uc, err = p.listenUnicast(ctx); err != nil {
		_ = sc.group.Close()
		return err
	}
	s.log.Debug("zenoh: scouting", "group", p.group.String(), "interface", p.ifaceName(),
		"from", sc.uc.LocalAddr().String())
	// A client with Connect endpoints only answers SCOUTs: it links to
	// those endpoints, as the reference implementation does.
	s.wg.Go(sc.respond)
	if s.cfg.Mode == ModePeer || sc.client {
		s.wg.Go(sc.discover)
		s.wg.Go(sc.send)
	} else {
		s.wg.Go(func() {
			<-s.ctx.Done()
			sc.closeSockets()
		})
	}
	if !sc.client {
		return nil
	}
	wctx, cancel := context.WithTimeout(ctx, p.Timeout)
	defer cancel()
	if err := s.WaitConnected(wctx); err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return fmt.Errorf("%w: no router or peer answered scouting on %s within %v", ErrNoRouter, p.group, p.Timeout)
	}
	return nil
}

// closeSockets closes the scouting sockets, which ends respond and
// discover.
func (sc *scouter) closeSockets() {
	_ = sc.group.Close()
	_ = sc.uc.Close()
}

// send multicasts SCOUTs until the session closes, then closes the
// sockets.
func (sc *scouter) send() {
	defer sc.closeSockets()
	scout, err := (&wire.Scout{Version: wire.ProtoVersion, What: wire.MatchRouter | wire.MatchPeer}).AppendBinary(nil)
	if err != nil {
		sc.s.log.Error("zenoh: scouting: encode SCOUT", "err", err)
		return
	}
	var steady func() bool
	if sc.client {
		// A client without a link keeps scouting at the first period.
		steady = func() bool { return !sc.linked(nil) }
	}
	sc.p.sendScouts(sc.s.ctx, sc.uc, scout, steady, sc.s.log.Debug)
}

// read reads datagrams from c until it is closed, passing each to handle.
func (sc *scouter) read(c *net.UDPConn, handle func(b []byte, from *net.UDPAddr)) {
	buf := make([]byte, wire.MaxBatchSize)
	for {
		n, from, err := c.ReadFromUDP(buf)
		if err != nil {
			if sc.s.ctx.Err() == nil && !errors.Is(err, net.ErrClosed) {
				sc.s.log.Debug("zenoh: scouting: receive failed", "err", err)
				continue
			}
			return
		}
		handle(buf[:n], from)
	}
}

// decode decodes a datagram, logging what is not a scouting message.
func (sc *scouter) decode(b []byte, from *net.UDPAddr) wire.ScoutingMessage {
	m, _, err := wire.DecodeScouting(b, wire.Limits{})
	if err != nil {
		sc.s.log.Debug("zenoh: scouting: ignoring datagram", "from", from.String(), "len", len(b), "err", err)
		return nil
	}
	return m
}

// respond answers the SCOUTs that ask for this session's role.
func (sc *scouter) respond() {
	self := sc.uc.LocalAddr().(*net.UDPAddr)
	role := wire.WhatAmI(sc.s.whatami())
	var out []byte
	sc.read(sc.group, func(b []byte, from *net.UDPAddr) {
		if from.Port == self.Port && (self.IP.IsUnspecified() || self.IP.Equal(from.IP)) {
			return // our own SCOUT
		}
		m, ok := sc.decode(b, from).(*wire.Scout)
		if !ok || !m.What.Matches(role) {
			return
		}
		h := wire.Hello{Version: wire.ProtoVersion, WhatAmI: role, ZID: sc.zid, Locators: sc.s.helloLocators(from.IP)}
		var err error
		if out, err = h.AppendBinary(out[:0]); err != nil {
			sc.s.log.Error("zenoh: scouting: encode HELLO", "err", err)
			return
		}
		if _, err := sc.uc.WriteToUDP(out, from); err != nil {
			sc.s.log.Debug("zenoh: scouting: send HELLO failed", "to", from.String(), "err", err)
		}
	})
}

// discover links to the routers and peers whose HELLOs arrive.
func (sc *scouter) discover() {
	sc.read(sc.uc, func(b []byte, from *net.UDPAddr) {
		h, ok := sc.decode(b, from).(*wire.Hello)
		if !ok || h.WhatAmI == wire.Client || len(h.Locators) == 0 {
			return
		}
		zid := bytes.Clone(h.ZID.Slice())
		if bytes.Equal(zid, sc.s.cfg.ZID) {
			return // our own HELLO
		}
		if sc.client {
			if sc.linked(nil) || !sc.claim("") {
				return // one link at a time
			}
		} else if sc.linked(zid) || !sc.claim(string(zid)) {
			return
		}
		sc.s.log.Debug("zenoh: scouting: found node", "zid", zidString(h.ZID), "whatami", h.WhatAmI.String(),
			"locators", h.Locators)
		key := string(zid)
		if sc.client {
			key = ""
		}
		locators := slices.Clone(h.Locators)
		sc.s.wg.Go(func() {
			defer sc.release(key)
			if !sc.client && !sc.s.dialsFirst(zid) && !sc.letDialFirst(zid) {
				return
			}
			sc.s.dialNode(zid, locators, "scouting")
		})
	})
}

// letDialFirst waits half a scout period for the peer zid, whose ZID is
// greater than ours, to dial us first, as it does when it scouts too (see
// Session.dialsFirst, the rule gossip follows as well): two peers that find
// each other at once then make one link instead of two, one of which would
// be closed with whatever was sent on it. It reports whether we still need
// to dial.
func (sc *scouter) letDialFirst(zid []byte) bool {
	return sc.s.waitToBeDialled(zid, sc.p.Period/2)
}

// linked reports whether the session has a link to zid (to any node when
// zid is nil).
func (sc *scouter) linked(zid []byte) bool { return sc.s.linkedTo(zid) }

// claim marks key as being dialled, reporting false if it already is.
func (sc *scouter) claim(key string) bool {
	sc.mu.Lock()
	defer sc.mu.Unlock()
	if sc.pending[key] {
		return false
	}
	sc.pending[key] = true
	return true
}

func (sc *scouter) release(key string) {
	sc.mu.Lock()
	delete(sc.pending, key)
	sc.mu.Unlock()
}

// helloLocators lists this session's listen endpoints for a HELLO to a
// node at ip. An endpoint on the unspecified address is replaced by the
// addresses of the interfaces; loopback addresses are only given to
// loopback nodes, as the reference implementation does.
func (s *Session) helloLocators(ip net.IP) []string {
	loopback := ip.IsLoopback()
	var out []string
	for _, ln := range s.listeners {
		ep := ln.locator()
		ap, err := netip.ParseAddrPort(ep.addr)
		if err != nil {
			continue // a socket path or a host name: not for other hosts
		}
		add := func(a net.IP) {
			if a.IsLoopback() && !loopback || a.IsLinkLocalUnicast() {
				return
			}
			e := ep
			e.addr = net.JoinHostPort(a.String(), strconv.Itoa(int(ap.Port())))
			out = append(out, e.String())
		}
		if !ap.Addr().IsUnspecified() {
			add(ap.Addr().AsSlice())
			continue
		}
		addrs, err := net.InterfaceAddrs()
		if err != nil {
			s.log.Debug("zenoh: scouting: list addresses", "err", err)
			continue
		}
		for _, a := range addrs {
			if ipn, ok := a.(*net.IPNet); ok && (ap.Addr().Is6() || ipn.IP.To4() != nil) {
				add(ipn.IP)
			}
		}
	}
	return out
}
