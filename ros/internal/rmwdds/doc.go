// Package rmwdds holds the conventions by which ROS 2 runs over DDS, as
// rmw_fastrtps_cpp (ROS 2's default middleware) and rmw_cyclonedds_cpp
// follow them, for the DDS middleware of package ros over afor's pure-Go
// DDS (transport/dds). They are pure functions and small types, checked
// against values captured from real rclpy nodes on Fast DDS (Kilted) in the
// golden tests (shared/notes/dds-rtps.md §5):
//
//   - Names: a topic "/ns/x" is the DDS topic "rt/ns/x"; a service "/s" is
//     the topics "rq/sRequest" and "rr/sReply"; a type "pkg/msg/T" is the
//     DDS type "pkg::msg::dds_::T_". TopicName, RequestTopic, ReplyTopic,
//     DDSTypeName, and ParseTopic, ROSTypeName, ServiceTypeName back for
//     the graph.
//   - USER_DATA: every endpoint announces "typehash=RIHS01_…;" (request and
//     reply endpoints the hashes of the request and response messages),
//     every participant "enclave=/;". TypeHashUserData, ParseTypeHash,
//     EnclaveUserData, ParseEnclave.
//   - QoS: DDSQoS maps a ROS profile onto DDS (depth into HISTORY, zero
//     durations infinite, AUTOMATIC liveliness, max_blocking 100 ms) and
//     ROSQoS maps a discovered endpoint's QoS back.
//   - GIDs are the entities' 16-byte GUIDs (GIDOf).
//   - Services: requests and replies are tied by rmw_fastrtps's inline
//     PID_RELATED_SAMPLE_IDENTITY (RequestIdentity, RequestID,
//     ReplyIdentity, ClientIdentity, AppendSampleIdentity,
//     ParseSampleIdentity) or by rmw_cyclonedds's 16-byte header in the
//     body (CycloneHeader, AppendCyclone, CutCyclone); CorrelationFor picks
//     the form by the peer's vendor.
//   - The graph: every participant publishes its nodes and their readers'
//     and writers' GUIDs on "ros_discovery_info" (rmw_dds_common's
//     ParticipantEntitiesInfo, Kilted's 16-byte Gid): ParticipantInfo,
//     ParseParticipantInfo and LocalEntities, which keeps this
//     participant's. GraphCache joins those samples with the endpoints SEDP
//     announces into rmw.Graph snapshots, as rmw_dds_common's graph cache
//     does: node names only from ros_discovery_info, endpoints only from
//     SEDP, unclaimed endpoints under NodeNameUnknown, services listed once.
//
// Input from peers (ros_discovery_info samples, USER_DATA, request headers,
// related sample identities, names) is checked: decoders return errors
// wrapping ErrMalformed, never panic, and allocate no more than the input's
// length allows.
//
// # Session
//
// Session is the rmw.Session over one transport/dds participant: nodes,
// publishers and subscriptions ("rt/" topics, QoS by DDSQoS, the typehash
// USER_DATA), services and clients, and the graph, published on
// ros_discovery_info (TRANSIENT_LOCAL, rewritten on every change) and
// followed from other participants' samples. It interoperates with rclpy on
// Fast DDS for topics and the graph's nodes (rclpy's
// get_node_names_and_namespaces, get_topic_names_and_types and
// count_publishers see the Go node; the Go graph has rclpy's nodes), as
// TestInteropRclpy checks. What transport/dds does not expose yet limits
// the rest:
//
//   - Services speak rmw_cyclonedds's header form only: Go with Go (and
//     Cyclone DDS) works; requests from Fast DDS peers are dropped and
//     counted, and a Go client must not be pointed at a Fast DDS server,
//     which misparses the header. Fast DDS's form needs inline QoS on
//     writes and received samples.
//   - The graph has the remote participants' nodes but not their
//     endpoints, which only SEDP tells; endpoints are this session's own.
//   - Participants are followed by polling dds.Participant.Participants.
//   - Incompatible QoS is not reported: rmw has no event for it yet.
package rmwdds
