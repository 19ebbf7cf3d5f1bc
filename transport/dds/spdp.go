package dds

import (
	"net/netip"
	"slices"
	"sync/atomic"
	"time"

	"github.com/afor-go/afor/transport/dds/internal/rtps"
)

// SPDP timing, as Fast DDS: five announcements 100 ms apart at start, then
// one every AnnouncePeriod.
const (
	fastAnnouncements = 5
	fastAnnouncePause = 100 * time.Millisecond
	// greetWindow is how long after discovering a participant this one
	// answers its announcements with its own, at most maxGreets times and
	// fastAnnouncePause apart (two Go participants answer each other's
	// answers): the first answer can reach a participant that is just
	// starting before it listens (Fast DDS then ignores it, and learns of
	// this participant only from its next periodic announcement, seconds
	// later), and a new participant announces itself five times in its
	// first half second.
	greetWindow = 2 * time.Second
	maxGreets   = fastAnnouncements
)

// remoteParticipant is a participant discovered through SPDP.
type remoteParticipant struct {
	prefix   rtps.GuidPrefix
	vendor   rtps.VendorID
	lease    time.Duration
	meta     []netip.AddrPort // metatraffic unicast destinations
	user     []netip.AddrPort // default unicast destinations
	builtins uint32
	userData []byte
	lastSeen atomic.Int64 // unix nanoseconds
	// answered is set once the participant sent anything but SPDP (SEDP,
	// HEARTBEATs, ACKNACKs): until then it is sent no periodic SPDP, only
	// answers to its own announcements (replyDueLocked): found is when
	// it was discovered, greets the answers sent, greeted when the last
	// was (p.mu).
	answered atomic.Bool
	found    time.Time
	greets   int
	greeted  time.Time
	// source is where its first SPDP came from; remoteHost tells whether
	// it counts in byHost (see Limits.MaxParticipantsPerHost).
	source     netip.AddrPort
	remoteHost bool
	// spdpBytes is the size of its last SPDP sample, endpoints the
	// size of each of its SEDP samples, discovery their sum (p.mu).
	spdpBytes int
	endpoints map[rtps.GUID]int
	discovery int
	// dropped: over a limit, to be removed (dropParticipant).
	dropped bool
}

// RemoteParticipant describes a participant discovered in the domain.
type RemoteParticipant struct {
	GUID     GUID
	Vendor   [2]byte
	Lease    time.Duration
	UserData []byte
}

// Participants returns the participants discovered so far (and not yet
// expired or gone).
func (p *Participant) Participants() []RemoteParticipant {
	p.mu.RLock()
	defer p.mu.RUnlock()
	out := make([]RemoteParticipant, 0, len(p.remotes))
	for _, rp := range p.remotes {
		out = append(out, RemoteParticipant{
			GUID:   fromRTPS(rtps.GUID{Prefix: rp.prefix, Entity: rtps.EntityParticipant}),
			Vendor: rp.vendor, Lease: rp.lease, UserData: rp.userData,
		})
	}
	return out
}

// participantData is this participant's SPDP body.
func (p *Participant) participantData() rtps.ParticipantData {
	return rtps.ParticipantData{
		GUID:    rtps.GUID{Prefix: p.prefix, Entity: rtps.EntityParticipant},
		Version: rtps.ProtocolVersion24, Vendor: rtps.VendorAfor,
		DomainID: uint32(p.cfg.DomainID), DomainIDPresent: true,
		MetatrafficUnicast: p.netView().meta, DefaultUnicast: p.netView().user,
		LeaseDuration:    p.cfg.Lease,
		BuiltinEndpoints: rtps.BuiltinEndpointsAfor, // SPDP, SEDP, WLP
		UserData:         p.cfg.UserData,
		EntityName:       p.cfg.Name,
	}
}

