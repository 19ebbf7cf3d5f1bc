// Package cdr encodes and decodes ROS 2 messages in the Common Data
// Representation used on the wire by every ROS 2 middleware: plain CDR
// (XCDR1, FINAL extensibility) behind a 4-byte encapsulation header.
//
// # Wire format
//
//   - A payload starts with the encapsulation header: 00 01 00 00 for
//     little-endian (CDR_LE, what ROS 2 emits) or 00 00 00 00 for big-endian
//     (CDR_BE). The options bytes (2..3) are ignored on decode, and trailing
//     bytes after the last member are tolerated (Cyclone DDS pads payloads
//     to a multiple of 4 and records the pad count there).
//   - Alignment is counted from the first byte after the header. Every
//     primitive is aligned to its own size (1, 2, 4 or 8; 64-bit types align
//     to 8 in XCDR1). Padding bytes are written as zero and skipped on read.
//   - A string is a uint32 length that includes the terminating NUL, the
//     bytes, then the NUL. The empty string is 01 00 00 00 00. A length of 0
//     is accepted on decode as the empty string, as Fast-CDR does.
//   - A wstring is a uint32 count of UTF-16 code units (no terminator)
//     followed by the units, each widened to 4 bytes (a Linux wchar_t). Both
//     default ROS 2 middlewares do this: the Fast-CDR based typesupports of
//     rmw_fastrtps_cpp and rmw_zenoh_cpp (checked against rclpy's
//     serialize_message) and rmw_cyclonedds_cpp's own serializer in its
//     default "legacy CDR" mode. Peers built where wchar_t has 2 bytes
//     (Windows) write 2-byte units instead, which Options.WString16 selects.
//   - A fixed array T[N] is N elements with no count; a sequence T[] or T[<=N]
//     is a uint32 element count followed by the elements. A bound is never on
//     the wire: it is only checked (ErrBoundExceeded) on encode and decode.
//   - Nested structures are inlined member by member, with no header of
//     their own.
//
// # Encoding and decoding
//
// An Encoder appends to a caller-owned []byte, so a buffer can be reused
// from one message to the next without allocating. A Decoder reads from a
// []byte; it checks every length read off the wire against the bytes that
// remain (times a lower bound on the encoded size of one element) before it
// allocates, so a hostile length can never make it allocate more than a
// constant multiple of the input size: under 8 times per level of sequence
// nesting of the decoded type (a Go slice header is 24 bytes, the smallest
// encoded sequence 4). Both carry a sticky error, like
// bufio.Scanner: once an operation fails the following ones do nothing and
// Err reports the first failure. Nothing in this package panics on bad
// input.
//
// Generated message types (see cmd/afor-rosgen) implement Message with
// straight-line calls to the Encoder and Decoder, with no reflection;
// Codec adapts any of them to the byte transports of package afor.
package cdr
