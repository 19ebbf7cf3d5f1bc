package dds

import (
	"net/netip"
	"reflect"
	"slices"

	"github.com/afor-go/afor/transport/dds/internal/rtps"
)

// Remote participants and endpoints that change their locators (a host
// given a new address, an interface gone or back) keep their matches: the
// proxies that send to them change their destinations in place (see
// netif.go).

// setProxyLocators changes where the writer sends to remote reader g.
func (w *Writer) setProxyLocators(g rtps.GUID, locs []netip.AddrPort) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if pr := w.proxy(g); pr != nil && pr.local == nil {
		pr.locs = locs
	}
}

// setProxyLocators changes where the reader sends to remote writer g.
func (r *Reader) setProxyLocators(g rtps.GUID, locs []netip.AddrPort) {
	r.lock()
	defer r.unlock()
	if wp := r.proxies[g]; wp != nil && g.Prefix != r.p.prefix {
		wp.locs = locs
	}
}

// relocate points the proxies of remote participant pre at its new
// metatraffic (meta) and default (user) destinations: those of its
// discovery endpoints, and those of its endpoints that announced no
// locator of their own.
func (p *Participant) relocate(pre rtps.GuidPrefix, meta, user []netip.AddrPort) {
	p.sedpPubW.setProxyLocators(rtps.GUID{Prefix: pre, Entity: rtps.EntitySEDPPubReader}, meta)
	p.sedpSubW.setProxyLocators(rtps.GUID{Prefix: pre, Entity: rtps.EntitySEDPSubReader}, meta)
	p.sedpPubR.setProxyLocators(rtps.GUID{Prefix: pre, Entity: rtps.EntitySEDPPubWriter}, meta)
	p.sedpSubR.setProxyLocators(rtps.GUID{Prefix: pre, Entity: rtps.EntitySEDPSubWriter}, meta)
	var apply []func()
	p.mu.Lock()
	for _, m := range []map[rtps.GUID]*remoteEndpoint{p.remoteWriters, p.remoteReaders} {
		for g, re := range m {
			if g.Prefix != pre || re.local || len(p.pickLocators(re.data.UnicastLocators)) > 0 {
				continue
			}
			apply = append(apply, p.setEndpointLocatorsLocked(re, user))
		}
	}
	p.mu.Unlock()
	for _, f := range apply {
		f()
	}
}

// setEndpointLocatorsLocked records remote endpoint re's new destinations
// and returns what updates the local endpoints matched with it. Call with
// p.mu held, and the result without.
func (p *Participant) setEndpointLocatorsLocked(re *remoteEndpoint, locs []netip.AddrPort) func() {
	re.locs = locs
	ws := make([]*Writer, 0, len(re.matchedW))
	rs := make([]*Reader, 0, len(re.matchedR))
	for _, w := range re.matchedW {
		ws = append(ws, w)
	}
	for _, r := range re.matchedR {
		rs = append(rs, r)
	}
	g := re.guid
	return func() {
		for _, w := range ws {
			w.setProxyLocators(g, locs)
		}
		for _, r := range rs {
			r.setProxyLocators(g, locs)
		}
	}
}

// sameButLocators reports whether two announcements of an endpoint differ
// in their unicast locators at most.
func sameButLocators(a, b *rtps.EndpointData) bool {
	x, y := *a, *b
	x.UnicastLocators, y.UnicastLocators = nil, nil
	return !slices.Equal(a.UnicastLocators, b.UnicastLocators) && reflect.DeepEqual(x, y)
}