// spdpDestinations lists where announcements go: the multicast group, the
// local index ports (LOCALHOST range), the static peers and the
// participants already known.
func (p *Participant) spdpDestinations() []netip.AddrPort {
	var out []netip.AddrPort
	seen := map[netip.AddrPort]bool{}
	add := func(ap netip.AddrPort) {
		if !seen[ap] {
			seen[ap] = true
			out = append(out, ap)
		}
	}
	d := p.cfg.DomainID
	if p.cfg.multicast {
		add(netip.AddrPortFrom(netip.AddrFrom4(spdpMulticastGroup), uint16(spdpMulticastPort(d))))
	}
	if p.cfg.rng == RangeLocalhost {
		for i := range localhostPeerIndices {
			if i != p.socks.index {
				add(netip.AddrPortFrom(netip.AddrFrom4([4]byte{127, 0, 0, 1}), uint16(metaUnicastPort(d, i))))
			}
		}
	}
	for _, pa := range p.cfg.peers {
		if pa.port != 0 {
			add(netip.AddrPortFrom(pa.addr, pa.port))
			continue
		}
		for i := range p.cfg.StaticPeerIndices {
			add(netip.AddrPortFrom(pa.addr, uint16(metaUnicastPort(d, i))))
		}
	}
	p.mu.RLock()
	for _, rp := range p.remotes {
		if !rp.answered.Load() {
			continue // answered only when it announces itself (addParticipant)
		}
		for _, ap := range rp.meta {
			add(ap)
		}
	}
	p.mu.RUnlock()
	return out
}

// announce sends this participant's DATA(p) to every SPDP destination and
// schedules the next announcement. When the host's interfaces changed what
// the participant announces, the fast announcements start again and the
// endpoints are announced again (netif.go).
func (p *Participant) announce(now time.Time) {
	moved := p.refreshNet()
	if moved {
		defer p.republish()
	}
	dst := p.spdpDestinations()
	p.spdpMu.Lock()
	defer p.spdpMu.Unlock()
	if moved {
		p.announced = 0
	}
	p.announced++
	if p.announced < fastAnnouncements {
		p.nextAnnounce = now.Add(fastAnnouncePause)
	} else {
		p.nextAnnounce = now.Add(p.cfg.AnnouncePeriod)
	}
	p.sendSPDPLocked(dst)
}

// sendSPDPLocked sends DATA(p) to dst. Call with spdpMu held.
func (p *Participant) sendSPDPLocked(dst []netip.AddrPort) {
	pd := p.participantData()
	p.spdpSN++
	b := &p.spdpB
	b.Reset(p.header())
	b.InfoTS(rtps.TimeFrom(time.Now()))
	b.Data(&rtps.Data{ReaderID: rtps.EntitySPDPReader, WriterID: rtps.EntitySPDPWriter, SN: p.spdpSN, Payload: pd.Append(nil)})
	p.sendTo(b.Bytes(), dst)
}

// announceTo sends DATA(p) at once to a newly found participant.
func (p *Participant) announceTo(dst []netip.AddrPort) {
	p.spdpMu.Lock()
	defer p.spdpMu.Unlock()
	p.sendSPDPLocked(dst)
}

// announceDispose tells every SPDP destination that this participant is
// gone.
func (p *Participant) announceDispose() {
	dst := p.spdpDestinations()
	p.spdpMu.Lock()
	defer p.spdpMu.Unlock()
	p.spdpSN++
	b := &p.spdpB
	b.Reset(p.header())
	b.InfoTS(rtps.TimeFrom(time.Now()))
	b.Dispose(rtps.EntitySPDPReader, rtps.EntitySPDPWriter, p.spdpSN,
		rtps.GUID{Prefix: p.prefix, Entity: rtps.EntityParticipant}, rtps.PIDParticipantGUID,
		rtps.StatusDisposed|rtps.StatusUnregistered)
	p.sendTo(b.Bytes(), dst)
}

// onSPDP handles a DATA from an SPDP writer, received from src.
func (p *Participant) onSPDP(c *rtps.Context, d *rtps.Data, src netip.AddrPort) {
	disp, ok, err := rtps.ParseDisposal(d, c.SourceVendor)
	if err != nil {
		p.stats.malformed.Add(1)
		return
	}
	if ok {
		p.removeParticipant(disp.GUID.Prefix, "disposed")
		return
	}
	if d.Payload == nil {
		return
	}
	pd, err := rtps.ParseParticipantData(d.Payload, c.SourceVendor)
	if err != nil {
		p.stats.malformed.Add(1)
		p.log.Debug("dds: SPDP sample does not decode", "from", c.SourcePrefix, "err", err)
		return
	}
	if pd.GUID.Prefix == p.prefix || (pd.DomainIDPresent && pd.DomainID != uint32(p.cfg.DomainID)) || p.cfg.rng == RangeOff {
		return
	}
	p.addParticipant(&pd, c.SourceVendor, src, len(d.Payload))
}

