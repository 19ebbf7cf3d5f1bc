// Package rmw is the seam between package ros and its middlewares, as
// database/sql/driver is for database/sql. ROS 2 concepts (nodes, names,
// remapping, QoS profiles, typed publishers and subscriptions, services, the
// graph) are implemented once, in package ros. Each middleware (rmw_zenoh's
// conventions over transport/zenoh, DDS over transport/dds) implements the
// interfaces below in a package of its own and knows nothing of message
// types: everything that crosses this seam is plain data.
//
// Names that cross it are fully qualified ROS names ("/ns/chatter",
// "/ns/node/~private" already expanded), validated and remapped by package
// ros. Payloads are complete CDR payloads (encapsulation header included).
package rmw

// Changes after the first version (ros package, issue 11), documentation
// only: Publisher.Publish and Client.Send must not keep the payload they
// are given after they return; the payload passed to a Client's reply
// function is valid only during that call.
//
// Issue 12: IncompatibleQoS and QoSEventSource, an optional interface of
// publishers and subscriptions (DDS implements it).
//
// Issue 16: Message.Stable, set by a middleware that hands the received
// payload over, so that package ros decodes large sequences without copying
// them.
//
// Issue 27: EndpointStatus and StatusSource, an optional interface of
// publishers and subscriptions whose middleware tracks matching and
// liveliness in its protocol (DDS); package ros derives both from the
// graph for the others.

import (
	"context"
	"time"

	"github.com/afor-go/afor"
)

// GID identifies a publisher, subscription, service or client (rmw's
// RMW_GID_STORAGE_SIZE bytes). Each middleware derives it its own way:
// rmw_zenoh hashes the entity's liveliness token, DDS uses the RTPS GUID.
type GID [16]byte

// Type names a ROS 2 interface type.
type Type struct {
	Name    string // ROS name: "std_msgs/msg/String", "std_srvs/srv/SetBool"
	DDSName string // DDS name: "std_msgs::msg::dds_::String_", "std_srvs::srv::dds_::SetBool_"
	Hash    string // RIHS01 type hash: "RIHS01_" and 64 hex digits
}

// ServiceType names a service type and the types of its two messages.
type ServiceType struct {
	Service  Type
	Request  Type // e.g. "std_srvs/srv/SetBool_Request"
	Response Type // e.g. "std_srvs/srv/SetBool_Response"
}

// Reliability, Durability, History and Liveliness take the values of
// rmw/types.h, so that they can be written as rmw_zenoh writes them.
type (
	// Reliability: 0 system default, 1 reliable, 2 best effort.
	Reliability uint8
	// Durability: 0 system default, 1 transient local, 2 volatile.
	Durability uint8
	// History: 0 system default, 1 keep last, 2 keep all.
	History uint8
	// Liveliness: 0 system default, 1 automatic, 3 manual by topic.
	Liveliness uint8
)

// Values of the QoS policies, as in rmw/types.h.
const (
	ReliabilitySystemDefault Reliability = 0
	ReliabilityReliable      Reliability = 1
	ReliabilityBestEffort    Reliability = 2

	DurabilitySystemDefault  Durability = 0
	DurabilityTransientLocal Durability = 1
	DurabilityVolatile       Durability = 2

	HistorySystemDefault History = 0
	HistoryKeepLast      History = 1
	HistoryKeepAll       History = 2

	LivelinessSystemDefault Liveliness = 0
	LivelinessAutomatic     Liveliness = 1
	LivelinessManualByTopic Liveliness = 3
)

// QoS is a complete QoS profile as it reaches a middleware. A zero
// duration means infinite (unset), as in rmw.
type QoS struct {
	History         History
	Depth           int // for HistoryKeepLast
	Reliability     Reliability
	Durability      Durability
	Deadline        time.Duration
	Lifespan        time.Duration
	Liveliness      Liveliness
	LivelinessLease time.Duration
}

// NodeName identifies a node: its namespace ("/" or "/a/b"), its name, and
// its security enclave ("/" by default).
type NodeName struct {
	Namespace string
	Name      string
	Enclave   string
}

