package dds

import (
	"context"
	"net/netip"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/afor-go/afor/transport/dds/internal/rtps"
)

// remoteEndpoint is a writer or reader learnt through SEDP, or one of this
// participant's own (local), with the local endpoints it is matched with.
type remoteEndpoint struct {
	guid     rtps.GUID
	data     rtps.EndpointData
	locs     []netip.AddrPort
	local    bool
	matchedR map[rtps.EntityID]*Reader // for a writer: the local readers matched
	matchedW map[rtps.EntityID]*Writer // for a reader: the local writers matched
	// readers lists matchedR's readers, for the receive path: every
	// sample a writer sends to ENTITYID_UNKNOWN (Cyclone DDS and Fast DDS
	// do) goes to each, and iterating a map per sample cost a tenth of a
	// subscriber's CPU. Changed with matchedR (matchReader, unmatchReader),
	// under the participant's mu.
	readers []*Reader
}

// matchReader adds r to re's matched readers (p.mu held).
func (re *remoteEndpoint) matchReader(r *Reader) {
	if re.matchedR[r.guid.Entity] == r {
		return
	}
	re.unmatchReader(r.guid.Entity)
	re.matchedR[r.guid.Entity] = r
	// A new slice: readersFor's callers iterate the old one unlocked.
	re.readers = append(slices.Clip(re.readers), r)
}

// unmatchReader removes reader id from re's matched readers (p.mu held).
func (re *remoteEndpoint) unmatchReader(id rtps.EntityID) {
	r := re.matchedR[id]
	if r == nil {
		return
	}
	delete(re.matchedR, id)
	re.readers = slices.DeleteFunc(slices.Clone(re.readers), func(x *Reader) bool { return x == r })
}

// builtinQoS is the QoS of the SEDP endpoints.
func builtinQoS() QoS {
	q, _ := QoS{Reliability: Reliable, Durability: TransientLocal, History: KeepAll, MaxSamples: 100000}.resolve()
	return q
}

// newBuiltinEndpoints creates the SEDP writers and readers, and WLP's.
func (p *Participant) newBuiltinEndpoints() {
	q := builtinQoS()
	pub := Topic{Name: "DCPSPublication", TypeName: "PublicationBuiltinTopicData"}
	sub := Topic{Name: "DCPSSubscription", TypeName: "SubscriptionBuiltinTopicData"}
	p.sedpPubW = newWriter(p, rtps.EntitySEDPPubWriter, pub, q, true)
	p.sedpSubW = newWriter(p, rtps.EntitySEDPSubWriter, sub, q, true)
	p.sedpPubR = newReader(p, rtps.EntitySEDPPubReader, pub, q, true, func(s *inSample) { p.onSEDP(s, true) })
	p.sedpSubR = newReader(p, rtps.EntitySEDPSubReader, sub, q, true, func(s *inSample) { p.onSEDP(s, false) })
	p.newWLPEndpoints()
}

// wire converts q to the QoS carried by SEDP.
func (q QoS) wire(writer bool) rtps.QoS {
	w := rtps.DefaultReaderQoS()
	if writer {
		w = rtps.DefaultWriterQoS()
	}
	w.Reliability = rtps.Reliable
	if q.Reliability == BestEffort {
		w.Reliability = rtps.BestEffort
	}
	w.MaxBlocking = q.MaxBlocking
	w.Durability = rtps.Volatile
	if q.Durability == TransientLocal {
		w.Durability = rtps.TransientLocal
	}
	w.History, w.Depth, w.HistoryPresent = rtps.KeepLast, int32(q.Depth), true
	if q.History == KeepAll {
		w.History, w.Depth = rtps.KeepAll, int32(min(q.MaxSamples, 1<<30))
	}
	inf := func(d time.Duration) time.Duration {
		if d == 0 {
			return rtps.Infinite
		}
		return d
	}
	w.Deadline = inf(q.Deadline)
	w.Lifespan = inf(q.Lifespan)
	w.Liveliness = rtps.LivelinessKind(q.Liveliness)
	w.LivelinessLease = inf(q.LivelinessLease)
	w.Partition = q.Partition
	return w
}