// addParticipant adds or refreshes a participant from its SPDP data
// (size bytes), received from src, unless a limit refuses it.
func (p *Participant) addParticipant(pd *rtps.ParticipantData, vendor rtps.VendorID, src netip.AddrPort, size int) {
	meta := p.pickLocators(pd.MetatrafficUnicast)
	user := p.pickLocators(pd.DefaultUnicast)
	if len(user) == 0 {
		user = meta
	}
	if len(meta) == 0 {
		meta = user
	}
	lim := &p.cfg.lim
	lease := pd.LeaseDuration
	if lease > lim.MaxLease {
		lease = lim.MaxLease
	}
	now := time.Now()
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return
	}
	rp := p.remotes[pd.GUID.Prefix]
	if rp != nil && rp.dropped {
		p.mu.Unlock()
		return
	}
	if rp != nil {
		moved := !slices.Equal(rp.meta, meta) || !slices.Equal(rp.user, user)
		rp.lease, rp.meta, rp.user, rp.userData = lease, meta, user, pd.UserData
		rp.lastSeen.Store(now.UnixNano())
		over := p.addDiscoveryLocked(rp, size-rp.spdpBytes)
		rp.spdpBytes = size
		reply := over == "" && p.replyDueLocked(rp, now)
		p.mu.Unlock()
		if over != "" {
			p.dropParticipant(rp.prefix, over)
			return
		}
		if reply {
			p.announceTo(meta)
		}
		if moved {
			p.log.Debug("dds: participant moved", "guid", rp.prefix, "locators", meta)
			p.relocate(rp.prefix, meta, user)
		}
		return
	}
	if why := p.admitLocked(pd.GUID.Prefix, src, size, now); why != "" {
		p.mu.Unlock()
		if n, log := p.stats.limits.add(why, true, false); log {
			p.log.Warn("dds: participant refused", "limit", why, "hits", n, "guid", pd.GUID.Prefix, "from", src)
		}
		return
	}
	if lease < pd.LeaseDuration {
		p.stats.limits.add(LimitLease, false, false)
	}
	rp = &remoteParticipant{
		prefix: pd.GUID.Prefix, vendor: vendor, lease: lease, meta: meta, user: user,
		builtins: pd.BuiltinEndpoints, userData: pd.UserData,
		source: src, remoteHost: !p.isLocalSource(src.Addr()), spdpBytes: size,
		found: now, greets: 1, greeted: now,
	}
	rp.lastSeen.Store(now.UnixNano())
	p.remotes[rp.prefix] = rp
	p.bySource[src]++
	if rp.remoteHost {
		p.byHost[src.Addr()]++
	}
	p.addDiscoveryLocked(rp, size)
	p.emitLocked(DiscoveryEvent{Kind: ParticipantFound, Participant: rp.public()})
	p.mu.Unlock()
	p.log.Debug("dds: participant discovered", "guid", rp.prefix, "vendor", vendor, "locators", meta)
	p.announceTo(meta)
	pre := rp.prefix
	if rp.builtins&rtps.BuiltinPublicationsDetector != 0 {
		p.sedpPubW.addProxy(rtps.GUID{Prefix: pre, Entity: rtps.EntitySEDPPubReader}, meta, true, true, false)
	}
	if rp.builtins&rtps.BuiltinSubscriptionsDetector != 0 {
		p.sedpSubW.addProxy(rtps.GUID{Prefix: pre, Entity: rtps.EntitySEDPSubReader}, meta, true, true, false)
	}
	if rp.builtins&rtps.BuiltinPublicationsAnnouncer != 0 {
		p.sedpPubR.addProxy(rtps.GUID{Prefix: pre, Entity: rtps.EntitySEDPPubWriter}, meta, true, Automatic, 0)
	}
	if rp.builtins&rtps.BuiltinSubscriptionsAnnouncer != 0 {
		p.sedpSubR.addProxy(rtps.GUID{Prefix: pre, Entity: rtps.EntitySEDPSubWriter}, meta, true, Automatic, 0)
	}
	if rp.builtins&rtps.BuiltinWLPReader != 0 {
		p.wlpW.addProxy(rtps.GUID{Prefix: pre, Entity: rtps.EntityWLPReader}, meta, true, true, false)
	}
	if rp.builtins&rtps.BuiltinWLPWriter != 0 {
		p.wlpR.addProxy(rtps.GUID{Prefix: pre, Entity: rtps.EntityWLPWriter}, meta, true, Automatic, 0)
	}
}

