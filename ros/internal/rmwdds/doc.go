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
// USER_DATA), services and clients, and the graph. Readers deliver through
// transport/dds's callback readers, on the participant's receive
// goroutine.
//
//   - Services: a client sends each request in the form of the service's
//     participants: rmw_fastrtps's inline sample identity ({its reply
//     reader, SN unknown}; replies matched on {reply reader or request
//     writer, request SN}) unless every server is Cyclone DDS's, which gets
//     rmw_cyclonedds's header. A server answers each request in the form it
//     came in, echoing the request identity and, when it names the
//     client's reply reader, first waiting up to the reply writer's
//     max_blocking (100 ms) for that reader to match, as Fast DDS does (the
//     reply is dropped and counted if it does not). DDS has no error
//     reply: a failed request gets none, except between afor participants,
//     which send an error reply (ErrRemote on the client).
//   - The graph: this participant's nodes and their endpoints are published
//     on ros_discovery_info (TRANSIENT_LOCAL, rewritten on every change);
//     other participants' nodes come from their ros_discovery_info samples,
//     their endpoints from transport/dds's discovery events (SEDP), and
//     participants from its participant events.
//
// TestInteropRclpy, TestInteropRclpyServicesGraph and TestInteropRclpyTypes
// check it against rclpy on Fast DDS: topics both ways (std_msgs/String,
// geometry_msgs/PoseArray, sensor_msgs/JointState, a 0.9 MB
// sensor_msgs/Image, best-effort sensor data), services both ways (a Go
// server answering later and an rclpy client; an rclpy server and a Go
// client), the graph both ways (rclpy's get_node_names_and_namespaces,
// get_topic_names_and_types, get_service_names_and_types and counts; the Go
// graph's rclpy node, topics and services), TRANSIENT_LOCAL late joiners
// both ways, and an incompatible QoS pair reported on the Go reader.
//
// Not done: incompatible QoS is counted on the DDS endpoints but rmw has no
// event for it yet; the header form's codec is checked by unit tests, but
// no test runs a service against rmw_cyclonedds.
package rmwdds