// endpointData is the SEDP body announcing a local endpoint. A writer
// announces the acknowledgment socket as its unicast locator (see
// ackLocators); a reader announces none, so it gets samples on the
// participant's user socket.
func (p *Participant) endpointData(g rtps.GUID, t Topic, q QoS) rtps.EndpointData {
	ed := rtps.EndpointData{
		EndpointGUID:    g,
		ParticipantGUID: rtps.GUID{Prefix: p.prefix, Entity: rtps.EntityParticipant},
		TopicName:       t.Name, TypeName: t.TypeName,
		QoS:      q.wire(!g.Entity.IsReader()),
		UserData: q.UserData,
	}
	if !g.Entity.IsReader() {
		ed.UnicastLocators = p.ackLocators()
	}
	return ed
}

// publish announces a local endpoint through SEDP, and lets the local
// endpoints of the other kind match it.
func (p *Participant) publish(ed *rtps.EndpointData) {
	w := p.sedpSubW
	if !ed.EndpointGUID.Entity.IsReader() {
		w = p.sedpPubW
	}
	now := time.Now()
	_, _ = w.write(context.Background(), &change{payload: ed.Append(nil), instance: ed.EndpointGUID, ts: rtps.TimeFrom(now)}, true, now)
	p.addRemoteEndpoint(ed, true, 0)
}

// unpublish announces through SEDP that a local endpoint is gone.
func (p *Participant) unpublish(g rtps.GUID) {
	w := p.sedpSubW
	if !g.Entity.IsReader() {
		w = p.sedpPubW
	}
	var pw rtps.PLWriter
	pw.KeyHash(g)
	pw.StatusInfo(rtps.StatusDisposed | rtps.StatusUnregistered)
	pw.Sentinel()
	now := time.Now()
	_, _ = w.write(context.Background(), &change{
		payload: rtps.AppendKey(nil, rtps.PIDEndpointGUID, g), key: true, inline: pw.Bytes(),
		instance: g, ts: rtps.TimeFrom(now),
	}, true, now)
}

// vendorOf returns the vendor of a known participant.
func (p *Participant) vendorOf(prefix rtps.GuidPrefix) (rtps.VendorID, bool) {
	p.mu.RLock()
	defer p.mu.RUnlock()
	rp := p.remotes[prefix]
	if rp == nil {
		return rtps.VendorID{}, false
	}
	return rp.vendor, true
}

// onSEDP handles a sample of the SEDP publications (writers) or
// subscriptions topic.
func (p *Participant) onSEDP(s *inSample, writers bool) {
	vendor, ok := p.vendorOf(s.writer.Prefix)
	if !ok {
		return
	}
	if s.key || s.payload == nil || s.inline != nil {
		d := rtps.Data{InlineQoS: s.inline, Payload: s.payload, Key: s.key, LittleEndian: s.inlineLE}
		disp, ok, err := rtps.ParseDisposal(&d, vendor)
		if err != nil {
			p.stats.malformed.Add(1)
			return
		}
		if ok {
			if disp.GUID.Prefix == s.writer.Prefix {
				p.removeRemoteEndpoint(disp.GUID)
			}
			return
		}
		if s.payload == nil || s.key {
			return
		}
	}
	ed, err := rtps.ParseEndpointData(s.payload, vendor)
	if err != nil {
		p.stats.malformed.Add(1)
		p.log.Debug("dds: SEDP sample does not decode", "from", s.writer.Prefix, "err", err)
		return
	}
	if ed.EndpointGUID.Prefix != s.writer.Prefix || ed.EndpointGUID.Entity.IsReader() == writers {
		return
	}
	p.addRemoteEndpoint(&ed, false, len(s.payload))
}

