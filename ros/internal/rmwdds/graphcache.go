package rmwdds

import (
	"cmp"
	"slices"

	"github.com/afor-go/afor/ros/internal/rmw"
	"github.com/afor-go/afor/transport/dds"
)

// The node of an endpoint that no node lists in ros_discovery_info, as
// rmw_dds_common's graph cache names it.
const (
	NodeNameUnknown      = "_NODE_NAME_UNKNOWN_"
	NodeNamespaceUnknown = "_NODE_NAMESPACE_UNKNOWN_"
)

// Endpoint is a DDS reader or writer as SEDP announces it (or as the
// session creates it, for its own).
type Endpoint struct {
	// GUID is the endpoint's GUID; its entity kind tells a reader from a
	// writer and its prefix names its participant.
	GUID     dds.GUID
	Topic    string // DDS topic name, "rt/chatter"
	TypeName string // DDS type name, "std_msgs::msg::dds_::String_"
	QoS      dds.QoS
	// HistoryKnown says whether the endpoint announced HISTORY (Fast DDS
	// never does).
	HistoryKnown bool
	UserData     []byte
}

// GraphCache builds the ROS graph from what DDS discovery tells: node names
// only from ros_discovery_info samples (the latest per participant),
// endpoints only from SEDP, as rmw_dds_common's graph cache does. Feed it
// with its methods, which report whether the graph changed, and take
// snapshots with Graph. It is not safe for concurrent use: the session
// guards it.
type GraphCache struct {
	enclaves  map[dds.GUID]string // participant → enclave
	infos     map[dds.GUID]ParticipantInfo
	endpoints map[dds.GUID]graphEndpoint
	// byParticipant indexes endpoints by participant, so that removing
	// one does not walk them all.
	byParticipant map[dds.GUID]map[dds.GUID]struct{}
}

// graphEndpoint is an Endpoint turned into a ROS endpoint (or not).
type graphEndpoint struct {
	kind rmw.EndpointKind // 0 when it carries no ROS topic or service
	ep   rmw.Endpoint
}

// NewGraphCache returns an empty graph cache.
func NewGraphCache() *GraphCache {
	return &GraphCache{
		enclaves:  make(map[dds.GUID]string),
		infos:     make(map[dds.GUID]ParticipantInfo),
		endpoints: make(map[dds.GUID]graphEndpoint),

		byParticipant: make(map[dds.GUID]map[dds.GUID]struct{}),
	}
}

// AddParticipant records a participant and the enclave of its USER_DATA
// ("enclave=…;"), which its nodes take.
func (c *GraphCache) AddParticipant(guid dds.GUID, userData []byte) bool {
	enclave := ParseEnclave(userData)
	if old, ok := c.enclaves[guid]; ok && old == enclave {
		return false
	}
	c.enclaves[guid] = enclave
	_, hasInfo := c.infos[guid]
	return hasInfo
}

// RemoveParticipant forgets a participant that left or expired: its nodes
// and its endpoints.
func (c *GraphCache) RemoveParticipant(guid dds.GUID) bool {
	_, changed := c.infos[guid]
	delete(c.enclaves, guid)
	delete(c.infos, guid)
	for g := range c.byParticipant[guid] {
		if e, ok := c.endpoints[g]; ok {
			delete(c.endpoints, g)
			changed = changed || e.kind != 0
		}
	}
	delete(c.byParticipant, guid)
	return changed
}

// UpdateInfo replaces what is known of the nodes of participant p.GUID by
// p, a ros_discovery_info sample.
func (c *GraphCache) UpdateInfo(p ParticipantInfo) bool {
	if old, ok := c.infos[p.GUID]; ok && equalInfo(old, p) {
		return false
	}
	c.infos[p.GUID] = p
	return true
}

func equalInfo(a, b ParticipantInfo) bool {
	return a.GUID == b.GUID && slices.EqualFunc(a.Nodes, b.Nodes, func(x, y NodeEntities) bool {
		return x.Namespace == y.Namespace && x.Name == y.Name &&
			slices.Equal(x.Readers, y.Readers) && slices.Equal(x.Writers, y.Writers)
	})
}

