package dds

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"net"
	"net/netip"
	"sync"
	"sync/atomic"
	"time"

	"github.com/afor-go/afor/transport/dds/internal/rtps"
)

// Participant is a DDS domain participant: it discovers the other
// participants of its domain (SPDP), announces its writers and readers and
// learns theirs (SEDP), and carries their samples over UDP. Its methods are
// safe for concurrent use.
type Participant struct {
	cfg      *resolved
	log      *slog.Logger
	prefix   rtps.GuidPrefix
	socks    *sockets
	netState atomic.Pointer[localNet] // what it announces, where it multicasts (netif.go)
	mcaster  *multicaster             // sends its multicast datagrams

	sedpPubW, sedpSubW *Writer
	sedpPubR, sedpSubR *Reader
	wlpW               *Writer
	wlpR               *Reader
	wlpMu              sync.Mutex
	wlpNext            time.Time // the next AUTOMATIC liveliness assertion (liveliness.go)

	mu      sync.RWMutex
	closed  bool
	nextKey uint32
	writers map[rtps.EntityID]*Writer
	readers map[rtps.EntityID]*Reader
	remotes map[rtps.GuidPrefix]*remoteParticipant
	// remoteWriters and remoteReaders hold the endpoints learnt through
	// SEDP, and the participant's own (so that they match each other).
	remoteWriters map[rtps.GUID]*remoteEndpoint
	remoteReaders map[rtps.GUID]*remoteEndpoint
	// byTopic indexes both by topic name, so that a new local endpoint
	// finds its matches without a walk over every remote one.
	byTopic map[string]map[rtps.GUID]*remoteEndpoint
	// nRemoteEndpoints counts the remote (not local) endpoints, and
	// discoveryBytes the discovery data held for remote participants.
	nRemoteEndpoints int
	discoveryBytes   int64
	// bySource and byHost count the remote participants by the source
	// socket and the (remote) address of their SPDP; ignored and
	// ignoredSources hold the participants and sources dropped for a
	// limit, until when they are ignored (Limits).
	bySource       map[netip.AddrPort]int
	byHost         map[netip.Addr]int
	ignored        map[rtps.GuidPrefix]time.Time
	ignoredSources map[netip.AddrPort]time.Time
	// drops are participants dropped for a limit, to be removed by the
	// timer loop (dropParticipant).
	drops []rtps.GuidPrefix
	// watchers receive discovery events (WatchDiscovery).
	watchers map[*watcher]bool

	spdpMu       sync.Mutex
	spdpB        rtps.Builder
	spdpSN       rtps.SequenceNumber
	announced    int
	nextAnnounce time.Time

	reasmBytes atomic.Int64
	stats      counters
	flush      *flusher    // sends writers' pending batches (batch.go)
	local      *localQueue // samples for the participant's own readers (local.go)
	// wakeAt (Unix ns) is when the timer loop runs next; wake tells it
	// that dueBy lowered wakeAt.
	wakeAt atomic.Int64
	wake   chan struct{}
	done   chan struct{}
	wg     sync.WaitGroup
}

// NewParticipant joins a domain: it binds the sockets of the first free
// participant index, starts announcing itself and discovering the others.
// ctx bounds the start only. Close releases it.
func NewParticipant(ctx context.Context, cfg Config) (*Participant, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	r, err := cfg.resolve()
	if err != nil {
		return nil, err
	}
	socks, err := openSockets(r)
	if err != nil {
		return nil, err
	}
	p := &Participant{
		cfg: r, log: r.logger, socks: socks, mcaster: newMulticaster(),
		writers: map[rtps.EntityID]*Writer{}, readers: map[rtps.EntityID]*Reader{},
		remotes:       map[rtps.GuidPrefix]*remoteParticipant{},
		remoteWriters: map[rtps.GUID]*remoteEndpoint{}, remoteReaders: map[rtps.GUID]*remoteEndpoint{},
		byTopic:  map[string]map[rtps.GUID]*remoteEndpoint{},
		bySource: map[netip.AddrPort]int{}, byHost: map[netip.Addr]int{},
		ignored: map[rtps.GuidPrefix]time.Time{}, ignoredSources: map[netip.AddrPort]time.Time{},
		done: make(chan struct{}), flush: newFlusher(), wake: make(chan struct{}, 1),
		local: newLocalQueue(),
	}
	p.wakeAt.Store(math.MaxInt64)
	// The prefix starts with afor's vendor id, then random bytes: it never
	// looks like Fast DDS's host/process layout.
	p.prefix[0], p.prefix[1] = rtps.VendorAfor[0], rtps.VendorAfor[1]
	if _, err := rand.Read(p.prefix[2:]); err != nil {
		socks.close()
		return nil, fmt.Errorf("dds: random GUID prefix: %w", err)
	}
	ln, err := p.newLocalNet(r.ifs, true)
	if err != nil {
		socks.close()
		return nil, err
	}
	p.netState.Store(ln)
	if r.multicast && p.mcaster.follow(p, ln.mcast) == 0 {
		// Discovery goes on by unicast (static peers, known participants)
		// until an interface that can multicast comes up.
		p.log.Warn("dds: SPDP multicast joined on no interface yet", "interfaces", len(ln.mcast))
	}
	p.newBuiltinEndpoints()
	for _, c := range []*net.UDPConn{socks.spdp, socks.meta, socks.user, socks.acks} {
		if c != nil {
			p.wg.Add(1)
			go p.receive(c)
		}
	}
	p.wg.Add(2)
	go p.loop()
	go p.flushLoop()
	p.log.Debug("dds: participant started", "guid", p.prefix, "domain", r.DomainID, "index", socks.index,
		"range", r.rng, "multicast", r.multicast, "addrs", ln.addrs)
	return p, nil
}