// addRemoteEndpoint records an endpoint, announced in an SEDP sample of
// size bytes, and matches the local endpoints of the other kind with it.
// A remote participant that goes over a limit with it is dropped.
func (p *Participant) addRemoteEndpoint(ed *rtps.EndpointData, local bool, size int) {
	g := ed.EndpointGUID
	isReader := g.Entity.IsReader()
	var locs []netip.AddrPort
	if local {
		locs = p.pickLocators(p.netView().user)
	} else {
		locs = p.pickLocators(ed.UnicastLocators)
	}
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return
	}
	m := p.remoteWriters
	if isReader {
		m = p.remoteReaders
	}
	old := m[g]
	if old != nil && reflect.DeepEqual(old.data, *ed) {
		p.mu.Unlock()
		return
	}
	if !local {
		rp := p.remotes[g.Prefix]
		if rp == nil || rp.dropped {
			p.mu.Unlock()
			return
		}
		if len(locs) == 0 {
			locs = rp.user
		}
		over := ""
		prev, known := rp.endpoints[g]
		switch {
		case !known && len(rp.endpoints) >= p.cfg.lim.MaxEndpointsPerParticipant:
			over = LimitEndpointsPerParticipant
		case !known && p.nRemoteEndpoints >= p.cfg.lim.MaxEndpoints:
			over = LimitEndpoints
		default:
			over = p.addDiscoveryLocked(rp, size-prev)
			if rp.endpoints == nil {
				rp.endpoints = map[rtps.GUID]int{}
			}
			if !known {
				p.nRemoteEndpoints++
			}
			rp.endpoints[g] = size
		}
		if over != "" {
			p.mu.Unlock()
			p.dropParticipant(g.Prefix, over)
			return
		}
	}
	if old != nil && !local && sameButLocators(&old.data, ed) {
		old.data.UnicastLocators = ed.UnicastLocators
		apply := p.setEndpointLocatorsLocked(old, locs)
		p.mu.Unlock()
		apply()
		return
	}
	re := &remoteEndpoint{guid: g, data: *ed, locs: locs, local: local,
		matchedR: map[rtps.EntityID]*Reader{}, matchedW: map[rtps.EntityID]*Writer{}}
	if old != nil && old.data.TopicName != ed.TopicName {
		p.unindexLocked(old)
	}
	m[g] = re
	t := p.byTopic[ed.TopicName]
	if t == nil {
		t = map[rtps.GUID]*remoteEndpoint{}
		p.byTopic[ed.TopicName] = t
	}
	t[g] = re
	p.emitLocked(p.endpointEventLocked(EndpointFound, re))
	var ws []*Writer
	var rs []*Reader
	if isReader {
		for _, w := range p.writers {
			if w.topic.Name == ed.TopicName {
				ws = append(ws, w)
			}
		}
	} else {
		for _, r := range p.readers {
			if r.topic.Name == ed.TopicName {
				rs = append(rs, r)
			}
		}
	}
	p.mu.Unlock()
	if old != nil {
		p.unmatchRemote(old)
	}
	for _, w := range ws {
		p.matchWriter(w, re)
	}
	for _, r := range rs {
		p.matchReader(r, re)
	}
}

// unindexLocked removes re from byTopic. Call with p.mu held.
func (p *Participant) unindexLocked(re *remoteEndpoint) {
	if t := p.byTopic[re.data.TopicName]; t != nil && t[re.guid] == re {
		delete(t, re.guid)
		if len(t) == 0 {
			delete(p.byTopic, re.data.TopicName)
		}
	}
}

// forgetEndpointLocked removes endpoint g from the maps and from its
// participant's count, and returns it (nil if unknown). Call with p.mu
// held.
func (p *Participant) forgetEndpointLocked(g rtps.GUID) *remoteEndpoint {
	m := p.remoteWriters
	if g.Entity.IsReader() {
		m = p.remoteReaders
	}
	re := m[g]
	if re == nil {
		return nil
	}
	delete(m, g)
	p.unindexLocked(re)
	if rp := p.remotes[g.Prefix]; rp != nil && !re.local {
		if size, ok := rp.endpoints[g]; ok {
			delete(rp.endpoints, g)
			p.nRemoteEndpoints--
			p.addDiscoveryLocked(rp, -size)
		}
	}
	return re
}

// remoteOnTopicLocked returns the known endpoints of topic that are
// readers (or writers). Call with p.mu held.
func (p *Participant) remoteOnTopicLocked(topic string, readers bool) []*remoteEndpoint {
	var out []*remoteEndpoint
	for g, re := range p.byTopic[topic] {
		if g.Entity.IsReader() == readers {
			out = append(out, re)
		}
	}
	return out
}

// removeRemoteEndpoint forgets an endpoint and unmatches it.
func (p *Participant) removeRemoteEndpoint(g rtps.GUID) {
	p.mu.Lock()
	re := p.forgetEndpointLocked(g)
	if re != nil {
		p.emitLocked(p.endpointEventLocked(EndpointLost, re))
	}
	p.mu.Unlock()
	if re != nil {
		p.unmatchRemote(re)
	}
}

