package zenoh

import (
	"crypto/rand"
	"fmt"
	"io"
	"log/slog"
	"strconv"
	"time"
)

// Mode is the role a session plays in a Zenoh system.
type Mode int

const (
	// ModePeer connects to and accepts other peers and clients directly,
	// and relays between its clients and its other links.
	ModePeer Mode = iota
	// ModeClient connects to a router (or a peer) and sends all its
	// traffic through it.
	ModeClient
)

// String returns "peer" or "client".
func (m Mode) String() string {
	switch m {
	case ModePeer:
		return "peer"
	case ModeClient:
		return "client"
	}
	return "Mode(" + strconv.Itoa(int(m)) + ")"
}

// Defaults applied by Open to zero fields of Config.
const (
	DefaultLease          = 10 * time.Second
	DefaultBatchSize      = 65535
	DefaultMaxMessageSize = 64 << 20
	DefaultRetryInterval  = time.Second
	// MinBatchSize is the smallest batch size accepted in Config.
	MinBatchSize = 64
)

// Config configures a Session. The zero value is a peer that neither
// listens nor connects; Open fills zero fields with the defaults.
type Config struct {
	// Mode is ModePeer (default) or ModeClient.
	Mode Mode
	// Listen lists endpoints to accept links on, like
	// "tcp/127.0.0.1:7447". Port 0 picks a free port; see
	// Session.ListenAddrs. Clients may not listen.
	Listen []string
	// Connect lists endpoints to dial. A lost link is dialled again every
	// RetryInterval until the session closes. Open waits for the first
	// attempt on each (see ConnectTimeout); an endpoint it could not link
	// is logged as a warning (through Logger, or slog.Default if Logger is
	// nil) and dialled again in the background, unless
	// ConnectExitOnFailure asks Open to fail instead. Session.Links lists
	// the links up at any time.
	Connect []string
	// ConnectTimeout is how long Open keeps dialling the Connect endpoints
	// that do not answer (every RetryInterval) before it returns. 0, the
	// default, means one attempt each. Rust Zenoh's connect.timeout_ms.
	ConnectTimeout time.Duration
	// ConnectExitOnFailure makes Open fail, with an error matching
	// ErrConnectFailed that names every endpoint it could not link, when a
	// Connect endpoint is still unreachable after ConnectTimeout. Rust
	// Zenoh's connect.exit_on_failure.
	ConnectExitOnFailure bool
	// Lease is announced to remote nodes: they drop this session after
	// that long without traffic from it. Default 10 s.
	Lease time.Duration
	// KeepAlive is the silence after which a KEEP_ALIVE is sent. Default
	// Lease/4.
	KeepAlive time.Duration
	// BatchSize is the largest batch this session sends or accepts, at
	// most 65535 (the default). The smaller of the two sides' sizes is used.
	BatchSize int
	// MaxMessageSize bounds a reassembled fragmented message. Default 64 MiB.
	MaxMessageSize int
	// MaxLinkReassembly bounds the fragmented message one link may
	// reassemble (the bytes it holds for it); a message that would need
	// more is dropped, with a warning, and the link kept. Default
	// MaxMessageSize.
	MaxLinkReassembly int
	// MaxSessionReassembly bounds the bytes all links together may hold to
	// reassemble fragmented messages, so that many links sending
	// fragments that never complete cannot exhaust memory: a link whose
	// message would take the total over it loses that message, with a
	// warning (once per link) and a count in Stats.ByLimit under
	// LimitReassembly, and keeps running. It counts what the messages in
	// progress hold as their fragments arrive (and, while a message that
	// spans several chunks is joined, both), and the buffers links keep
	// between messages for the next one, which may take a quarter of it
	// (the least recently kept are dropped first, and to make room for a
	// message in progress). Default 2 * MaxMessageSize. See also
	// Limits.ReassemblyTimeout.
	MaxSessionReassembly int
	// ZID is this session's Zenoh ID, 1 to 16 bytes. Default 16 random bytes.
	ZID []byte
	// RetryInterval is the pause between attempts to dial a Connect
	// endpoint; it doubles while the endpoint stays unreachable, up to 8
	// times RetryInterval, and starts again from RetryInterval after a
	// link was lost. Default 1 s.
	RetryInterval time.Duration
	// Logger receives diagnostics. Default: discard, except for the
	// warnings about Connect endpoints that Open could not link, which go
	// to slog.Default.
	Logger *slog.Logger
	// Scouting configures UDP multicast scouting, the discovery of other
	// nodes without Connect endpoints. It is off by default, so that
	// sessions (in tests especially) never find each other by accident.
	// A peer that scouts and has no Listen endpoint listens on an
	// ephemeral port, as the reference implementation does; a client that
	// scouts may have no Connect endpoint. See ScoutingConfig.
	Scouting ScoutingConfig
	// Gossip configures gossip scouting, on by default in peer mode: the
	// peers linked to a router learn of each other from it and link
	// directly. See GossipConfig.
	Gossip GossipConfig
	// Limits bounds what remote nodes can make the session hold (links,
	// handshakes, leases, aliases, declarations, queued bytes). The zero
	// value applies safe defaults; see Limits.
	Limits Limits
	// TLS configures the tls/ and quic/ links (certificates, mutual TLS),
	// as Rust Zenoh's transport/link/tls; each endpoint may override it.
	TLS TLSConfig
	// Auth configures user and password authentication, as Rust Zenoh's
	// transport/auth/usrpwd. See AuthConfig.
	Auth AuthConfig
}