// GUID returns the participant's GUID.
func (p *Participant) GUID() GUID {
	return fromRTPS(rtps.GUID{Prefix: p.prefix, Entity: rtps.EntityParticipant})
}

// DomainID returns the participant's domain.
func (p *Participant) DomainID() int { return p.cfg.DomainID }

// Index returns the participant index whose ports it uses.
func (p *Participant) Index() int { return p.socks.index }

// Close announces the participant's end, closes its writers and readers
// (their Subs end with ErrClosed) and releases its sockets and goroutines.
// It is idempotent.
func (p *Participant) Close() error { return p.close(true) }

// close closes the participant, announcing it (or, for tests that simulate
// a crash, not).
func (p *Participant) close(announce bool) error {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil
	}
	p.closed = true
	watching := p.stopWatchersLocked()
	var ws []*Writer
	var rs []*Reader
	for _, w := range p.writers {
		ws = append(ws, w)
	}
	for _, r := range p.readers {
		rs = append(rs, r)
	}
	p.mu.Unlock()
	if announce {
		p.announceDispose()
	}
	for _, w := range ws {
		w.Close()
	}
	for _, r := range rs {
		r.Close()
	}
	for _, w := range []*Writer{p.sedpPubW, p.sedpSubW, p.wlpW} {
		w.Close()
	}
	for _, r := range []*Reader{p.sedpPubR, p.sedpSubR, p.wlpR} {
		r.close()
	}
	close(p.done)
	p.mcaster.close()
	p.socks.close()
	p.wg.Wait()
	for _, w := range watching {
		<-w.done
	}
	return nil
}

// isClosed reports whether Close was called.
func (p *Participant) isClosed() bool {
	p.mu.RLock()
	defer p.mu.RUnlock()
	return p.closed
}

// sendTo sends one datagram to each destination.
func (p *Participant) sendTo(b []byte, to []netip.AddrPort) {
	p.sendPartsTo(b, nil, nil, to)
}

// sendPartsTo sends the datagram made of head, body and tail to each of
// to, with body sent from where it lies (sender.writeParts).
func (p *Participant) sendPartsTo(head, body, tail []byte, to []netip.AddrPort) {
	for _, ap := range to {
		if ap.Addr().IsMulticast() {
			sent, failed, err := p.mcaster.send(head, body, tail, ap)
			p.stats.sent.Add(uint64(sent))
			p.stats.sendErrors.Add(uint64(failed))
			if err != nil && !errors.Is(err, net.ErrClosed) {
				p.log.Debug("dds: multicast send failed", "to", ap, "err", err)
			}
			continue
		}
		if err := p.socks.send.writeParts(head, body, tail, ap); err != nil {
			p.stats.sendErrors.Add(1)
			if !errors.Is(err, net.ErrClosed) && !isUnreachable(err) {
				p.log.Debug("dds: send failed", "to", ap, "err", err)
			}
			continue
		}
		p.stats.sent.Add(1)
	}
}

// pickLocators chooses where to send to an endpoint among its UDPv4
// locators. When all are addresses of this host, the endpoint is local:
// the first one. Else the others are a remote host's: those in a subnet of
// one of this host's interfaces (reachable directly), if any, else all of
// them; an address of this host among them (a docker0 bridge's, which
// every host has) is not the remote's.
func (p *Participant) pickLocators(ls []rtps.Locator) []netip.AddrPort {
	ln := p.netView()
	var local, direct, routed []netip.AddrPort
	for _, l := range ls {
		ap, ok := l.AddrPort()
		if !ok {
			continue
		}
		switch a := ap.Addr(); {
		case a.IsUnspecified() || a.IsMulticast():
		case ln.own[a] || a.IsLoopback():
			local = append(local, ap)
		case ln.onSubnet(a):
			direct = append(direct, ap)
		default:
			routed = append(routed, ap)
		}
	}
	switch {
	case len(direct) > 0:
		return direct
	case len(routed) > 0:
		return routed
	case len(local) > 0:
		return local[:1]
	}
	return nil
}
