package wire

import (
	"math/rand/v2"
	"time"
)

// gen builds random, valid messages whose decoding must equal them. It
// follows the package's conventions: optional byte fields are nil when
// absent, present byte fields are non-nil (possibly empty).
type gen struct{ r *rand.Rand }

func newGen(seed uint64) *gen { return &gen{rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))} }

func (g *gen) bool() bool { return g.r.IntN(2) == 0 }

// u64 returns values of every magnitude, small ones more often.
func (g *gen) u64() uint64 { return g.r.Uint64() >> g.r.UintN(64) }

func (g *gen) u32() uint32 { return uint32(g.u64()) }
func (g *gen) u16() uint16 { return uint16(g.u64()) }

// bytes returns n random bytes, n < max, never nil.
func (g *gen) bytes(max int) []byte {
	b := make([]byte, g.r.IntN(max))
	for i := range b {
		b[i] = byte(g.r.UintN(256))
	}
	return b
}

// nonEmpty returns 1..max bytes.
func (g *gen) nonEmpty(max int) []byte {
	b := g.bytes(max - 1)
	return append(b, 'x')
}

// opt returns nil or some bytes.
func (g *gen) opt(max int) []byte {
	if g.bool() {
		return nil
	}
	return g.bytes(max)
}

func (g *gen) zid() ZenohID {
	z, _ := NewZenohID(g.nonEmpty(MaxZenohIDLen + 1))
	return z
}

func (g *gen) timestamp() Timestamp { return Timestamp{Time: g.r.Uint64(), ID: g.zid()} }

func (g *gen) encoding() Encoding {
	if g.bool() {
		return Encoding{}
	}
	e := Encoding{ID: g.u16()}
	if g.bool() {
		e.Schema = g.bytes(40)
	}
	return e
}

func (g *gen) wireExpr() WireExpr {
	w := WireExpr{Scope: g.u16()}
	if g.bool() {
		w.Suffix = g.nonEmpty(60)
	}
	if g.bool() {
		w.Mapping = MappingSender
	}
	return w
}

// exts returns unknown, non-mandatory extensions (ids 8-14, which no
// message of this package interprets), or nil.
func (g *gen) exts() []Extension {
	if g.r.IntN(3) != 0 {
		return nil
	}
	out := make([]Extension, 1+g.r.IntN(3))
	for i := range out {
		e := Extension{ID: uint8(8 + g.r.IntN(7)), Encoding: ExtEncoding(g.r.IntN(3))}
		switch e.Encoding {
		case ExtZ64:
			e.Value = g.u64()
		case ExtZBuf:
			e.Body = g.bytes(50)
		}
		out[i] = e
	}
	return out
}

func (g *gen) sourceInfo() (bool, SourceInfo) {
	if g.bool() {
		return false, SourceInfo{}
	}
	return true, SourceInfo{ID: g.zid(), EntityID: g.u32(), SN: g.u32()}
}

func (g *gen) netExts() NetworkExts {
	n := NetworkExts{Exts: g.exts()}
	if g.bool() {
		n.HasQoS, n.QoS = true, QoS(g.r.UintN(256))
	}
	if g.bool() {
		n.HasTimestamp, n.Timestamp = true, g.timestamp()
	}
	if g.bool() {
		n.NodeID = g.u16()
	}
	return n
}

func (g *gen) put() *Put {
	m := &Put{Encoding: g.encoding(), Attachment: g.opt(30), Exts: g.exts(), Payload: g.bytes(200)}
	if g.bool() {
		m.HasTimestamp, m.Timestamp = true, g.timestamp()
	}
	m.HasSourceInfo, m.SourceInfo = g.sourceInfo()
	return m
}

func (g *gen) del() *Del {
	m := &Del{Attachment: g.opt(30), Exts: g.exts()}
	if g.bool() {
		m.HasTimestamp, m.Timestamp = true, g.timestamp()
	}
	m.HasSourceInfo, m.SourceInfo = g.sourceInfo()
	return m
}

func (g *gen) pushBody() ZenohMessage {
	if g.bool() {
		return g.put()
	}
	return g.del()
}

func (g *gen) query() *Query {
	m := &Query{Consolidation: Consolidation(g.r.IntN(4)), Attachment: g.opt(30), Exts: g.exts()}
	if g.bool() {
		m.Parameters = g.nonEmpty(40)
	}
	m.HasSourceInfo, m.SourceInfo = g.sourceInfo()
	if g.bool() {
		m.HasBody, m.Body = true, QueryBody{Encoding: g.encoding(), Payload: g.bytes(100)}
	}
	return m
}

func (g *gen) reply() *Reply {
	return &Reply{Consolidation: Consolidation(g.r.IntN(4)), Exts: g.exts(), Body: g.pushBody()}
}

func (g *gen) err() *Err {
	m := &Err{Encoding: g.encoding(), Exts: g.exts(), Payload: g.bytes(100)}
	m.HasSourceInfo, m.SourceInfo = g.sourceInfo()
	return m
}

func (g *gen) zenoh() ZenohMessage {
	switch g.r.IntN(5) {
	case 0:
		return g.put()
	case 1:
		return g.del()
	case 2:
		return g.query()
	case 3:
		return g.reply()
	}
	return g.err()
}