// resolved is a validated Config with defaults applied.
type resolved struct {
	Config
	listen  []endpoint
	connect []endpoint
	gossip  *gossiper // nil when gossip is off
	auth    *authState
	warn    *slog.Logger // Logger, or slog.Default if none was given
}

// resolve validates c and fills in defaults. It does not modify c.
func (c Config) resolve() (*resolved, error) {
	r := &resolved{Config: c}
	if c.Mode != ModePeer && c.Mode != ModeClient {
		return nil, fmt.Errorf("%w: unknown mode %d", ErrInvalidConfig, int(c.Mode))
	}
	if c.Mode == ModeClient && len(c.Listen) > 0 {
		return nil, fmt.Errorf("%w: a client does not listen", ErrInvalidConfig)
	}
	if c.Mode == ModeClient && len(c.Connect) == 0 && !c.Scouting.Multicast {
		return nil, fmt.Errorf("%w: a client needs at least one Connect endpoint or multicast scouting", ErrInvalidConfig)
	}
	for _, s := range c.Listen {
		e, err := parseEndpoint(s)
		if err != nil {
			return nil, err
		}
		r.listen = append(r.listen, e)
	}
	for _, s := range c.Connect {
		e, err := parseEndpoint(s)
		if err != nil {
			return nil, err
		}
		r.connect = append(r.connect, e)
	}
	if c.Scouting.Multicast {
		sc, err := c.Scouting.resolve()
		if err != nil {
			return nil, err
		}
		r.Scouting = sc.ScoutingConfig
		if c.Mode == ModePeer && len(r.listen) == 0 {
			r.listen = append(r.listen, sc.defaultListen())
		}
	}
	switch {
	case c.Lease < 0:
		return nil, fmt.Errorf("%w: negative Lease", ErrInvalidConfig)
	case c.Lease == 0:
		r.Lease = DefaultLease
	case c.Lease < time.Millisecond:
		return nil, fmt.Errorf("%w: Lease below 1 ms", ErrInvalidConfig)
	}
	r.Lease = r.Lease.Truncate(time.Millisecond)
	switch {
	case c.KeepAlive < 0:
		return nil, fmt.Errorf("%w: negative KeepAlive", ErrInvalidConfig)
	case c.KeepAlive == 0:
		r.KeepAlive = r.Lease / 4
	case c.KeepAlive >= r.Lease:
		return nil, fmt.Errorf("%w: KeepAlive %v not below Lease %v", ErrInvalidConfig, c.KeepAlive, r.Lease)
	}
	switch {
	case c.BatchSize == 0:
		r.BatchSize = DefaultBatchSize
	case c.BatchSize < MinBatchSize || c.BatchSize > 65535:
		return nil, fmt.Errorf("%w: BatchSize %d outside [%d, 65535]", ErrInvalidConfig, c.BatchSize, MinBatchSize)
	}
	switch {
	case c.MaxMessageSize == 0:
		r.MaxMessageSize = DefaultMaxMessageSize
	case c.MaxMessageSize < r.BatchSize:
		return nil, fmt.Errorf("%w: MaxMessageSize %d below BatchSize", ErrInvalidConfig, c.MaxMessageSize)
	}
	if err := r.resolveReassembly(); err != nil {
		return nil, err
	}
	switch {
	case len(c.ZID) == 0:
		zid := make([]byte, 16)
		if _, err := io.ReadFull(rand.Reader, zid); err != nil {
			return nil, fmt.Errorf("zenoh: random ZID: %w", err)
		}
		zid[15] |= 1 // keep all 16 bytes significant (no trailing zero)
		r.ZID = zid
	case len(c.ZID) > 16:
		return nil, fmt.Errorf("%w: ZID longer than 16 bytes", ErrInvalidConfig)
	case c.ZID[len(c.ZID)-1] == 0:
		return nil, fmt.Errorf("%w: ZID must not end with a zero byte", ErrInvalidConfig)
	default:
		r.ZID = append([]byte(nil), c.ZID...)
	}
	if c.ConnectTimeout < 0 {
		return nil, fmt.Errorf("%w: negative ConnectTimeout", ErrInvalidConfig)
	}
	switch {
	case c.RetryInterval < 0:
		return nil, fmt.Errorf("%w: negative RetryInterval", ErrInvalidConfig)
	case c.RetryInterval == 0:
		r.RetryInterval = DefaultRetryInterval
	}
	var err error
	if r.Limits, err = c.Limits.resolve(); err != nil {
		return nil, err
	}
	if r.gossip, err = r.resolveGossip(); err != nil {
		return nil, err
	}
	if r.auth, err = resolveAuth(c.Auth); err != nil {
		return nil, err
	}
	r.warn = r.Logger
	if r.Logger == nil {
		r.Logger = slog.New(slog.DiscardHandler)
		r.warn = slog.Default()
	}
	return r, nil
}