// MessageInfo describes one received message, request or reply.
type MessageInfo struct {
	PublisherGID GID       // the publisher's (or client's) GID
	Sequence     int64     // its sequence number, from 1 per publisher or client
	SourceTime   time.Time // when it was published, by the sender's clock
	ReceivedTime time.Time // when it was received, by ours
}

// Message is a received sample.
//
// Unless Stable is set, Payload is valid only during the call that delivers
// it: a receiver that keeps it, or anything decoded from it without a copy,
// must copy it.
type Message struct {
	Payload []byte
	Info    MessageInfo
	// Stable says that the middleware hands Payload over: it never writes
	// or reuses those bytes after delivering them, so the receiver may keep
	// Payload and decode messages that alias it (cdr.Options.Alias), with
	// no copy. Other receivers of the same sample may hold the same bytes,
	// so they are read-only for everyone. A middleware that reuses its
	// receive buffers (a pool) or delivers a buffer its sender reuses
	// leaves Stable false.
	Stable bool
}

// Request is a received service request. Payload is valid only during the
// call that delivers it. Reply sends the response payload, at most once,
// from any goroutine and at any later time; err non-nil sends the
// middleware's error reply where it has one (and nothing where it has not).
type Request struct {
	Payload []byte
	Info    MessageInfo
	Reply   func(payload []byte, err error) error
}

// Session is one middleware session (a ROS 2 context): it holds the
// connection to the rest of the system and the nodes created on it.
type Session interface {
	// CreateNode announces a node on the graph.
	CreateNode(name NodeName) (Node, error)
	// Graph is the graph as this session sees it, its own entities
	// included: a new snapshot is input on every change, so WaitForValue
	// gives the current graph and a Listen loop follows it.
	Graph() *afor.Sub[*Graph]
	// Close closes every node and the session.
	Close() error
}

// Node creates the entities of one node. Closing a node closes them all and
// removes the node from the graph.
type Node interface {
	CreatePublisher(topic string, t Type, q QoS) (Publisher, error)
	// CreateSubscription calls deliver for every message received, on a
	// middleware goroutine; deliver must not block.
	CreateSubscription(topic string, t Type, q QoS, deliver func(Message)) (Subscription, error)
	// CreateService calls handle for every request received, on a
	// middleware goroutine; handle must not block (it answers later through
	// Request.Reply).
	CreateService(name string, t ServiceType, q QoS, handle func(Request)) (Service, error)
	CreateClient(name string, t ServiceType, q QoS) (Client, error)
	Close() error
}

// Publisher publishes CDR payloads on a topic.
type Publisher interface {
	// Publish sends payload. The middleware must not keep payload after
	// Publish returns: package ros reuses it for the next message.
	Publish(ctx context.Context, payload []byte) error
	GID() GID
	Close() error
}

// BufferPublisher is implemented by the publishers of a middleware that
// can keep the payload it is given instead of copying it (DDS: a reliable
// writer's history); package ros asks for it with a type assertion.
type BufferPublisher interface {
	// PublishBuffer sends payload and may keep it: the caller must not use
	// payload again. It returns a buffer for the caller to encode its next
	// message into (payload itself when the middleware did not keep it),
	// or nil.
	PublishBuffer(ctx context.Context, payload []byte) ([]byte, error)
}

// Matcher is implemented by the publishers of a middleware that knows
// which subscriptions it has matched (DDS: the writer's matched readers,
// as rmw_fastrtps counts them); package ros asks for it with a type
// assertion, and counts the graph's subscriptions of the topic for the
// others (as rmw_zenoh does).
type Matcher interface {
	// Matched returns how many subscriptions are matched now.
	Matched() int
	// WaitMatched waits until at least n subscriptions are matched.
	WaitMatched(ctx context.Context, n int) error
}

