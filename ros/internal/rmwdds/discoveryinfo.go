package rmwdds

import (
	"slices"

	"github.com/afor-go/afor/ros/internal/rmw"
	"github.com/afor-go/afor/ros/msgs/rmw_dds_common"
	"github.com/afor-go/afor/transport/dds"
)

// The graph topic of the ROS 2 DDS middlewares (rmw_dds_common): every
// participant publishes on it the nodes it holds and their readers and
// writers, as a ParticipantEntitiesInfo sample.
const (
	DiscoveryInfoTopicName = "ros_discovery_info"
	DiscoveryInfoTypeName  = "rmw_dds_common::msg::dds_::ParticipantEntitiesInfo_"
	DiscoveryInfoTypeHash  = "RIHS01_91a0593bacdcc50ea9bdcf849a938b128412cc1ea821245c663bcd26f83c295e"
)

// DiscoveryInfoTopic is the DDS topic of ros_discovery_info (no "rt/"
// prefix).
func DiscoveryInfoTopic() dds.Topic {
	return dds.Topic{Name: DiscoveryInfoTopicName, TypeName: DiscoveryInfoTypeName}
}

// DiscoveryInfoWriterQoS is the QoS of a participant's ros_discovery_info
// writer: RELIABLE, TRANSIENT_LOCAL, KEEP_LAST 1 (each sample is the whole
// state, so the last one is all a late joiner needs).
func DiscoveryInfoWriterQoS() dds.QoS {
	q, _ := DDSQoS(rmw.QoS{
		History:     rmw.HistoryKeepLast,
		Depth:       1,
		Reliability: rmw.ReliabilityReliable,
		Durability:  rmw.DurabilityTransientLocal,
	}, DiscoveryInfoTypeHash)
	return q
}

// DiscoveryInfoReaderQoS is the QoS of a participant's ros_discovery_info
// reader: RELIABLE, TRANSIENT_LOCAL, KEEP_ALL.
func DiscoveryInfoReaderQoS() dds.QoS {
	q, _ := DDSQoS(rmw.QoS{
		History:     rmw.HistoryKeepAll,
		Reliability: rmw.ReliabilityReliable,
		Durability:  rmw.DurabilityTransientLocal,
	}, DiscoveryInfoTypeHash)
	return q
}

// NodeEntities is one node as ros_discovery_info lists it: its namespace
// and name (the enclave is the participant's) and the GUIDs of its DDS
// readers and writers. A publisher is a writer and a subscription a
// reader; a service server is its request reader and reply writer, a
// client its request writer and reply reader.
type NodeEntities struct {
	Namespace string
	Name      string
	Readers   []dds.GUID
	Writers   []dds.GUID
}

// ParticipantInfo is one ros_discovery_info sample: the whole ROS state of
// one participant.
type ParticipantInfo struct {
	GUID  dds.GUID
	Nodes []NodeEntities
}

// maxNodeName is the bound of node_namespace and node_name.
const maxNodeName = 256

// AppendCDR appends the sample's CDR payload (CDR_LE, encapsulation header
// included) to dst. Names over 256 bytes fail with ErrInvalid.
func (p *ParticipantInfo) AppendCDR(dst []byte) ([]byte, error) {
	m := rmw_dds_common.ParticipantEntitiesInfo{
		GID:                 rmw_dds_common.Gid{Data: p.GUID},
		NodeEntitiesInfoSeq: make([]rmw_dds_common.NodeEntitiesInfo, len(p.Nodes)),
	}
	for i, n := range p.Nodes {
		if len(n.Namespace) > maxNodeName || len(n.Name) > maxNodeName {
			return dst, errorf(ErrInvalid, "node %s/%s: name over %d bytes", n.Namespace, n.Name, maxNodeName)
		}
		m.NodeEntitiesInfoSeq[i] = rmw_dds_common.NodeEntitiesInfo{
			NodeNamespace: n.Namespace,
			NodeName:      n.Name,
			ReaderGIDSeq:  gids(n.Readers),
			WriterGIDSeq:  gids(n.Writers),
		}
	}
	return m.AppendCDR(dst)
}

