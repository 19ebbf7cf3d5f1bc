// Package wire encodes and decodes the Zenoh 1.x wire protocol (protocol
// version 0x09): primitives (zint, byte strings, Zenoh IDs, timestamps,
// encodings, wire expressions), message extensions, transport messages
// (INIT, OPEN, KEEP_ALIVE, CLOSE, FRAME, FRAGMENT), network messages
// (DECLARE, PUSH, REQUEST, RESPONSE, RESPONSE_FINAL, INTEREST), Zenoh data
// messages (PUT, DEL, QUERY, REPLY, ERR), scouting messages (SCOUT,
// HELLO; see DecodeScouting) and the gossip link-state lists carried by
// network OAM messages (see DecodeLinkStates).
//
// # Encoding
//
// Every message type implements encoding.BinaryAppender: AppendBinary
// appends the message to a buffer and returns the extended buffer, or an
// error when a field cannot be represented (for example a Zenoh ID longer
// than 16 bytes); after an error the returned buffer holds an unspecified
// partial encoding and should be truncated. Optional fields that hold their protocol default are not
// written, as the reference implementation does.
//
// # Decoding
//
// DecodeTransport, DecodeNetwork and DecodeZenoh decode one message from
// the front of a buffer and report how many bytes they consumed. A Decoder
// walks a whole batch without allocating: the messages it returns point
// into storage that the Decoder reuses on the next call.
//
// Decoded byte slices (payloads, key suffixes, cookies, attachments,
// extension bodies) alias the input buffer; the caller must copy them
// before reusing that buffer. Decoders never panic on malformed input: they
// return an error that wraps one of the sentinel errors of this package,
// and every length read off the wire is checked against the remaining
// input and against Limits before it is used.
//
// # Framing
//
// On stream links (TCP) every batch is preceded by its length as a 2-byte
// little-endian integer; see BatchLen, AppendBatchLen and PutBatchLen.
package wire
