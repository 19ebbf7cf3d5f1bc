package rtps

// HeaderSize is the size of the RTPS message header.
const HeaderSize = 20

// Header is the RTPS message header: "RTPS", version, vendor, prefix.
type Header struct {
	Version ProtocolVersion
	Vendor  VendorID
	Prefix  GuidPrefix
}

// Submessage ids.
const (
	idPad           = 0x01
	idAckNack       = 0x06
	idHeartbeat     = 0x07
	idGap           = 0x08
	idInfoTS        = 0x09
	idInfoSrc       = 0x0c
	idInfoReplyIP4  = 0x0d
	idInfoDst       = 0x0e
	idInfoReply     = 0x0f
	idNackFrag      = 0x12
	idHeartbeatFrag = 0x13
	idData          = 0x15
	idDataFrag      = 0x16
)

// Submessage flags (bit 0, E, is the endianness of every submessage).
const (
	flagE            = 0x01
	flagDataQ        = 0x02
	flagDataD        = 0x04
	flagDataK        = 0x08
	flagFragK        = 0x04
	flagFinal        = 0x02
	flagLiveliness   = 0x04
	flagInvalidate   = 0x02
	flagReplyMulti   = 0x02
	dataOctetsToQoS  = 16
	fragOctetsToQoS  = 28
	dataFixedLen     = 20 // extraFlags .. writerSN
	dataFragFixedLen = 32
)

// Data is a DATA submessage. When parsed, InlineQoS and Payload alias the
// datagram.
type Data struct {
	ReaderID, WriterID EntityID
	SN                 SequenceNumber
	// InlineQoS is the raw inline QoS parameter list, SENTINEL included,
	// in the submessage's endianness (LittleEndian); nil if absent.
	InlineQoS []byte
	// Payload is the serialized payload, encapsulation header included;
	// nil if absent.
	Payload []byte
	// Key reports that Payload holds a serialized key (the K flag) rather
	// than data.
	Key bool
	// LittleEndian is the endianness of the submessage (and so of
	// InlineQoS) when parsed. The Builder always writes little-endian and
	// ignores it.
	LittleEndian bool
}

// DataFrag is a DATA_FRAG submessage. When parsed, InlineQoS and Payload
// (the fragment bytes, FragsInSubmsg fragments of FragSize bytes, the last
// possibly shorter) alias the datagram.
type DataFrag struct {
	ReaderID, WriterID EntityID
	SN                 SequenceNumber
	// FragStart is the 1-based number of the first fragment carried.
	FragStart     uint32
	FragsInSubmsg uint16
	FragSize      uint16
	// SampleSize is the size of the whole serialized payload,
	// encapsulation header included.
	SampleSize   uint32
	InlineQoS    []byte
	Payload      []byte
	Key          bool
	LittleEndian bool
}

// Heartbeat is a HEARTBEAT submessage.
type Heartbeat struct {
	ReaderID, WriterID EntityID
	First, Last        SequenceNumber
	Count              uint32
	Final, Liveliness  bool
}

// AckNack is an ACKNACK submessage: State.Base is the first SN not yet
// received and the set bits are the SNs requested.
type AckNack struct {
	ReaderID, WriterID EntityID
	State              SNSet
	Count              uint32
	Final              bool
}

// NackFrag is a NACK_FRAG submessage.
type NackFrag struct {
	ReaderID, WriterID EntityID
	SN                 SequenceNumber
	State              FNSet
	Count              uint32
}

// HeartbeatFrag is a HEARTBEAT_FRAG submessage.
type HeartbeatFrag struct {
	ReaderID, WriterID EntityID
	SN                 SequenceNumber
	LastFrag           uint32
	Count              uint32
}

// Gap is a GAP submessage: the SNs from Start to List.Base-1 and the
// members of List are irrelevant.
type Gap struct {
	ReaderID, WriterID EntityID
	Start              SequenceNumber
	List               SNSet
}

// Context is the receiver state in force for a submessage: who sent it, to
// whom, when, and where to reply. It is owned by the Receiver and valid only
// during the Handler call.
type Context struct {
	// SourceVersion, SourceVendor and SourcePrefix come from the header,
	// then from the last INFO_SRC.
	SourceVersion ProtocolVersion
	SourceVendor  VendorID
	SourcePrefix  GuidPrefix
	// DestPrefix is the destination of the last INFO_DST (zero if none or
	// if it was zero, meaning every participant).
	DestPrefix GuidPrefix
	// HaveTimestamp reports that an INFO_TS without the invalidate flag
	// is in force; Timestamp is then its value.
	HaveTimestamp bool
	Timestamp     Time
	// UnicastReply and MulticastReply are the locators of the last
	// INFO_REPLY or INFO_REPLY_IP4 (at most MaxReplyLocators each), nil
	// if none.
	UnicastReply   []Locator
	MulticastReply []Locator

	replyBuf [2 * MaxReplyLocators]Locator
}

// Handler receives the submessages Parse finds, with the Context in force.
// Slices in the submessages and the Context alias the datagram or the
// Receiver: a handler copies what it keeps beyond the call.
type Handler interface {
	Data(rc *Context, d *Data)
	DataFrag(rc *Context, d *DataFrag)
	Heartbeat(rc *Context, h *Heartbeat)
	AckNack(rc *Context, a *AckNack)
	NackFrag(rc *Context, n *NackFrag)
	HeartbeatFrag(rc *Context, h *HeartbeatFrag)
	Gap(rc *Context, g *Gap)
}

// NopHandler implements Handler by ignoring everything; embed it to handle
// only some submessages.
type NopHandler struct{}

// Data ignores d.
func (NopHandler) Data(*Context, *Data) {}

// DataFrag ignores d.
func (NopHandler) DataFrag(*Context, *DataFrag) {}

// Heartbeat ignores h.
func (NopHandler) Heartbeat(*Context, *Heartbeat) {}

// AckNack ignores a.
func (NopHandler) AckNack(*Context, *AckNack) {}

// NackFrag ignores n.
func (NopHandler) NackFrag(*Context, *NackFrag) {}

// HeartbeatFrag ignores h.
func (NopHandler) HeartbeatFrag(*Context, *HeartbeatFrag) {}

// Gap ignores g.
func (NopHandler) Gap(*Context, *Gap) {}
