// Package rtps encodes and decodes the DDSI-RTPS 2.x wire protocol for the
// pure-Go DDS transport: the message header and the DATA, DATA_FRAG,
// HEARTBEAT, HEARTBEAT_FRAG, ACKNACK, NACK_FRAG, GAP, INFO_TS, INFO_DST,
// INFO_SRC, INFO_REPLY(_IP4) and PAD submessages, ParameterLists, the SPDP
// and SEDP discovery bodies, inline QoS (disposals, related sample
// identity) and the QoS compatibility rules. It is pure functions and
// types: no sockets, no goroutines.
//
// # Decoding
//
// A Receiver walks one datagram with Parse, keeping the receiver state
// (source, destination, timestamp, reply locators) in a Context and calling
// a Handler for each entity submessage. Both byte orders are read; PAD,
// vendor-specific (0x80-0xff) and unknown submessages are skipped; the
// submessages that follow an INFO_DST naming another participant than
// Receiver.Self are skipped until the next INFO_DST. Everything handed to
// the Handler aliases the datagram and the Receiver (zero copy, zero
// allocations): copy what you keep. A malformed submessage stops the walk
// with an error wrapping ErrMalformed; what was delivered before stays
// delivered. The package-level Parse uses a fresh Receiver with a zero
// Self, which accepts every destination.
//
// ParsePL walks a ParameterList; ParseParticipantData, ParseEndpointData,
// ParseInlineQoS and ParseDisposal decode discovery bodies and inline QoS.
// Vendor-specific parameters (PID bit 0x8000) are read only from the
// vendors that defined them (today only eProsima's 0x800f related sample
// identity, from eProsima and RTI senders); all others are ignored, even
// with the must-understand bit, since they belong to the sender's vendor
// space, not ours. A standard parameter this package does not know with the
// must-understand bit (0x4000) fails the parse with ErrIncompatible, so the
// caller ignores that entity. Lists are bounded by MaxLocators, MaxProperties,
// MaxPartitions and MaxDataRepresentations (ErrLimit beyond), so no
// allocation is sized by a count read off the wire.
//
// # Encoding
//
// A Builder appends a little-endian message to a reusable buffer: Reset
// with the header, then InfoDst, InfoTS, Data (or DataWith, which writes
// inline QoS straight into the message through a PLWriter), DataFrag,
// Heartbeat, AckNack, NackFrag, HeartbeatFrag and Gap. Each submessage is
// zero-padded to a multiple of 4 bytes, the padding counted in its length,
// so a payload whose length is not a multiple of 4 arrives with up to 3
// trailing zero bytes (CDR ignores them). ParticipantData.Append and
// EndpointData.Append write SPDP and SEDP bodies (PL_CDR_LE).
//
// # Time and durations
//
// Duration.Duration maps DURATION_INFINITE (seconds 0x7fffffff) to
// Infinite (math.MaxInt64) and DurationFrom maps Infinite back; the
// time.Duration fields of QoS and ParticipantData use the same convention.
//
// # Not implemented
//
// XTypes TYPE_INFORMATION and TypeLookup (the parameters are skipped), the
// security submessages (skipped as unknown), keyed user topics beyond the
// key hash, and locators other than UDPv4 in AddrPort (others are parsed
// and kept).
//
// # API changes
//
// None so far.
package rtps