// replyDueLocked reports whether an announcement of rp is answered
// with this participant's own, and records the answer. Only a
// participant that has sent nothing but SPDP is answered (it may not have
// heard this one yet): in its first greetWindow up to maxGreets times,
// fastAnnouncePause apart, then at most once per AnnouncePeriod. Call
// with p.mu held.
func (p *Participant) replyDueLocked(rp *remoteParticipant, now time.Time) bool {
	if rp.answered.Load() {
		return false
	}
	gap := p.cfg.AnnouncePeriod
	if now.Sub(rp.found) < greetWindow && rp.greets < maxGreets {
		gap = fastAnnouncePause
	}
	if now.Sub(rp.greeted) < gap {
		return false
	}
	rp.greets++
	rp.greeted = now
	return true
}

// isLocalSource reports whether a is this host's (loopback or one of its
// advertised addresses).
func (p *Participant) isLocalSource(a netip.Addr) bool {
	return a.IsLoopback() || p.netView().own[a]
}

// admitLocked checks the limits on a new participant with prefix, whose
// SPDP sample of size bytes came from src, and returns the limit it
// would exceed, or "". It ignores src for IgnoreFor when src is over its
// own limit. Call with p.mu held.
func (p *Participant) admitLocked(prefix rtps.GuidPrefix, src netip.AddrPort, size int, now time.Time) string {
	lim := &p.cfg.lim
	if until, ok := p.ignored[prefix]; ok {
		if now.Before(until) {
			return "Ignored"
		}
		delete(p.ignored, prefix)
	}
	if until, ok := p.ignoredSources[src]; ok {
		if now.Before(until) {
			return "Ignored"
		}
		delete(p.ignoredSources, src)
	}
	switch {
	case p.bySource[src] >= lim.MaxParticipantsPerSource:
		ignoreLocked(p, p.ignoredSources, src, now)
		return LimitParticipantsPerSource
	case !p.isLocalSource(src.Addr()) && p.byHost[src.Addr()] >= lim.MaxParticipantsPerHost:
		ignoreLocked(p, p.ignoredSources, src, now)
		return LimitParticipantsPerHost
	case len(p.remotes) >= lim.MaxParticipants:
		return LimitParticipants
	case size > lim.MaxDiscoveryBytesPerParticipant:
		return LimitDiscoveryBytesPerParticipant
	case p.discoveryBytes+int64(size) > int64(lim.MaxDiscoveryBytes):
		return LimitDiscoveryBytes
	}
	return ""
}

// maxIgnored bounds each map of ignored participants and sources, so
// that an attacker cycling through prefixes cannot grow them.
const maxIgnored = 4096

// ignoreLocked records key in m until IgnoreFor from now, making room by
// dropping expired entries (or, when none expired, not recording it).
// Call with p.mu held.
func ignoreLocked[K comparable](p *Participant, m map[K]time.Time, key K, now time.Time) {
	if len(m) >= maxIgnored {
		for k, until := range m {
			if !now.Before(until) {
				delete(m, k)
			}
		}
		if len(m) >= maxIgnored {
			return
		}
	}
	m[key] = now.Add(p.cfg.lim.IgnoreFor)
}

// addDiscoveryLocked adds delta bytes to what rp holds and returns the
// limit that takes it over, or "". Call with p.mu held.
func (p *Participant) addDiscoveryLocked(rp *remoteParticipant, delta int) string {
	rp.discovery += delta
	p.discoveryBytes += int64(delta)
	switch {
	case rp.discovery > p.cfg.lim.MaxDiscoveryBytesPerParticipant:
		return LimitDiscoveryBytesPerParticipant
	case delta > 0 && p.discoveryBytes > int64(p.cfg.lim.MaxDiscoveryBytes):
		return LimitDiscoveryBytes
	}
	return ""
}

