// Package rmwzenoh implements the rmw seam (package ros/internal/rmw) with
// the conventions of rmw_zenoh_cpp, ROS 2's Zenoh middleware, over afor's
// pure-Go Zenoh (transport/zenoh), so that ROS 2 nodes running on
// rmw_zenoh_cpp see and talk to Go nodes.
//
// The conventions, checked byte for byte against a real rmw_zenoh_cpp 0.6.6
// (ROS 2 Kilted) in the golden tests, and exercised against rclpy running
// on a hand-built one (TestInteropRealRMWZenoh here; package ros's rclpy
// suites for actions, parameters, /rosout and sim time) when
// AFOR_RMW_ZENOH_PYTHON names a launcher:
//
//   - Data key expressions: "<domain>/<name without outer slashes>/<DDS
//     type>/<RIHS01 type hash>", the service type for services.
//   - Liveliness tokens under "@ros2_lv/<domain>/<zid>/<node id>/<entity
//     id>/<NN|MP|MS|SS|SC>/<enclave>/<namespace>/<node>[/<name>/<type>/<hash>/<qos>]",
//     with '/' mangled to '%', node and entity ids from one counter per
//     session (the first node is 0/0), the ZID as rmw_zenoh prints it (the
//     wire bytes reversed, hex, leading zeros dropped) and the QoS string
//     with rmw_zenoh's defaults left empty.
//   - The 33-byte attachment of every publication, request and reply:
//     sequence number (from 1), source time in ns, 0x10, GID.
//   - GIDs: XXH3-128 of the entity's token, low 64 bits then high 64 bits,
//     little endian.
//   - Services: a complete queryable on the service key; requests are
//     queries with target all-complete, no consolidation and a 600 s
//     timeout (unbounded for an action's get_result), answered once with
//     the request's sequence number and the client's GID.
//   - The graph: a liveliness subscriber with history on
//     "@ros2_lv/<domain>/**".
//
// Every publication carries an HLC timestamp (Unix-epoch NTP64) that
// strictly increases over the session, since rmw_zenoh's subscribers drop
// a sample whose timestamp does not.
//
// Input from peers is checked: samples without a valid attachment are
// dropped, requests without one get an error reply, replies that match no
// request and tokens that do not parse are ignored; all are counted (see
// Session.Stats) and logged at debug level, and the session keeps serving.
//
// # TRANSIENT_LOCAL
//
// Transient-local publishers and subscriptions follow zenoh-ext's advanced
// publisher and subscriber protocol, as rmw_zenoh uses it, in the form of a
// publisher without sample-miss detection (the "uhlc" form, which
// rmw_zenoh's own BEST_EFFORT + TRANSIENT_LOCAL publishers use and its
// subscribers accept for any reliability):
//
//   - the publisher keeps its last depth samples and declares a liveliness
//     token and a queryable on "<key>/@adv/pub/<zid>/uhlc/_"; it answers a
//     history query ("?_max=<n>;_anyke") with the newest n samples on the
//     data key, with their original HLC timestamps and attachments;
//   - a subscription queries "<key>/@adv/**?_max=<depth>;_anyke" when it is
//     created, holding live samples back until that query ends, then
//     queries each publisher token that appears later under
//     "<key>/@adv/pub/**"; it delivers every sample once, removing
//     duplicates by publisher GID and sequence number.
//
// Not implemented: SourceInfo sequence numbers, the heartbeat, miss
// detection and recovery by sequence number ("_sn" queries, answered with
// nothing), and the "@adv/sub" subscriber token (nothing in rmw_zenoh
// 0.6.6 reads it). History queries time out after 10 s (rmw_zenoh sets no
// limit).
//
// # Session and Zenoh QoS
//
// Sessions default to rmw_zenoh's session config: a peer connecting to a
// router on tcp/localhost:7447, listening on an ephemeral port, lease 60 s,
// and gossip as rmw_zenoh sets it (to routers only; the peer with the
// greater ZID dials), so that a Go node beside rmw_zenoh_cpp nodes and
// rmw_zenohd links to each of them directly, as they link to each other,
// and exchanges data peer to peer. Publishers take rmw_zenoh's Zenoh QoS:
// congestion control BLOCK for RELIABLE with KEEP_ALL (a publication
// waits, within its ctx, for a slow subscriber instead of being dropped),
// DROP otherwise, priority Data, express off. Service requests and replies
// travel with congestion control BLOCK, as in rmw_zenoh.
//
// # Not implemented yet
//
// Zenoh's QoS lanes (per-priority queues on a link) are not negotiated by
// transport/zenoh: priorities are carried, not used to reorder. Deadline,
// lifespan and liveliness are announced in tokens but not enforced, as in
// rmw_zenoh. Best-effort and reliable both travel over TCP.
package rmwzenoh