// AddEndpoint records (or updates) a reader or writer. Those of topics
// that carry no ROS topic or service (ros_discovery_info, other DDS
// applications) are kept out of the graph; a service is listed once, by
// its request topic: a request reader is a service server, a request
// writer a client, and the reply topics are left out. An unreadable type
// hash in USER_DATA is shown as none.
func (c *GraphCache) AddEndpoint(e Endpoint) bool {
	ge := toGraphEndpoint(e)
	if old, ok := c.endpoints[e.GUID]; ok && old.kind == ge.kind && old.ep == ge.ep {
		return false
	}
	c.endpoints[e.GUID] = ge
	pg := e.GUID.Participant()
	m := c.byParticipant[pg]
	if m == nil {
		m = make(map[dds.GUID]struct{})
		c.byParticipant[pg] = m
	}
	m[e.GUID] = struct{}{}
	return ge.kind != 0
}

// RemoveEndpoint forgets a reader or writer.
func (c *GraphCache) RemoveEndpoint(guid dds.GUID) bool {
	e, ok := c.endpoints[guid]
	if !ok {
		return false
	}
	delete(c.endpoints, guid)
	if m := c.byParticipant[guid.Participant()]; m != nil {
		delete(m, guid)
		if len(m) == 0 {
			delete(c.byParticipant, guid.Participant())
		}
	}
	return e.kind != 0
}

// toGraphEndpoint classifies e by its topic and turns it into a ROS
// endpoint, without its node.
func toGraphEndpoint(e Endpoint) graphEndpoint {
	kind, name := ParseTopic(e.Topic)
	reader := isReader(e.GUID)
	var ge graphEndpoint
	switch {
	case kind == TopicMessage && reader:
		ge.kind = rmw.KindSubscription
	case kind == TopicMessage:
		ge.kind = rmw.KindPublisher
	case kind == TopicRequest && reader:
		ge.kind = rmw.KindService
	case kind == TopicRequest:
		ge.kind = rmw.KindClient
	default:
		return ge
	}
	typ, _ := ROSTypeName(e.TypeName)
	if kind == TopicRequest {
		typ, _ = ServiceTypeName(e.TypeName)
	}
	hash, err := ParseTypeHash(e.UserData)
	if err != nil {
		hash = ""
	}
	ge.ep = rmw.Endpoint{
		Kind:     ge.kind,
		Name:     name,
		Type:     typ,
		TypeHash: hash,
		QoS:      ROSQoS(e.QoS, e.HistoryKnown),
		GID:      GIDOf(e.GUID),
	}
	return ge
}

// Graph returns a snapshot of the graph: nodes and endpoints sorted, a
// node listed once even when two participants announce the same name,
// endpoints that no node lists under NodeNamespaceUnknown and
// NodeNameUnknown.
func (c *GraphCache) Graph() *rmw.Graph {
	out := &rmw.Graph{}
	owners := make(map[dds.GUID]rmw.NodeName)
	for pg, p := range c.infos {
		enclave, ok := c.enclaves[pg]
		if !ok {
			enclave = "/"
		}
		for _, n := range p.Nodes {
			name := rmw.NodeName{Namespace: n.Namespace, Name: n.Name, Enclave: enclave}
			out.Nodes = append(out.Nodes, name)
			for _, g := range n.Readers {
				owners[g] = name
			}
			for _, g := range n.Writers {
				owners[g] = name
			}
		}
	}
	for g, e := range c.endpoints {
		if e.kind == 0 {
			continue
		}
		ep := e.ep
		if node, ok := owners[g]; ok {
			ep.Node = node
		} else {
			ep.Node = rmw.NodeName{Namespace: NodeNamespaceUnknown, Name: NodeNameUnknown}
		}
		out.Endpoints = append(out.Endpoints, ep)
	}
	cmpNode := func(a, b rmw.NodeName) int {
		return cmp.Or(cmp.Compare(a.Namespace, b.Namespace), cmp.Compare(a.Name, b.Name), cmp.Compare(a.Enclave, b.Enclave))
	}
	slices.SortFunc(out.Nodes, cmpNode)
	out.Nodes = slices.Compact(out.Nodes)
	slices.SortFunc(out.Endpoints, func(a, b rmw.Endpoint) int {
		return cmp.Or(cmp.Compare(a.Name, b.Name), cmp.Compare(a.Kind, b.Kind), cmpNode(a.Node, b.Node),
			slices.Compare(a.GID[:], b.GID[:]))
	})
	return out
}