// AckWaiter is implemented by the publishers of a middleware whose
// subscriptions acknowledge what they received (DDS: a reliable writer's
// readers); package ros asks for it with a type assertion, and the others
// have nothing to wait for (rmw_zenoh answers wait_for_all_acked at once).
type AckWaiter interface {
	// WaitAcknowledged waits until every matched reliable subscription
	// has acknowledged everything published before the call.
	WaitAcknowledged(ctx context.Context) error
}

// IncompatibleQoS is the event of a publisher or subscription that found a
// remote endpoint on its topic whose QoS it cannot match (rmw's
// RMW_EVENT_OFFERED_QOS_INCOMPATIBLE and RMW_EVENT_REQUESTED_QOS_INCOMPATIBLE).
type IncompatibleQoS struct {
	// TotalCount counts the incompatible remote endpoints found so far,
	// TotalCountChange those found since the last event.
	TotalCount       int
	TotalCountChange int
	// LastPolicy names the policy of the last one, as DDS names it:
	// "DURABILITY", "RELIABILITY", "DEADLINE", "LIVELINESS", ...
	LastPolicy string
}

// QoSEventSource is implemented by the publishers and subscriptions of a
// middleware that detects incompatible QoS (DDS); package ros asks for it
// with a type assertion, and the middlewares that cannot tell (Zenoh,
// memory) simply do not implement it.
type QoSEventSource interface {
	// OnIncompatibleQoS makes the endpoint call f, from a middleware
	// goroutine, for every incompatible remote endpoint it finds from now
	// on, until it is closed. f must not block. It is called at most once
	// per endpoint.
	OnIncompatibleQoS(f func(IncompatibleQoS))
}

// EndpointStatus is the protocol state of a publisher or subscription, as
// a middleware that tracks it reports it (rmw's publication and
// subscription matched statuses, and a subscription's liveliness changed
// status).
type EndpointStatus struct {
	// Matched counts the remote endpoints matched now, TotalMatched the
	// matches since the endpoint was created.
	Matched, TotalMatched int
	// Alive and NotAlive count, for a subscription, the matched publishers
	// whose liveliness is asserted and those whose lease ran out.
	Alive, NotAlive int
}

// StatusSource is implemented by the publishers and subscriptions of a
// middleware that tracks matching and liveliness (DDS); package ros asks
// for it with a type assertion.
type StatusSource interface {
	// OnStatus makes the endpoint call f, from a middleware goroutine,
	// with its status now and after every change, until it is closed. f
	// must not block; consecutive calls may skip intermediate states.
	OnStatus(f func(EndpointStatus))
}

// Subscription receives a topic's messages through its deliver function.
type Subscription interface {
	GID() GID
	Close() error
}

// Service receives requests through its handle function.
type Service interface {
	GID() GID
	Close() error
}

// Client sends requests to a service. Its Send and WaitReady have the
// contract of afor.Requester. The payload given to reply is valid only
// during that call, and Send must not keep payload after it returns.
type Client interface {
	Send(ctx context.Context, payload []byte, reply func(payload []byte, err error)) (cancel func(), err error)
	WaitReady(ctx context.Context) error
	GID() GID
	Close() error
}

// EndpointKind says what an endpoint of the graph is.
type EndpointKind uint8

// Endpoint kinds.
const (
	KindPublisher EndpointKind = iota + 1
	KindSubscription
	KindService
	KindClient
)

// Endpoint is a publisher, subscription, service server or client of the
// graph.
type Endpoint struct {
	Kind EndpointKind
	// Node owns the endpoint. One no node claims gets rmw_dds_common's
	// names, which the ROS tools show: namespace
	// "_NODE_NAMESPACE_UNKNOWN_", name "_NODE_NAME_UNKNOWN_".
	Node     NodeName
	Name     string // fully qualified topic or service name
	Type     string // ROS type name of the topic or service
	TypeHash string
	QoS      QoS
	GID      GID
}

// Graph is an immutable snapshot of the ROS graph. Endpoints of services
// are listed once, with the service's name and type (not as request and
// reply topics).
type Graph struct {
	Nodes     []NodeName
	Endpoints []Endpoint
}
