package dds

import (
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/netip"
	"os"
	"strconv"
	"strings"
	"time"
)

// DiscoveryRange says how far automatic discovery reaches, after the ROS 2
// setting ROS_AUTOMATIC_DISCOVERY_RANGE as Fast DDS applies it in Kilted.
type DiscoveryRange int

const (
	// RangeDefault takes ROS_AUTOMATIC_DISCOVERY_RANGE from the
	// environment, and RangeSubnet when it is unset.
	RangeDefault DiscoveryRange = iota
	// RangeSubnet announces by multicast to 239.255.0.1 (and to the
	// static peers).
	RangeSubnet
	// RangeLocalhost does not use multicast: announcements go by unicast to
	// the discovery ports of the first 32 participant indices on
	// 127.0.0.1 (and to the static peers, on as many indices). As in the
	// other ranges, and as Fast DDS, the participant announces the
	// addresses of the host's interfaces (127.0.0.1 only when it has no
	// other), so that a static peer on another host can reach it.
	RangeLocalhost
	// RangeOff discovers nothing: it ignores static peers and the
	// announcements of other participants (Fast DDS limits the
	// participant to itself).
	RangeOff
)

// String returns the ROS spelling of r.
func (r DiscoveryRange) String() string {
	switch r {
	case RangeDefault:
		return "SYSTEM_DEFAULT"
	case RangeSubnet:
		return "SUBNET"
	case RangeLocalhost:
		return "LOCALHOST"
	case RangeOff:
		return "OFF"
	}
	return "DiscoveryRange(" + strconv.Itoa(int(r)) + ")"
}

// Defaults applied by NewParticipant to zero fields of Config.
const (
	DefaultLease              = 20 * time.Second
	DefaultAnnouncePeriod     = 3 * time.Second
	DefaultMaxParticipants    = 120
	DefaultStaticPeerIndices  = 4
	DefaultMaxSampleSize      = 64 << 20
	reassemblyTimeout         = 10 * time.Second
	localhostPeerIndices      = 32
	defaultReceiveBufferBytes = 4 << 20
)

// Config configures a Participant. The zero value joins the domain of
// ROS_DOMAIN_ID (0 when unset) with the discovery range and static peers of
// ROS_AUTOMATIC_DISCOVERY_RANGE and ROS_STATIC_PEERS, on the first free
// participant index.
type Config struct {
	// DomainID is the DDS domain, 0 to 232. Zero means ROS_DOMAIN_ID from
	// the environment, or 0 when it is unset, unless ExactDomain is set.
	DomainID int
	// ExactDomain makes DomainID the domain as given, 0 included:
	// ROS_DOMAIN_ID is not read.
	ExactDomain bool
	// ParticipantIndex is the first participant index tried: the
	// participant takes the first index from it up whose unicast ports
	// are free (up to MaxParticipantIndex), unless ExactIndex is set.
	ParticipantIndex int
	// ExactIndex makes NewParticipant fail with ErrNoFreeIndex instead of
	// trying the next index when ParticipantIndex's ports are taken.
	ExactIndex bool
	// MaxParticipantIndex bounds the indices tried. Default 120, or fewer
	// in the highest domains, as many as have ports below 65536.
	MaxParticipantIndex int
	// Interfaces lists the interfaces (by name, like "eth0") or IPv4
	// addresses this participant advertises and, in the SUBNET range,
	// multicasts its announcements on and listens on (those of them that
	// can multicast). Default: every IPv4 interface that is up, loopback
	// only if there is no other. The interfaces are read again before
	// every announcement: an interface that comes up or goes down, an
	// address that changes, are announced at once.
	Interfaces []string
	// StaticPeers lists unicast peers, as ROS_STATIC_PEERS does (which is
	// read when StaticPeers is nil): "host" probes the discovery ports of
	// the first StaticPeerIndices participant indices, "host:port" sends
	// to that port only. They are used in the SUBNET and LOCALHOST
	// ranges, not in OFF.
	StaticPeers []string
	// StaticPeerIndices is how many participant indices a port-less static
	// peer is probed on. Default 4, or 32 in the LOCALHOST range, as Fast
	// DDS under ROS 2.
	StaticPeerIndices int
	// Range is the automatic discovery range. RangeDefault reads
	// ROS_AUTOMATIC_DISCOVERY_RANGE.
	Range DiscoveryRange
	// NoMulticast turns multicast off in every range: SPDP then reaches
	// only static peers (and, in RangeLocalhost, the local index ports).
	NoMulticast bool
	// Lease is announced to remote participants: they drop this one after
	// that long without hearing from it. Default 20 s.
	Lease time.Duration
	// AnnouncePeriod is the pause between SPDP announcements after the
	// five fast ones at start. Default 3 s.
	AnnouncePeriod time.Duration
	// UserData is announced as the participant's USER_DATA (ROS 2 uses
	// "enclave=/;").
	UserData []byte
	// Name is announced as the participant's ENTITY_NAME when not empty.
	Name string
	// MaxSampleSize bounds a sample written or reassembled from fragments.
	// Default 64 MiB; the bytes of all reassemblies in progress are
	// bounded by four times it.
	MaxSampleSize int
	// Limits bound what remote participants make this one hold and do
	// (see the package documentation, "Misbehaving peers"). Zero means
	// the default; a peer over a limit is dropped and ignored for
	// IgnoreFor, counted in Stats.ByLimit and logged.
	Limits Limits
	// AckPort is the UDP port of the socket on which the participant's
	// writers take their readers' acknowledgments (announced in SEDP as
	// the writers' unicast locator, see the package documentation).
	// Default 0: a port the system picks. Set it where a firewall between
	// hosts opens only chosen ports.
	AckPort int
	// Logger receives diagnostics. Default: discard.
	Logger *slog.Logger
	// Getenv reads the environment. Default os.Getenv; a function that
	// returns "" ignores the environment.
	Getenv func(string) string

	// dropIn, when set, is asked about every received datagram; true drops
	// it (a test hook for loss).
	dropIn func(b []byte) bool
	// directGap, when set, replaces the package's directGap (a test hook
	// for batching, see batch.go).
	directGap time.Duration
	// listInterfaces, when set, replaces the reading of the host's
	// interfaces (a test hook, see netif.go).
	listInterfaces func() ([]netIface, error)
}

