// Package zenoh is a pure-Go implementation of Zenoh 1.x (wire protocol
// 0x09) for publish/subscribe over TCP, TLS, QUIC, UDP and Unix sockets,
// in peer and client modes. It
// interoperates with the Rust stack (tested through the eclipse-zenoh Python
// package, as router, peer and client) and with zenoh-pico.
//
// # Sessions
//
// Open starts a Session from a Config: endpoints to listen on and to
// connect to ("tcp/127.0.0.1:7447"), a lease (10 s by default; a remote that
// stays silent that long is dropped, and KEEP_ALIVE is sent after Lease/4
// without traffic), a batch size and a random Zenoh ID. Connect endpoints are
// redialled while the session lives. Close sends CLOSE on every link and
// waits for every goroutine of the session.
//
// # Publishing and subscribing
//
// DeclareSubscriber calls a handler for every sample whose key expression
// intersects the subscriber's; DeclarePublisher, Publisher.Put and
// Publisher.Delete (or Session.Put and Session.Delete for one-off
// publications) send samples with an optional Encoding, attachment and
// Timestamp. Subscribe and SubscribeCodec feed an afor.Sub instead, so that
// samples can be awaited and iterated with the afor API; closing that Sub
// undeclares the subscriber.
//
// # Routing
//
// A sample goes to the local subscribers that match and to each linked node
// that declared a matching subscriber. A session in peer mode also relays
// for its clients: samples and subscriptions from a client reach its other
// links, and those of its other links reach its clients, which it answers
// INTEREST messages for (aggregated or not). It does not relay from one peer
// to another, as Zenoh peers do not. A client session, and a peer linked to
// a router, ask the router for its subscribers with an INTEREST; until the
// router has answered, every publication goes to it, and afterwards only
// those it has a subscriber for. Publisher.WaitMatching waits for a known
// subscriber in every mode.
//
// # Links
//
// Endpoints are Zenoh locators, "proto/address[?metadata][#config]":
// tcp/, tls/ (crypto/tls, mutual TLS: Config.TLS), quic/ (quic-go, one
// stream), udp/ (best effort, a batch per datagram) and
// unixsock-stream/, IPv6 in brackets. Config.Auth is Zenoh's user and
// password authentication, and LoadConfig reads Rust Zenoh's JSON5
// configuration files.
//
// Each link has one reader and one writer goroutine, never one per
// message. A message sent while the link is idle is written by the sending
// goroutine itself, in one non-blocking system call (what the socket does
// not take is left to the writer); messages sent while a write is in
// progress are queued and go out together in one batch; a message bigger than the negotiated batch size is split into
// FRAGMENTs and reassembled on receipt, up to Config.MaxMessageSize (a
// larger one is dropped, the link kept; see Large payloads below). A remote that sends bytes that do
// not decode is sent CLOSE and dropped; the session and its other links
// continue. Two nodes that dial each other keep a single link.
//
// # Large payloads and who owns them
//
// A payload too big for one batch (a camera image) is copied only by the
// kernel's socket calls. A Put on an idle link writes the fragments from
// the caller's slice itself, with vectored writes; a Put on a busy link
// queues a copy. The receiving link reads each fragment straight into one
// reassembly buffer, and the whole message is decoded in place. The rules:
//
//   - Put's payload stays the caller's: once Put returns, the caller may
//     modify or reuse it (what the socket had not taken by then was
//     copied).
//   - A Sample's Payload (and Attachment) is the handler's own: the session
//     never reuses or shares it, so a handler may keep it, and modify it.
//     A fragmented sample's Payload is the reassembly buffer itself (no
//     copy): the link starts its next message in a new buffer. With several
//     subscribers of one session, the last one gets the buffer and the
//     others a copy (as does a sample the session also relays).
//   - SubscribeCodec decodes from the session's buffers and reuses them once
//     Decode returns (afor.Codec's rule), so a stream of large samples
//     decoded by a copying codec allocates nothing in the transport. A
//     codec whose decoded values alias their input must implement
//     PayloadKeeper: it is then given bytes of its own, the reassembly
//     buffer without a copy, or else a copy.
//   - A link keeps at most one reassembly buffer (up to 8 MiB) between
//     messages, whose size follows the last message, so a steady stream of
//     equal images reuses it or allocates exactly one payload. What a slow
//     consumer holds is what it kept (its queue of values); the transport
//     holds no more. A message is reassembled in memory allocated as its
//     fragments arrive, bounded per link (Config.MaxLinkReassembly) and,
//     with the buffers links keep, per session
//     (Config.MaxSessionReassembly): a link over its share loses the
//     message with a warning and keeps running. An incomplete message
//     that goes stale is dropped (Limits.ReassemblyTimeout).
//
// The DDS transport and the ROS 2 layer follow the same design: reassemble
// fragments into the buffer that becomes the sample's payload, and decode
// large sequences aliasing a buffer the consumer owns.
//
// # Queries
//
// Get sends a query on a selector ("key/expr?parameters", with an optional
// payload, encoding, attachment, target, consolidation and timeout) to the
// local queryables that match and to the linked nodes that declared one
// (or, before a router has listed its queryables, to the router), and
// yields the replies (samples or error replies) until every node reached
// has sent RESPONSE_FINAL, the timeout passes or ctx ends. DeclareQueryable
// hands each query to a handler as a *Query that may be answered later,
// from any goroutine, any number of times (Reply, ReplyDelete, ReplyErr),
// and ends with Finish (or ReplyAndFinish, which sends the last reply and
// the end together); a query is finished anyway when its timeout passes,
// when its queryable is undeclared and when the session closes, so a
// querier never waits for an answer that cannot come. NewServer and
// NewClient wrap queries as an afor.Server and an afor.Client. As with
// samples, a peer forwards queries (and relays the replies) between its
// clients and its other links, never from one peer to another.
//
// # Liveliness
//
// DeclareToken declares a liveliness token, seen by the other nodes until
// it is undeclared, its session closes or its link dies.
// DeclareLivelinessSubscriber (optionally WithHistory) and
// SubscribeLiveliness report tokens appearing (KindPut) and disappearing
// (KindDelete); LivelinessGet lists the tokens alive now.
//
// # Reconnection
//
// A session redials its Connect endpoints while it lives (backing off up to
// 8 RetryIntervals while one stays unreachable) and re-declares its
// subscribers, queryables and tokens on every new link; WaitConnected waits
// for a link and Links lists them. An endpoint Open could not link is
// logged as a warning (through Config.Logger, or slog.Default); with
// Config.ConnectExitOnFailure, Open fails instead (ErrConnectFailed), after
// trying for Config.ConnectTimeout.
//
// # Errors and cancellation
//
// Key expressions given to this package must be canonical ("a/**", not
// "a/**/**"), as in transport/mem; errors match ErrInvalidKeyExpr and name
// the canonical form. Every call on a closed session fails with an error
// matching ErrSessionClosed. Every call that takes a ctx that has already
// ended returns ctx's error and does nothing (a Put sends nothing, a
// WaitMatching does not look), as in package afor.
//
// # Remote nodes that misbehave
//
// Config.Limits bounds what other nodes can make a session hold, per link
// and for the whole session: links and handshakes, leases, key expression
// aliases (MaxAliasBytes, MaxSessionAliasBytes), declarations
// (MaxDeclarations) and those relayed for other links
// (MaxRelayedDeclarations), what is queued for nodes that do not read
// (MaxQueuedBytes, MaxSessionQueuedBytes), queries in progress (MaxPendingQueries and the like, a
// forwarded query's timeout clamped to MaxQueryTimeout), and fragmented
// messages (Config.MaxLinkReassembly and MaxSessionReassembly, which count
// the buffers links keep between messages too, and ReassemblyTimeout for
// incomplete ones). Where a budget is shared, the link holding the most
// pays when it runs out: it loses its link (aliases, queued bytes), its
// oldest query (queries), or a slot of its relayed declarations, rather
// than a newcomer holding little. Every limit hit is counted in Session.Stats under the
// limit's name and logged as a warning naming the remote and the limit.
//
// Admission is by behaviour, not by address alone: every node of a robot
// connects from 127.0.0.1, so a limit per source address must not let one
// misbehaving local process keep the others out. A handshake counts
// against MaxHandshakes(PerIP) only once it has stalled (lasted a second):
// real nodes finish in milliseconds, so slow or silent connections cannot
// hold the slots a newcomer needs. At MaxLinks(PerIP), an accepted link
// that has sent nothing but keep-alives for a second is closed to make room
// for a newcomer that finished its handshake (Stats.LinksEvicted); links
// that publish, declare or query never are. A local process that keeps as
// many links active as the limit allows still keeps newcomers out: no
// address-based rule can tell it from the robot's own nodes.
//
// # Scouting
//
// With Config.Scouting.Multicast set (off by default, so that sessions never
// find each other by accident), a session discovers other nodes by UDP
// multicast, on 224.0.0.224:7446 unless ScoutingConfig says otherwise: a
// peer answers SCOUT messages with a HELLO giving its Zenoh ID and
// locators (listening on an ephemeral port if it has no Listen endpoint)
// and links once to each router and peer that answers its own SCOUTs; a
// client without Connect endpoints links to the first router or peer
// found. Scout lists the nodes that answer, as zenoh.scout does in Python.
//
// # Gossip
//
// In peer mode a session gossips, as Rust Zenoh peers do by default (see
// GossipConfig): it sends the routers and peers it links to a link-state
// message giving its Zenoh ID and locators, and links to the peers and
// routers that the link states it receives tell of. So two peers that
// connect only to a router (rmw_zenoh's setup) learn each other's
// locators from the router and link directly, and their data no longer
// goes through it. Of two peers, the one with the greater ZID dials, the
// rule scouting follows too; with AutoconnectGreaterZID (rmw_zenoh's
// choice) the other one never does.
//
// # Quality of service
//
// A publication may set its congestion control (WithCongestionControl:
// CongestionDrop by default, which drops a sample for a link whose
// transmit queue stays full for DropWait, counted by Publisher.Dropped; or
// CongestionBlock, which waits within the Put's ctx), its priority
// (WithPriority) and express (WithExpress: written at once rather than
// batched). They travel in the QoS extension of the PUSH, as Rust Zenoh
// sends them; queries and replies carry priority Data with congestion
// Block, Rust Zenoh's defaults, and wait for room as Block does. A link
// has a single lane: priorities are carried, not used to reorder.
//
// Not implemented yet: QoS lanes (per-priority queues negotiated at
// INIT), UDP, TLS, IPv6 scouting, gossip multihop.
package zenoh