// unmatchRemote removes re from the local endpoints it is matched with.
func (p *Participant) unmatchRemote(re *remoteEndpoint) {
	p.mu.Lock()
	ws := make([]*Writer, 0, len(re.matchedW))
	rs := make([]*Reader, 0, len(re.matchedR))
	for id, w := range re.matchedW {
		ws = append(ws, w)
		delete(re.matchedW, id)
	}
	for id, r := range re.matchedR {
		rs = append(rs, r)
		delete(re.matchedR, id)
	}
	re.readers = nil
	p.mu.Unlock()
	for _, w := range ws {
		w.removeProxy(re.guid)
	}
	for _, r := range rs {
		r.removeProxy(re.guid)
	}
}

// policyName extracts the policy from a rtps.Compatible reason, such as
// "RELIABILITY" from "reliability: BEST_EFFORT offered, ...".
func policyName(why string) string {
	name, _, _ := strings.Cut(why, ":")
	if strings.HasPrefix(name, "liveliness") {
		return "LIVELINESS"
	}
	return strings.ReplaceAll(strings.ToUpper(name), " ", "_")
}

// compatible checks everything but the topic name: the type name, the
// keyless kind and the QoS. It reports the policy at fault, or "" when the
// pair should be ignored without a report.
func (p *Participant) compatible(w, r *rtps.EndpointData) (ok bool, policy, why string) {
	if w.TypeName != r.TypeName {
		return false, "", "type names differ"
	}
	if (w.EndpointGUID.Entity.Kind() == rtps.KindWriterKey) != (r.EndpointGUID.Entity.Kind() == rtps.KindReaderKey) {
		return false, "", "keyed and keyless topic"
	}
	if ok, why := rtps.EndpointsCompatible(w, r); !ok {
		return false, policyName(why), why
	}
	return true, "", ""
}

// matchWriter matches local writer w with reader re if they are compatible.
func (p *Participant) matchWriter(w *Writer, re *remoteEndpoint) {
	if re.data.TopicName != w.topic.Name {
		return
	}
	wd := p.endpointData(w.guid, w.topic, w.qos)
	ok, policy, why := p.compatible(&wd, &re.data)
	if !ok {
		p.reportMismatch(w.status, w.guid, re, policy, why)
		return
	}
	p.mu.Lock()
	cur := p.remoteReaders[re.guid] == re && p.writers[w.guid.Entity] == w
	if cur {
		re.matchedW[w.guid.Entity] = w
	}
	// Cyclone DDS readers start at the first HEARTBEAT of a writer of
	// another vendor (Writer.addProxy, readerProxy.unsynced).
	rp := p.remotes[re.guid.Prefix]
	cyclone := rp != nil && rp.vendor == rtps.VendorCyclone
	locs := re.locs
	p.mu.Unlock()
	if cur {
		w.addProxy(re.guid, locs, re.data.QoS.Reliability == rtps.Reliable, re.data.QoS.Durability >= rtps.TransientLocal, cyclone)
	}
}

// matchReader matches local reader r with writer re if they are compatible.
func (p *Participant) matchReader(r *Reader, re *remoteEndpoint) {
	if re.data.TopicName != r.topic.Name {
		return
	}
	rd := p.endpointData(r.guid, r.topic, r.qos)
	ok, policy, why := p.compatible(&re.data, &rd)
	if !ok {
		p.reportMismatch(r.status, r.guid, re, policy, why)
		return
	}
	p.mu.Lock()
	cur := p.remoteWriters[re.guid] == re && p.readers[r.guid.Entity] == r
	if cur {
		re.matchReader(r)
	}
	locs := re.locs
	p.mu.Unlock()
	if cur {
		lease := re.data.QoS.LivelinessLease
		if lease == rtps.Infinite || lease < 0 {
			lease = 0
		}
		r.addProxy(re.guid, locs, re.data.QoS.Reliability == rtps.Reliable, LivelinessKind(re.data.QoS.Liveliness), lease)
	}
}

// reportMismatch counts and logs an incompatible QoS pair; other
// mismatches (type name, keyed kind) are only logged at debug level.
func (p *Participant) reportMismatch(st *endpointStatus, local rtps.GUID, re *remoteEndpoint, policy, why string) {
	if policy == "" {
		p.log.Debug("dds: endpoints on the same topic do not match", "topic", re.data.TopicName, "local", local, "remote", re.guid, "why", why)
		return
	}
	st.incompatible(fromRTPS(re.guid), policy)
	p.log.Warn("dds: incompatible QoS", "topic", re.data.TopicName, "policy", policy, "detail", why, "local", local, "remote", re.guid)
}
