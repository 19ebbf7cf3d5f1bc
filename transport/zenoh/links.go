package zenoh

import (
	"encoding/hex"
	"slices"
	"strings"
)

// LinkInfo describes one link of a session to another node.
type LinkInfo struct {
	// ZID is the remote node's Zenoh ID, as Session.ZID prints it.
	ZID string
	// WhatAmI is what the remote node is: "router", "peer" or "client".
	WhatAmI string
	// Remote is the remote end, like "tcp/127.0.0.1:7447" or
	// "tls/[::1]:7447".
	Remote string
	// Dialed is true for a link this session dialled (a Connect endpoint
	// or a scouted node), false for one it accepted.
	Dialed bool
}

// Links returns the session's links that are up, sorted by ZID. With
// WaitConnected, it is how to watch whether the Connect endpoints were
// reached: an endpoint that could not be linked has no entry.
func (s *Session) Links() []LinkInfo {
	s.mu.Lock()
	out := make([]LinkInfo, 0, len(s.links))
	for l := range s.links {
		zid := slices.Clone(l.remoteZID)
		slices.Reverse(zid)
		out = append(out, LinkInfo{
			ZID:     hex.EncodeToString(zid),
			WhatAmI: l.whatami.String(),
			Remote:  remoteLocator(l.conn),
			Dialed:  l.dialed,
		})
	}
	s.mu.Unlock()
	slices.SortFunc(out, func(a, b LinkInfo) int { return strings.Compare(a.ZID, b.ZID) })
	return out
}
