// Package dds is a pure-Go DDS implementation: a domain participant that
// speaks DDSI-RTPS 2.x over UDPv4 (unicast and multicast) and interoperates
// with Fast DDS (rclpy on rmw_fastrtps_cpp) and Cyclone DDS (the C library
// and its Python binding), tested against all three.
//
// # Participants
//
// NewParticipant joins a domain (0 to 232; ROS_DOMAIN_ID when Config
// leaves it zero, unless Config.ExactDomain) on the first participant index whose unicast ports are
// free, with the ports of the RTPS specification (7400 + 250·domain, the
// vendors' defaults), so that several participants share a host and find
// Fast DDS and Cyclone participants without configuration. Discovery
// follows the ROS 2 settings as Fast DDS applies them in Kilted:
// ROS_AUTOMATIC_DISCOVERY_RANGE SUBNET (the default) announces by
// multicast to 239.255.0.1, on every multicast-capable interface,
// LOCALHOST by unicast to the first 32 index ports of 127.0.0.1, OFF not
// at all (and ignores every other participant); ROS_STATIC_PEERS adds
// unicast peers in SUBNET and LOCALHOST ("host" probes the first four
// index ports, 32 in LOCALHOST, "host:port" one port). Every one of these
// has a Config field that overrides the environment. In every range a
// participant announces the addresses of the host's interfaces (127.0.0.1
// when it has no other), and follows them: an address that changes, an
// interface that goes down or comes up, is announced at once, and a
// remote participant that moves is followed without unmatching anything.
// A remote endpoint is sent to at its addresses in a subnet of this host's
// interfaces when it has any. A
// participant announces itself (SPDP: five times in the first half second,
// then every three seconds), renews a remote participant's lease on any
// message from it, and drops that participant with all its endpoints when
// the lease runs out or it says goodbye; Close says goodbye.
//
// WatchDiscovery reports what discovery learns as events, after a replay
// of what is known: participants found and lost, and every writer and
// reader found (topic, type, announced QoS, whether HISTORY was
// announced, USER_DATA, vendor) or lost, remote or the participant's own.
//
// # Writers and readers
//
// A Topic is a name and a type name; NewWriter and NewReader create
// endpoints with a QoS (RELIABLE or BEST_EFFORT, VOLATILE or
// TRANSIENT_LOCAL, KEEP_LAST(depth) or KEEP_ALL, deadline, lifespan,
// liveliness, USER_DATA, partitions), announced through SEDP. Endpoints of
// the same topic match when their type names and QoS are compatible; an
// incompatible pair is not matched, and is counted on both local endpoints
// (Status, IncompatibleQoS, WaitStatus) and logged at warning level with
// the policy at fault. WaitMatched waits for matches.
//
// Payloads are serialized samples, encapsulation header included (for ROS
// 2 messages, CDR as package ros/cdr writes it). A reader's samples feed an
// afor.Sub[Sample] (Reader.Sub, Subscribe), or a callback (NewReaderFunc,
// or NewReaderLoan, whose callback borrows each payload and so costs no
// allocation or copy per sample);
// SubscribeCodec decodes them into an afor.Sub[T] and NewTypedWriter
// encodes values through the same afor.Codec. Samples arrive in order per
// writer.
//
// For request and reply (DDS-RPC, ROS 2 services over Fast DDS),
// Writer.WriteRelated sends a sample with an inline
// RELATED_SAMPLE_IDENTITY (the standard parameter and eProsima's twin) and
// returns the sample's own identity; a received sample's Related holds the
// one it carried. Writer.MatchedReader and WaitMatchedReader tell whether
// one given reader is matched.
//
// A reliable writer keeps its history for resends: it pushes each sample
// at once, follows it with a HEARTBEAT (which asks the reader for an
// acknowledgment only when it matters: once half a KEEP_ALL history is
// unacknowledged, and at most every 10 ms for KEEP_LAST, so that a ping
// and its answer are one datagram each way, as with Cyclone), resends
// what readers NACK (packed many to a datagram, a sample not twice to one
// reader within 10 ms, and holding new samples back from a reader until
// its repair is over: it asks for them in order), sends a GAP for what
// its history no longer holds, and repeats HEARTBEATs every 100 ms while
// a reader has not acknowledged everything. A KEEP_ALL writer
// holds at most QoS.MaxSamples unacknowledged samples and blocks up to
// QoS.MaxBlocking for room (ErrTimeout after), so a slow or dead reader
// never grows it beyond that; a KEEP_LAST writer drops its oldest sample.
// A TRANSIENT_LOCAL writer sends its history to TRANSIENT_LOCAL readers
// that join late. A reliable reader asks for missing samples, delivers in
// sequence order, accepts data that arrives before the first HEARTBEAT,
// and writes off what the writer no longer has. Samples over 64000 bytes
// travel as DATA_FRAG, one fragment per datagram; fragments are reassembled
// by offset into the buffer that becomes the payload, missing ones are
// requested with NACK_FRAG, and reassembly is bounded in size
// (Config.MaxSampleSize, four times that in total) and time (10 s).
//
// Payload ownership: a writer copies the payload it is given into its
// history (for resends), so the caller may reuse its buffer as soon as
// Write returns. A received sample's payload is handed over to the reader's
// consumer: a DATA's bytes are copied once out of the receive datagram
// (whose buffer is reused), a fragmented sample's are the reassembly buffer
// itself, with no further copy, and the participant never writes or reuses
// either after delivery. A consumer may therefore keep a payload, and
// decode messages that alias it instead of copying their large sequences
// (package ros does, with ros/cdr's Options.Alias). A Reader.Sub's samples
// are shared by the sub's consumers: treat them as read-only.
//
// A sample written while its writer is idle goes out at once; samples
// written while a send is in progress are packed, per reader, into one
// datagram (INFO_DST, then INFO_TS and DATA per sample, one HEARTBEAT, at
// most 14,720 bytes) that a per-participant flusher sends, as Cyclone
// batches. Samples with inline QoS, fragmented samples and the builtin
// endpoints' samples always go alone.
//
// A writer and a reader of the same participant (two nodes of one ROS 2
// context, say) do not use a socket: the writer hands its samples to the
// reader in memory, with what a remote delivery gives (writer GUID,
// sequence number, source timestamp, related sample identity, a payload
// copy the reader owns, of any size, never fragmented), while its remote
// readers of the same writer get the same samples over UDP as before.
// Matching and discovery do not change (a local pair is matched, counted
// and announced like any other), but no RTPS message passes between the
// two: the local reader is treated as acknowledging every sample as soon
// as it is queued for it, and a TRANSIENT_LOCAL writer
// hands its history (what its lifespan has not expired) to a
// TRANSIENT_LOCAL local reader that joins late. Participant.Stats counts
// these samples as Local, not as datagrams. The writing goroutine delivers
// them itself, once its writer's lock is released, unless another
// goroutine is delivering already, which then delivers them as well in
// order: a reader callback that writes to another local reader only
// queues the sample, so that callbacks answering each other loop, one
// sample after the other, in one goroutine, rather than recurse. A
// participant runs its user callbacks one at a time, those of samples
// from sockets and those of local samples alike. What is queued for a
// local reader whose callbacks are slower than the writers is bounded by
// the writer's history limit or 4 MiB, whichever holds more: past that a
// KEEP_LAST writer drops the oldest queued sample (Stats.LocalDropped) and
// a reliable KEEP_ALL writer waits up to QoS.MaxBlocking, as for a remote
// reader that does not acknowledge.
//
// Each socket has one receive goroutine that parses datagrams in place and
// hands submessages to the endpoints (on Linux with raw, non-blocking
// system calls that do not wake the runtime's sysmon thread); one more
// goroutine per participant runs the timers, and sleeps until the next
// thing due (at most a second when idle) rather than ticking. Reader
// callbacks run in the user socket's goroutine, and may write: the user
// writers announce a unicast locator of their own (a socket on
// Config.AckPort, by default a port the system picks) where remote
// readers send their ACKNACKs, so that a
// callback's Write waiting for room in a full KEEP_ALL history gets the
// acknowledgments that free it instead of failing after QoS.MaxBlocking.
// Malformed datagrams are dropped and counted
// (Participant.Stats); nothing read off the wire sizes an allocation beyond
// the configured limits.
//
// # Misbehaving peers
//
// Everything a remote participant can make a participant hold or do is
// bounded by Config.Limits (see Limits for the defaults): remote
// participants in total, per source socket and per remote host; endpoints
// per participant and in total; discovery bytes per participant and in
// total; the announced lease (clamped to Limits.MaxLease); samples held
// out of order per writer and in total; reassembly bytes per writer and
// in total, allocated as fragments arrive rather than at the announced
// sample size. A participant over a limit is dropped with its endpoints
// and ignored for Limits.IgnoreFor (a source socket over its limit too);
// the hit is counted (Stats.ByLimit, ParticipantsRefused,
// ParticipantsDropped) and logged at warning level, at most once a second
// per limit. The per-source limit is per socket, not per address: all the
// local nodes of a robot come from 127.0.0.1, and one bad process must not
// lock the others out.
//
// What the participant sends is bounded by what the remote does: periodic
// HEARTBEATs to a reader back off (from 100 ms, doubling up to 30 s) while
// it does not answer, and so do pre-emptive ACKNACKs (from 1 s); periodic
// SPDP goes by unicast only to participants that sent something else than
// SPDP, the others get at most one answer per announcement period to
// their own announcements; resends requested by NACKs are paid from a
// per-reader credit (1024 datagrams to start, one more per sample the
// reader acknowledges and 64 a second, 8192 at most); a NACK for a
// sample the reader acknowledged is ignored. New samples for the
// best-effort readers of one remote participant that share locators go
// once, to ENTITYID_UNKNOWN, as Cyclone DDS and Fast DDS address readers
// on one locator: a participant announcing a thousand readers costs one
// datagram per sample.
//
// HEARTBEAT, ACKNACK and NACK_FRAG counts compare in serial number
// arithmetic, and any count is accepted 500 ms after the last accepted
// one (as Cyclone DDS does), so a spoofed count far ahead silences a
// writer for no longer. A GAP writes off only sequence numbers up to the
// highest its writer announced, and a HEARTBEAT or sample more than 2^24
// beyond that is ignored. RTPS has no authentication without DDS
// Security, which this package does not implement: anyone who can send to
// the participant's ports can spoof a known GUID, and a spoofed HEARTBEAT
// (first sequence number within those 2^24) or GAP (up to what the writer
// announced) still makes a reader skip samples, a spoofed ACKNACK
// acknowledges samples for a reader, and a spoofed SPDP or SEDP disposal
// removes a participant or endpoint. Limits bound the damage of a flood;
// they cannot tell a forged message from a real one.
//
// # Tests
//
// The tests run in a private network namespace with only loopback (package
// internal/netns re-executes the test binary there), so discovery traffic
// never leaves the machine and the reference peers advertise 127.0.0.1.
// To try the package by hand the same way:
//
//	unshare -rn sh -c 'ip link set lo up; ip link set lo multicast on;
//	    ip route add 224.0.0.0/4 dev lo; exec your-program'
//
// # Not implemented yet
//
//   - Keyed topics: instances, keys and dispose/unregister of user samples
//     (ROS 2 uses keyless topics only; SEDP's builtin topics are keyed and
//     handled). Topic.Keyed only announces keyed endpoints, so that they
//     match another vendor's on a keyed topic; samples of all instances
//     form one stream.
//   - XTypes: TYPE_INFORMATION and TypeLookup are neither sent nor used;
//     matching uses type names, as Fast DDS and Cyclone do when one side
//     has no type information.
//   - Deadline, lifespan on the reader side and ownership are announced
//     and checked for compatibility but not enforced (no missed deadline
//     status: package ros times deadlines above the middleware); the
//     writer drops samples whose lifespan ended. MANUAL liveliness is not
//     asserted by the writers (AUTOMATIC is, through WLP; a reader tracks
//     every kind, see MatchStatus.Alive).
//   - Multicast user data: endpoints advertise unicast locators only;
//     multicast is used for SPDP alone.
//   - UDPv6, TCP and shared-memory transports; DDS Security; content
//     filters; the optional SEDP topics endpoints.
//   - Adaptive pacing of large samples: a reader that loses fragments
//     gets them again through NACK_FRAG.
package dds