// peerAddr is a static peer: a host and, when port is zero, every index
// port.
type peerAddr struct {
	addr netip.Addr
	port uint16
}

// resolved is a validated Config with defaults applied.
type resolved struct {
	Config
	rng        DiscoveryRange
	multicast  bool
	ifs        []netIface // the host's interfaces when resolved
	interfaces func() ([]netIface, error)
	peers      []peerAddr
	logger     *slog.Logger
	getenv     func(string) string
	bufferSize int

	maxSample          int
	maxReassemblyBytes int
	reassemblyTimeout  time.Duration
	lim                Limits // Limits with defaults applied
}

// resolve validates c and fills in defaults. It does not modify c.
func (c Config) resolve() (*resolved, error) {
	r := &resolved{Config: c, getenv: c.Getenv, logger: c.Logger, bufferSize: defaultReceiveBufferBytes}
	if r.getenv == nil {
		r.getenv = os.Getenv
	}
	if r.logger == nil {
		r.logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if c.DomainID < 0 || c.DomainID > MaxDomainID {
		return nil, fmt.Errorf("%w: DomainID %d outside [0, %d]", ErrInvalidConfig, c.DomainID, MaxDomainID)
	}
	if c.DomainID == 0 && !c.ExactDomain {
		if s := strings.TrimSpace(r.getenv("ROS_DOMAIN_ID")); s != "" {
			d, err := strconv.Atoi(s)
			if err != nil || d < 0 || d > MaxDomainID {
				return nil, fmt.Errorf("%w: ROS_DOMAIN_ID=%q is not a domain ID in [0, %d]", ErrInvalidConfig, s, MaxDomainID)
			}
			r.DomainID = d
		}
	}
	switch {
	case c.MaxParticipantIndex == 0:
		// As many as fit below port 65535 in this domain, up to 120.
		r.MaxParticipantIndex = min(DefaultMaxParticipants, (65535-userUnicastPort(r.DomainID, 0))/participantGain)
	case c.MaxParticipantIndex < 0:
		return nil, fmt.Errorf("%w: negative MaxParticipantIndex", ErrInvalidConfig)
	}
	if c.ParticipantIndex < 0 || c.ParticipantIndex > r.MaxParticipantIndex {
		return nil, fmt.Errorf("%w: ParticipantIndex %d outside [0, %d]", ErrInvalidConfig, c.ParticipantIndex, r.MaxParticipantIndex)
	}
	if userUnicastPort(r.DomainID, r.MaxParticipantIndex) > 65535 {
		return nil, fmt.Errorf("%w: MaxParticipantIndex %d gives ports beyond 65535 in domain %d", ErrInvalidConfig, r.MaxParticipantIndex, r.DomainID)
	}
	if c.StaticPeerIndices < 0 {
		return nil, fmt.Errorf("%w: negative StaticPeerIndices", ErrInvalidConfig)
	}
	switch {
	case c.Lease == 0:
		r.Lease = DefaultLease
	case c.Lease < 100*time.Millisecond:
		return nil, fmt.Errorf("%w: Lease %v below 100 ms", ErrInvalidConfig, c.Lease)
	}
	switch {
	case c.AnnouncePeriod == 0:
		r.AnnouncePeriod = min(DefaultAnnouncePeriod, r.Lease/3)
	case c.AnnouncePeriod < 10*time.Millisecond:
		return nil, fmt.Errorf("%w: AnnouncePeriod %v below 10 ms", ErrInvalidConfig, c.AnnouncePeriod)
	}
	if c.AckPort < 0 || c.AckPort > 65535 {
		return nil, fmt.Errorf("%w: AckPort %d outside [0, 65535]", ErrInvalidConfig, c.AckPort)
	}
	switch {
	case c.MaxSampleSize == 0:
		r.maxSample = DefaultMaxSampleSize
	case c.MaxSampleSize < 0 || c.MaxSampleSize > 1<<30:
		return nil, fmt.Errorf("%w: MaxSampleSize %d outside [1, 1 GiB]", ErrInvalidConfig, c.MaxSampleSize)
	default:
		r.maxSample = c.MaxSampleSize
	}
	r.maxReassemblyBytes = 4 * r.maxSample
	lim, err := c.Limits.resolve(r.maxSample)
	if err != nil {
		return nil, err
	}
	r.lim = lim
	r.maxReassemblyBytes = lim.MaxReassemblyBytes
	r.reassemblyTimeout = reassemblyTimeout
	r.rng = c.Range
	if r.rng == RangeDefault {
		switch s := strings.ToUpper(strings.TrimSpace(r.getenv("ROS_AUTOMATIC_DISCOVERY_RANGE"))); s {
		case "", "SYSTEM_DEFAULT", "SUBNET":
			r.rng = RangeSubnet
		case "LOCALHOST":
			r.rng = RangeLocalhost
		case "OFF":
			r.rng = RangeOff
		default:
			return nil, fmt.Errorf("%w: ROS_AUTOMATIC_DISCOVERY_RANGE=%q (want SUBNET, LOCALHOST, OFF or SYSTEM_DEFAULT)", ErrInvalidConfig, s)
		}
	}
	if r.rng < RangeSubnet || r.rng > RangeOff {
		return nil, fmt.Errorf("%w: unknown Range %d", ErrInvalidConfig, int(c.Range))
	}
	r.multicast = r.rng == RangeSubnet && !c.NoMulticast
	if c.StaticPeerIndices == 0 {
		r.StaticPeerIndices = DefaultStaticPeerIndices
		if r.rng == RangeLocalhost {
			r.StaticPeerIndices = localhostPeerIndices
		}
	}
	peers := c.StaticPeers
	if peers == nil {
		if s := strings.TrimSpace(r.getenv("ROS_STATIC_PEERS")); s != "" {
			peers = strings.Split(s, ";")
		}
	}
	if r.rng != RangeOff {
		for _, s := range peers {
			s = strings.TrimSpace(s)
			if s == "" {
				continue
			}
			p, err := parsePeer(s)
			if err != nil {
				return nil, err
			}
			r.peers = append(r.peers, p...)
		}
	}
	r.interfaces = c.listInterfaces
	if r.interfaces == nil {
		r.interfaces = listInterfaces
	}
	if r.ifs, err = r.interfaces(); err != nil {
		return nil, fmt.Errorf("dds: listing interfaces: %w", err)
	}
	if _, _, err := r.selectAddrs(r.ifs, true); err != nil {
		return nil, err
	}
	return r, nil
}

// parsePeer resolves a static peer "host" or "host:port" to IPv4 peers.
func parsePeer(s string) ([]peerAddr, error) {
	host, port := s, uint16(0)
	if h, p, err := net.SplitHostPort(s); err == nil {
		n, err := strconv.ParseUint(p, 10, 16)
		if err != nil || n == 0 {
			return nil, fmt.Errorf("%w: static peer %q: bad port", ErrInvalidConfig, s)
		}
		host, port = h, uint16(n)
	}
	if a, err := netip.ParseAddr(host); err == nil {
		if !a.Unmap().Is4() {
			return nil, fmt.Errorf("%w: static peer %q: only IPv4 is supported", ErrInvalidConfig, s)
		}
		return []peerAddr{{addr: a.Unmap(), port: port}}, nil
	}
	ips, err := net.LookupIP(host)
	if err != nil {
		return nil, fmt.Errorf("%w: static peer %q: %v", ErrInvalidConfig, s, err)
	}
	var out []peerAddr
	for _, ip := range ips {
		if a, ok := netip.AddrFromSlice(ip.To4()); ok && ip.To4() != nil {
			out = append(out, peerAddr{addr: a, port: port})
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%w: static peer %q has no IPv4 address", ErrInvalidConfig, s)
	}
	return out, nil
}
