package zenoh

// Glue between the session's state and the messages of internal/wire: the
// session builds wire messages from its keys and entities, and reads the
// data of received ones. Every byte on a link is encoded and decoded by
// internal/wire.

import (
	"github.com/afor-go/afor/transport/zenoh/internal/wire"
)

// subsInterestID is the id of the interest in subscribers that a client
// sends its router (and a peer a router it links to).
const subsInterestID = 1

// dataMsg is the data of a PUT or DEL handed to subscribers and to the
// PUSH encoder. Its slices alias the received batch (or the publisher's
// arguments) and are only valid during the call that receives it.
type dataMsg struct {
	del        bool
	payload    []byte
	encID      uint16
	schema     []byte
	hasTS      bool
	ts         Timestamp
	attachment []byte
	// qos is sent in the PUSH's QoS extension; the zero value, like
	// QoSDefault, sends none (the receiver assumes QoSDefault). Samples
	// never take priority Control, which would encode as 0.
	qos wire.QoS
	// loan is set when payload lives in a reassembled message's buffer
	// that a subscriber may keep (see take, in large.go).
	loan *payloadLoan
}

// dataFromWire reads the data of a received PUT or DEL into d, field by
// field (cheaper on the receive path than copying a whole struct). It
// reports false for any other body.
func dataFromWire(body wire.ZenohMessage, d *dataMsg) bool {
	var ts *wire.Timestamp
	switch b := body.(type) {
	case *wire.Put:
		d.del, d.payload, d.encID, d.schema, d.attachment = false, b.Payload, b.Encoding.ID, b.Encoding.Schema, b.Attachment
		d.hasTS, ts = b.HasTimestamp, &b.Timestamp
	case *wire.Del:
		d.del, d.payload, d.encID, d.schema, d.attachment = true, nil, 0, nil, b.Attachment
		d.hasTS, ts = b.HasTimestamp, &b.Timestamp
	default:
		return false
	}
	if d.hasTS {
		d.ts = fromWireTimestamp(ts)
	} else {
		d.ts = Timestamp{}
	}
	return true
}

// pushEncoder encodes PUSH messages carrying the whole key as suffix. It
// reuses its message structs and key buffer, so encoding allocates nothing
// in the steady state. It is not safe for concurrent use.
type pushEncoder struct {
	push wire.Push
	put  wire.Put
	del  wire.Del
	key  []byte
	// zid stands in for the node ID of a timestamp that has none (the
	// protocol requires one).
	zid []byte
}

// append appends PUSH{PUT|DEL} of d on key to dst.
func (e *pushEncoder) append(dst []byte, key string, d *dataMsg) ([]byte, error) {
	e.key = append(e.key[:0], key...)
	e.push = wire.Push{WireExpr: wire.WireExpr{Suffix: e.key}}
	if d.qos != 0 && d.qos != wire.QoSDefault {
		e.push.HasQoS, e.push.QoS = true, d.qos
	}
	if d.del {
		e.del = wire.Del{Attachment: d.attachment}
		if d.hasTS {
			e.del.HasTimestamp, e.del.Timestamp = true, wireTimestamp(d.ts, e.zid)
		}
		e.push.Body = &e.del
	} else {
		e.put = wire.Put{Encoding: wire.Encoding{ID: d.encID}, Attachment: d.attachment, Payload: d.payload}
		if len(d.schema) > 0 {
			e.put.Encoding.Schema = d.schema[:min(len(d.schema), wire.MaxEncodingSchema)]
		}
		if d.hasTS {
			e.put.HasTimestamp, e.put.Timestamp = true, wireTimestamp(d.ts, e.zid)
		}
		e.push.Body = &e.put
	}
	return e.push.AppendBinary(dst)
}

// appendDeclare appends DECLARE [I] of body, truncating dst back on an
// encoding error (none is possible for the declarations the session
// builds from valid keys).
func appendDeclare(b []byte, interest *uint32, body wire.Declaration) []byte {
	d := wire.Declare{Body: body}
	if interest != nil {
		d.HasInterestID, d.InterestID = true, *interest
	}
	out, err := d.AppendBinary(b)
	if err != nil {
		return b
	}
	return out
}

// appendDeclareSubscriber encodes DECLARE [I] D_SUBSCRIBER with a full key.
func appendDeclareSubscriber(b []byte, interest *uint32, id uint32, key string) []byte {
	return appendDeclare(b, interest, &wire.DeclareSubscriber{ID: id, WireExpr: wire.WireExpr{Suffix: []byte(key)}})
}

// appendUndeclareSubscriber encodes DECLARE U_SUBSCRIBER.
func appendUndeclareSubscriber(b []byte, id uint32) []byte {
	return appendDeclare(b, nil, &wire.UndeclareSubscriber{ID: id})
}

// appendDeclareFinal encodes DECLARE{I=interest} D_FINAL.
func appendDeclareFinal(b []byte, interest uint32) []byte {
	return appendDeclare(b, &interest, &wire.DeclareFinal{})
}

// appendInterest encodes an unrestricted INTEREST.
func appendInterest(b []byte, id uint32, mode wire.InterestMode, options wire.InterestOptions) []byte {
	out, err := (&wire.Interest{ID: id, Mode: mode, Options: options}).AppendBinary(b)
	if err != nil {
		return b
	}
	return out
}

// appendBatch appends m as a stream batch: its length prefix, then m. It
// is meant for the small control messages (INIT, OPEN, KEEP_ALIVE, CLOSE)
// that always fit a batch.
func appendBatch(b []byte, m wire.TransportMessage) ([]byte, error) {
	start := len(b)
	b = append(b, 0, 0)
	b, err := m.AppendBinary(b)
	if err != nil {
		return b[:start], err
	}
	if err := wire.PutBatchLen(b[start:], len(b)-start-wire.BatchLenSize); err != nil {
		return b[:start], err
	}
	return b, nil
}

// appendClose encodes a CLOSE batch with its length prefix.
func appendClose(b []byte, reason byte, session bool) []byte {
	b, _ = appendBatch(b, &wire.Close{Session: session, Reason: reason})
	return b
}