func gids(gs []dds.GUID) []rmw_dds_common.Gid {
	out := make([]rmw_dds_common.Gid, len(gs))
	for i, g := range gs {
		out[i].Data = g
	}
	return out
}

func guids(gs []rmw_dds_common.Gid) []dds.GUID {
	out := make([]dds.GUID, len(gs))
	for i, g := range gs {
		out[i] = g.Data
	}
	return out
}

// ParseParticipantInfo decodes a ros_discovery_info payload (either byte
// order). Bad input fails with an error wrapping ErrMalformed. What it
// allocates is bounded by the payload's length: every count is checked
// against the bytes that remain.
func ParseParticipantInfo(payload []byte) (ParticipantInfo, error) {
	var m rmw_dds_common.ParticipantEntitiesInfo
	if err := m.UnmarshalCDR(payload); err != nil {
		return ParticipantInfo{}, errorf(ErrMalformed, "ros_discovery_info: %v", err)
	}
	p := ParticipantInfo{GUID: m.GID.Data, Nodes: make([]NodeEntities, len(m.NodeEntitiesInfoSeq))}
	for i, n := range m.NodeEntitiesInfoSeq {
		p.Nodes[i] = NodeEntities{
			Namespace: n.NodeNamespace,
			Name:      n.NodeName,
			Readers:   guids(n.ReaderGIDSeq),
			Writers:   guids(n.WriterGIDSeq),
		}
	}
	return p, nil
}

// LocalEntities keeps the ROS state of this participant (its nodes and
// their readers and writers) and writes it as a ParticipantInfo. It is not
// safe for concurrent use: the session guards it.
type LocalEntities struct {
	guid  dds.GUID
	nodes []*localNode
}

// localNode is a node of LocalEntities.
type localNode struct {
	name             rmw.NodeName
	readers, writers []dds.GUID
}

// LocalNode identifies a node of a LocalEntities.
type LocalNode struct{ n *localNode }

// NewLocalEntities returns the state of participant guid, with no node.
func NewLocalEntities(participant dds.GUID) *LocalEntities {
	return &LocalEntities{guid: participant}
}

// AddNode adds a node.
func (l *LocalEntities) AddNode(name rmw.NodeName) LocalNode {
	n := &localNode{name: name}
	l.nodes = append(l.nodes, n)
	return LocalNode{n}
}

// RemoveNode removes a node and its entities.
func (l *LocalEntities) RemoveNode(n LocalNode) {
	l.nodes = slices.DeleteFunc(l.nodes, func(x *localNode) bool { return x == n.n })
}

// AddReader lists reader g under node n.
func (l *LocalEntities) AddReader(n LocalNode, g dds.GUID) { n.n.readers = append(n.n.readers, g) }

// AddWriter lists writer g under node n.
func (l *LocalEntities) AddWriter(n LocalNode, g dds.GUID) { n.n.writers = append(n.n.writers, g) }

// Remove removes reader or writer g from whichever node lists it.
func (l *LocalEntities) Remove(g dds.GUID) {
	for _, n := range l.nodes {
		n.readers = slices.DeleteFunc(n.readers, func(x dds.GUID) bool { return x == g })
		n.writers = slices.DeleteFunc(n.writers, func(x dds.GUID) bool { return x == g })
	}
}

// Info returns the participant's ros_discovery_info sample, nodes in the
// order they were added. It shares nothing with l.
func (l *LocalEntities) Info() ParticipantInfo {
	p := ParticipantInfo{GUID: l.guid, Nodes: make([]NodeEntities, len(l.nodes))}
	for i, n := range l.nodes {
		p.Nodes[i] = NodeEntities{
			Namespace: n.name.Namespace,
			Name:      n.name.Name,
			Readers:   slices.Clone(n.readers),
			Writers:   slices.Clone(n.writers),
		}
	}
	return p
}
