package zenoh

import (
	"encoding/hex"
	"strconv"
	"strings"
	"time"
)

// SampleKind tells a put from a delete.
type SampleKind uint8

const (
	// KindPut is a sample carrying a value.
	KindPut SampleKind = iota
	// KindDelete is a sample announcing the key's deletion.
	KindDelete
)

// String returns "PUT" or "DELETE".
func (k SampleKind) String() string {
	if k == KindDelete {
		return "DELETE"
	}
	return "PUT"
}

// Sample is one publication received by a subscriber. Its slices are the
// handler's own: the session never reuses them nor gives them to another
// subscriber, so a handler may keep and modify them. The Payload of a
// fragmented (large) sample is the buffer it was reassembled in, not a
// copy (see the package documentation, Large payloads).
type Sample struct {
	KeyExpr    string
	Payload    []byte
	Kind       SampleKind
	Encoding   Encoding
	Timestamp  Timestamp
	Attachment []byte
}

// Encoding names a payload's format as Zenoh writes it: "text/plain", or
// with a schema "text/plain;utf-8". The empty Encoding is zenoh/bytes.
// Names outside Zenoh's predefined table travel as custom encodings.
type Encoding string

// Predefined encodings (Zenoh 1.x ids 0 to 13).
const (
	EncodingZenohBytes      Encoding = "zenoh/bytes"
	EncodingZenohString     Encoding = "zenoh/string"
	EncodingZenohSerialized Encoding = "zenoh/serialized"
	EncodingOctetStream     Encoding = "application/octet-stream"
	EncodingTextPlain       Encoding = "text/plain"
	EncodingJSON            Encoding = "application/json"
	EncodingTextJSON        Encoding = "text/json"
	EncodingCDR             Encoding = "application/cdr"
	EncodingCBOR            Encoding = "application/cbor"
	EncodingYAML            Encoding = "application/yaml"
	EncodingTextYAML        Encoding = "text/yaml"
	EncodingJSON5           Encoding = "text/json5"
	EncodingPythonObject    Encoding = "application/python-serialized-object"
	EncodingProtobuf        Encoding = "application/protobuf"
)

// customEncodingID carries an encoding unknown to the table as its schema.
const customEncodingID = 0xffff

// encodingName returns the name of a predefined id, or "".
func encodingName(id uint16) Encoding {
	switch id {
	case 0:
		return EncodingZenohBytes
	case 1:
		return EncodingZenohString
	case 2:
		return EncodingZenohSerialized
	case 3:
		return EncodingOctetStream
	case 4:
		return EncodingTextPlain
	case 5:
		return EncodingJSON
	case 6:
		return EncodingTextJSON
	case 7:
		return EncodingCDR
	case 8:
		return EncodingCBOR
	case 9:
		return EncodingYAML
	case 10:
		return EncodingTextYAML
	case 11:
		return EncodingJSON5
	case 12:
		return EncodingPythonObject
	case 13:
		return EncodingProtobuf
	}
	return ""
}

// wire returns the id and schema that carry e.
func (e Encoding) wire() (id uint16, schema string) {
	if e == "" {
		return 0, ""
	}
	name, schema, _ := strings.Cut(string(e), ";")
	for id := uint16(0); id <= 13; id++ {
		if string(encodingName(id)) == name {
			return id, schema
		}
	}
	return customEncodingID, string(e)
}

// encodingFromWire names a received id and schema. Unknown ids become
// "zenoh/unknown-<id>".
func encodingFromWire(id uint16, schema []byte) Encoding {
	if id == customEncodingID {
		return Encoding(schema)
	}
	name := encodingName(id)
	if name == "" {
		name = Encoding("zenoh/unknown-" + strconv.Itoa(int(id)))
	}
	if len(schema) > 0 {
		return name + ";" + Encoding(schema)
	}
	return name
}

// Timestamp is a hybrid logical clock reading attached to a sample: a
// 64-bit NTP time and the ID of the node that made it. The zero value means
// no timestamp.
type Timestamp struct {
	// NTP64 is seconds since the Unix epoch in the high 32 bits and a
	// binary fraction of a second in the low 32 bits (Zenoh's HLC format).
	NTP64 uint64
	id    [16]byte
	idLen uint8
}

// NewTimestamp makes a timestamp from a time and a node ID (at most 16
// bytes; longer IDs are truncated).
func NewTimestamp(t time.Time, id []byte) Timestamp {
	var ts Timestamp
	secs := uint64(t.Unix())
	frac := uint64(t.Nanosecond()) << 32 / 1e9
	ts.NTP64 = secs<<32 | frac
	ts.idLen = uint8(copy(ts.id[:], id))
	return ts
}

// IsZero reports whether the sample had no timestamp.
func (t Timestamp) IsZero() bool { return t.NTP64 == 0 && t.idLen == 0 }

// ID returns the ID of the node that stamped the sample.
func (t *Timestamp) ID() []byte { return t.id[:t.idLen] }

// Time converts the NTP64 time to a time.Time.
func (t Timestamp) Time() time.Time {
	secs := int64(t.NTP64 >> 32)
	nanos := int64((t.NTP64 & 0xffffffff) * 1e9 >> 32)
	return time.Unix(secs, nanos)
}

// String renders the timestamp as "<RFC 3339 time>/<id>", the ID in hex
// with its most significant byte first, as Zenoh prints it.
func (t Timestamp) String() string {
	id := make([]byte, t.idLen)
	for i := range id {
		id[i] = t.id[int(t.idLen)-1-i]
	}
	return t.Time().UTC().Format(time.RFC3339Nano) + "/" + hex.EncodeToString(id)
}