// dropParticipant removes a participant that went over limit and ignores
// it for IgnoreFor. It may be called from anywhere, a reader's delivery
// included: the participant is refused everything at once, and removed
// by the timer loop.
func (p *Participant) dropParticipant(prefix rtps.GuidPrefix, limit string) {
	p.mu.Lock()
	rp := p.remotes[prefix]
	first := rp != nil && !rp.dropped
	if first {
		rp.dropped = true
		ignoreLocked(p, p.ignored, prefix, time.Now())
		p.drops = append(p.drops, prefix)
	}
	p.mu.Unlock()
	if !first {
		return
	}
	if n, log := p.stats.limits.add(limit, false, true); log {
		p.log.Warn("dds: participant dropped", "limit", limit, "hits", n, "guid", prefix)
	}
	p.dueBy(time.Now())
}

// removeDropped removes the participants dropped for a limit.
func (p *Participant) removeDropped() {
	p.mu.Lock()
	drops := p.drops
	p.drops = nil
	p.mu.Unlock()
	for _, pre := range drops {
		p.removeParticipant(pre, "over a limit")
	}
}

// renewLease records traffic from a participant; answered tells that it
// sent something else than SPDP.
func (p *Participant) renewLease(prefix rtps.GuidPrefix, answered bool) {
	p.mu.RLock()
	rp := p.remotes[prefix]
	p.mu.RUnlock()
	if rp != nil {
		rp.lastSeen.Store(time.Now().UnixNano())
		if answered && !rp.answered.Load() {
			rp.answered.Store(true)
		}
	}
}

// expireLeases removes the participants not heard from within their lease
// and returns when the next lease could expire (zero if none).
func (p *Participant) expireLeases(now time.Time) time.Time {
	var gone []rtps.GuidPrefix
	var next time.Time
	p.mu.RLock()
	for pre, rp := range p.remotes {
		seen := time.Unix(0, rp.lastSeen.Load())
		if now.Sub(seen) > rp.lease {
			gone = append(gone, pre)
			continue
		}
		next = earliest(next, seen.Add(rp.lease+time.Millisecond))
	}
	p.mu.RUnlock()
	for _, pre := range gone {
		p.removeParticipant(pre, "lease expired")
	}
	return next
}

// removeParticipant forgets a participant and unmatches all its endpoints.
func (p *Participant) removeParticipant(prefix rtps.GuidPrefix, why string) {
	p.mu.Lock()
	rp := p.remotes[prefix]
	if rp == nil {
		p.mu.Unlock()
		return
	}
	if p.bySource[rp.source]--; p.bySource[rp.source] <= 0 {
		delete(p.bySource, rp.source)
	}
	if rp.remoteHost {
		if p.byHost[rp.source.Addr()]--; p.byHost[rp.source.Addr()] <= 0 {
			delete(p.byHost, rp.source.Addr())
		}
	}
	var gone []*remoteEndpoint
	for g := range rp.endpoints {
		if re := p.forgetEndpointLocked(g); re != nil {
			gone = append(gone, re)
			p.emitLocked(p.endpointEventLocked(EndpointLost, re))
		}
	}
	p.addDiscoveryLocked(rp, -rp.discovery)
	delete(p.remotes, prefix)
	p.emitLocked(DiscoveryEvent{Kind: ParticipantLost, Participant: rp.public()})
	p.mu.Unlock()
	p.log.Debug("dds: participant removed", "guid", prefix, "why", why)
	for _, re := range gone {
		p.unmatchRemote(re)
	}
	p.sedpPubW.removeProxy(rtps.GUID{Prefix: prefix, Entity: rtps.EntitySEDPPubReader})
	p.sedpSubW.removeProxy(rtps.GUID{Prefix: prefix, Entity: rtps.EntitySEDPSubReader})
	p.sedpPubR.removeProxy(rtps.GUID{Prefix: prefix, Entity: rtps.EntitySEDPPubWriter})
	p.sedpSubR.removeProxy(rtps.GUID{Prefix: prefix, Entity: rtps.EntitySEDPSubWriter})
	p.wlpW.removeProxy(rtps.GUID{Prefix: prefix, Entity: rtps.EntityWLPReader})
	p.wlpR.removeProxy(rtps.GUID{Prefix: prefix, Entity: rtps.EntityWLPWriter})
}
