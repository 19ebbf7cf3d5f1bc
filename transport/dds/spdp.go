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
	found    time.Time    // when it was discovered
	greets   int          // announcements sent to it in answer (greetWindow)
	greeted  time.Time    // when the last was
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
		BuiltinEndpoints: rtps.BuiltinParticipantAnnouncer | rtps.BuiltinParticipantDetector | rtps.BuiltinPublicationsAnnouncer | rtps.BuiltinPublicationsDetector | rtps.BuiltinSubscriptionsAnnouncer | rtps.BuiltinSubscriptionsDetector,
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

// onSPDP handles a DATA from an SPDP writer.
func (p *Participant) onSPDP(c *rtps.Context, d *rtps.Data) {
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
	p.addParticipant(&pd, c.SourceVendor)
}

// addParticipant adds or refreshes a participant from its SPDP data.
func (p *Participant) addParticipant(pd *rtps.ParticipantData, vendor rtps.VendorID) {
	meta := p.pickLocators(pd.MetatrafficUnicast)
	user := p.pickLocators(pd.DefaultUnicast)
	if len(user) == 0 {
		user = meta
	}
	if len(meta) == 0 {
		meta = user
	}
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return
	}
	rp := p.remotes[pd.GUID.Prefix]
	if rp != nil {
		moved := !slices.Equal(rp.meta, meta) || !slices.Equal(rp.user, user)
		rp.lease, rp.meta, rp.user, rp.userData = pd.LeaseDuration, meta, user, pd.UserData
		rp.lastSeen.Store(time.Now().UnixNano())
		now := time.Now()
		greet := now.Sub(rp.found) < greetWindow && rp.greets < maxGreets && now.Sub(rp.greeted) >= fastAnnouncePause
		if greet {
			rp.greets++
			rp.greeted = now
		}
		p.mu.Unlock()
		if greet {
			p.announceTo(meta)
		}
		if moved {
			p.log.Debug("dds: participant moved", "guid", rp.prefix, "locators", meta)
			p.relocate(rp.prefix, meta, user)
		}
		return
	}
	rp = &remoteParticipant{
		prefix: pd.GUID.Prefix, vendor: vendor, lease: pd.LeaseDuration, meta: meta, user: user,
		builtins: pd.BuiltinEndpoints, userData: pd.UserData, found: time.Now(), greets: 1,
	}
	rp.greeted = rp.found
	rp.lastSeen.Store(time.Now().UnixNano())
	p.remotes[rp.prefix] = rp
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
		p.sedpPubR.addProxy(rtps.GUID{Prefix: pre, Entity: rtps.EntitySEDPPubWriter}, meta, true)
	}
	if rp.builtins&rtps.BuiltinSubscriptionsAnnouncer != 0 {
		p.sedpSubR.addProxy(rtps.GUID{Prefix: pre, Entity: rtps.EntitySEDPSubWriter}, meta, true)
	}
}

// renewLease records traffic from a participant.
func (p *Participant) renewLease(prefix rtps.GuidPrefix) {
	p.mu.RLock()
	rp := p.remotes[prefix]
	p.mu.RUnlock()
	if rp != nil {
		rp.lastSeen.Store(time.Now().UnixNano())
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
	delete(p.remotes, prefix)
	var gone []*remoteEndpoint
	for g, re := range p.remoteWriters {
		if g.Prefix == prefix {
			gone = append(gone, re)
			delete(p.remoteWriters, g)
			p.emitLocked(p.endpointEventLocked(EndpointLost, re))
		}
	}
	for g, re := range p.remoteReaders {
		if g.Prefix == prefix {
			gone = append(gone, re)
			delete(p.remoteReaders, g)
			p.emitLocked(p.endpointEventLocked(EndpointLost, re))
		}
	}
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
}
