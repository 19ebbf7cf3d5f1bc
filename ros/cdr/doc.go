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
// # Aliasing and ownership
//
// By default decoding copies: the decoded message shares no memory with
// the input, and the caller may reuse or overwrite the input as soon as
// UnmarshalCDR returns. A camera image or a point cloud then costs, per
// message, one more allocation and copy of every byte than it needs to.
//
// A Decoder made with Options.Alias (UnmarshalAlias for a whole message,
// AliasCodec for a byte transport) does not copy numeric sequences whose bytes can be used as they are: the
// decoded slice is a view of the input. That is always the case for byte
// sequences (uint8[], int8[], byte[], char[]: Image.Data,
// PointCloud2.Data, CompressedImage.Data), and for wider numbers (float32[],
// float64[], int32[]...) when the payload's byte order is the host's (CDR_LE
// on every common CPU) and the first element's address in memory is a
// multiple of its alignment; a sequence that fails either test is copied,
// as it would be without the option, so the result is always correct. Strings,
// bools, fixed arrays T[N] and sequences of structures are always copied.
// An aliased slice's capacity is its length, so append reallocates instead
// of writing over the input that follows it.
//
// The rule that goes with it:
//
//   - Decode with Alias only from a buffer that nobody will write again: one
//     the caller owns and hands over to the message for good. Never from a
//     buffer that is reused (a pooled receive buffer, a publisher's encode
//     buffer, a bufio window): decode that with copying, which is the
//     default.
//   - After an aliasing decode the message and the input share memory for
//     as long as either lives: a write through one shows in the other. Treat
//     both as read-only, or keep exactly one of them. To modify a message
//     that may alias, clone the slice first (slices.Clone).
//   - The garbage collector keeps the whole input alive while any aliased
//     slice is reachable: a small sequence kept from a large payload pins
//     the payload. Clone what you keep long if that matters.
//   - With Alias, the slices already in the receiver are not reused for
//     aliased sequences (they are replaced), since the result lives in the
//     input. Without it they are, when large enough: a copying decode into
//     a message that holds views of an earlier input writes into that
//     input. Decode into a zero message when the earlier input is shared.
//
// Package ros follows this rule: a subscription decodes with Alias when its
// middleware hands it a payload buffer that no one reuses, so a received
// Image's Data is the received bytes themselves.
//
// Generated message types (see cmd/afor-rosgen) implement Message with
// straight-line calls to the Encoder and Decoder, with no reflection;
// Codec adapts any of them to the byte transports of package afor.
package cdr