func (g *gen) declaration() Declaration {
	switch g.r.IntN(9) {
	case 0:
		we := g.wireExpr()
		we.Mapping = MappingReceiver // not carried by D_KEYEXPR
		return &DeclareKeyExpr{ID: g.u16(), WireExpr: we}
	case 1:
		return &UndeclareKeyExpr{ID: g.u16()}
	case 2:
		return &DeclareSubscriber{ID: g.u32(), WireExpr: g.wireExpr(), Exts: g.exts()}
	case 3:
		m := &UndeclareSubscriber{ID: g.u32()}
		if g.bool() {
			m.HasWireExpr, m.WireExpr = true, g.wireExpr()
		}
		return m
	case 4:
		return &DeclareQueryable{ID: g.u32(), WireExpr: g.wireExpr(), Complete: g.bool(),
			Distance: g.u16(), Exts: g.exts()}
	case 5:
		m := &UndeclareQueryable{ID: g.u32()}
		if g.bool() {
			m.HasWireExpr, m.WireExpr = true, g.wireExpr()
		}
		return m
	case 6:
		return &DeclareToken{ID: g.u32(), WireExpr: g.wireExpr(), Exts: g.exts()}
	case 7:
		m := &UndeclareToken{ID: g.u32()}
		if g.bool() {
			m.HasWireExpr, m.WireExpr = true, g.wireExpr()
		}
		return m
	}
	return &DeclareFinal{Exts: g.exts()}
}

func (g *gen) network() NetworkMessage {
	switch g.r.IntN(7) {
	case 0:
		return &Push{WireExpr: g.wireExpr(), NetworkExts: g.netExts(), Body: g.pushBody()}
	case 1:
		return &Request{ID: g.u32(), WireExpr: g.wireExpr(), NetworkExts: g.netExts(),
			Target: QueryTarget(g.r.IntN(3)), Budget: g.u32(),
			Timeout: time.Duration(g.r.IntN(1e6)) * time.Millisecond, Body: *g.query()}
	case 2:
		m := &Response{RequestID: g.u32(), WireExpr: g.wireExpr(), NetworkExts: g.netExts()}
		if g.bool() {
			m.HasResponder, m.Responder = true, EntityGlobalID{ID: g.zid(), EntityID: g.u32()}
		}
		if g.bool() {
			m.Body = g.reply()
		} else {
			m.Body = g.err()
		}
		return m
	case 3:
		return &ResponseFinal{RequestID: g.u32(), NetworkExts: g.netExts()}
	case 4:
		m := &Interest{ID: g.u32(), Mode: InterestMode(g.r.IntN(4)), NetworkExts: g.netExts()}
		if m.Mode != InterestFinal {
			m.Options = InterestOptions(g.r.UintN(256)) &^ (interestNamed | interestMapping)
			if m.Options&InterestRestricted != 0 {
				m.WireExpr = g.wireExpr()
			}
		}
		return m
	case 5:
		m := &Declare{NetworkExts: g.netExts(), Body: g.declaration()}
		if g.bool() {
			m.HasInterestID, m.InterestID = true, g.u32()
		}
		return m
	}
	m := &NetworkOAM{ID: g.u16(), Encoding: ExtEncoding(g.r.IntN(3)), NetworkExts: g.netExts()}
	switch m.Encoding {
	case ExtZ64:
		m.Value = g.u64()
	case ExtZBuf:
		m.Body = g.bytes(40)
	}
	return m
}

func (g *gen) transport() TransportMessage {
	switch g.r.IntN(7) {
	case 0:
		m := &Init{Ack: g.bool(), Version: ProtoVersion, WhatAmI: WhatAmI(g.r.IntN(3)), ZID: g.zid(),
			Resolution: DefaultResolution, BatchSize: DefaultBatchSize, Exts: g.exts()}
		if g.bool() {
			m.Resolution, m.BatchSize = Resolution(g.r.UintN(256)), g.u16()
		}
		if m.Ack {
			m.Cookie = g.bytes(40)
		}
		if g.bool() {
			m.Patch = g.u64()
		}
		return m
	case 1:
		m := &Open{Ack: g.bool(), InitialSN: g.u64(), Exts: g.exts()}
		if g.bool() {
			m.Lease = time.Duration(g.r.IntN(1e5)) * time.Second
		} else {
			m.Lease = time.Duration(g.r.IntN(1e8)) * time.Millisecond
		}
		if !m.Ack {
			m.Cookie = g.bytes(40)
		}
		return m
	case 2:
		return &Close{Session: g.bool(), Reason: uint8(g.r.UintN(256)), Exts: g.exts()}
	case 3:
		return &KeepAlive{Exts: g.exts()}
	case 4:
		m := &Frame{Reliable: g.bool(), SN: g.u64(), Exts: g.exts()}
		if g.bool() {
			m.HasQoS, m.Priority = true, Priority(g.r.IntN(8))
		}
		for range g.r.IntN(5) {
			m.Messages = append(m.Messages, g.network())
		}
		return m
	case 5:
		m := &Fragment{Reliable: g.bool(), More: g.bool(), SN: g.u64(), First: g.bool(),
			Drop: g.bool(), Exts: g.exts(), Payload: g.bytes(300)}
		if g.bool() {
			m.HasQoS, m.Priority = true, Priority(g.r.IntN(8))
		}
		return m
	}
	m := &TransportOAM{ID: g.u16(), Encoding: ExtEncoding(g.r.IntN(3)), Exts: g.exts()}
	switch m.Encoding {
	case ExtZ64:
		m.Value = g.u64()
	case ExtZBuf:
		m.Body = g.bytes(40)
	}
	return m
}
