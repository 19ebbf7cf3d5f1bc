package zenoh

import (
	"fmt"
	"time"
)

// initMsg is an INIT syn or ack.
type initMsg struct {
	ack     bool
	version byte
	whatami byte
	zid     []byte
	sizes   bool   // S flag: resolution and batch size present
	res     byte   // resolution byte: bits 0-1 frame SN, bits 2-3 request id
	batch   uint16 // batch size
	cookie  []byte // ack only
	patch   uint64
}

// defaultResolution is 32-bit frame SN and 32-bit request id.
const defaultResolution = 0x0a

func appendInit(b []byte, m *initMsg) []byte {
	h := byte(tInit)
	if m.ack {
		h |= flagF1
	}
	if m.sizes {
		h |= flagF2
	}
	if m.patch > 0 {
		h |= flagZ
	}
	b = append(b, h, m.version, byte(len(m.zid)-1)<<4|m.whatami&3)
	b = append(b, m.zid...)
	if m.sizes {
		b = append(b, m.res, byte(m.batch), byte(m.batch>>8))
	}
	if m.ack {
		b = appendBytes(b, m.cookie)
	}
	if m.patch > 0 {
		b = append(b, encZ64|0x07)
		b = appendZint(b, m.patch)
	}
	return b
}

// decodeInit decodes an INIT. An extension flag followed by nothing is
// accepted: zenoh-pico's listener sends that when the peer had no Patch.
func decodeInit(p []byte) (initMsg, error) {
	r := reader{p}
	var m initMsg
	h, err := r.u8()
	if err != nil {
		return m, err
	}
	if h&idMask != tInit {
		return m, fmt.Errorf("%w: expected INIT, got message id %#x", ErrHandshake, h&idMask)
	}
	m.ack = h&flagF1 != 0
	m.sizes = h&flagF2 != 0
	if m.version, err = r.u8(); err != nil {
		return m, err
	}
	c, err := r.u8()
	if err != nil {
		return m, err
	}
	m.whatami = c & 3
	if m.zid, err = r.take(uint64(c>>4) + 1); err != nil {
		return m, err
	}
	m.res, m.batch = defaultResolution, 65535
	if m.sizes {
		if m.res, err = r.u8(); err != nil {
			return m, err
		}
		if m.batch, err = r.u16le(); err != nil {
			return m, err
		}
	}
	if m.ack {
		if m.cookie, err = r.bytes(0xffff); err != nil {
			return m, err
		}
	}
	if h&flagZ != 0 && r.len() > 0 {
		err = r.exts(func(e ext) bool {
			if e.id == 0x07 && e.enc == encZ64 {
				m.patch = e.z64
			}
			return false
		})
	}
	return m, err
}

// openMsg is an OPEN syn or ack.
type openMsg struct {
	ack       bool
	lease     time.Duration
	initialSN uint64
	cookie    []byte
}

func appendOpen(b []byte, m *openMsg) []byte {
	h := byte(tOpen)
	if m.ack {
		h |= flagF1
	}
	ms := uint64(m.lease / time.Millisecond)
	if ms%1000 == 0 {
		h |= flagF2
		ms /= 1000
	}
	b = append(b, h)
	b = appendZint(b, ms)
	b = appendZint(b, m.initialSN)
	if !m.ack {
		b = appendBytes(b, m.cookie)
	}
	return b
}

func decodeOpen(p []byte) (openMsg, error) {
	r := reader{p}
	var m openMsg
	h, err := r.u8()
	if err != nil {
		return m, err
	}
	if h&idMask != tOpen {
		return m, fmt.Errorf("%w: expected OPEN, got message id %#x", ErrHandshake, h&idMask)
	}
	m.ack = h&flagF1 != 0
	lease, err := r.zintMax(1<<32 - 1) // 136 years in seconds fits a Duration
	if err != nil {
		return m, err
	}
	if h&flagF2 != 0 {
		m.lease = time.Duration(lease) * time.Second
	} else {
		m.lease = time.Duration(lease) * time.Millisecond
	}
	if m.initialSN, err = r.zint(); err != nil {
		return m, err
	}
	if !m.ack {
		if m.cookie, err = r.bytes(0xffff); err != nil {
			return m, err
		}
	}
	if h&flagZ != 0 && r.len() > 0 {
		err = r.skipExts()
	}
	return m, err
}

// sample data carried by PUT / DEL, aliasing the received batch.
type dataMsg struct {
	del        bool
	payload    []byte
	encID      uint16
	schema     []byte
	ts         Timestamp
	attachment []byte
}

// netMsg is a decoded network message; slices alias the received bytes.
type netMsg struct {
	id  byte
	raw []byte // the whole encoded message, aliasing the batch
	key wireExpr
	// PUSH
	data dataMsg
	// DECLARE
	hasInterestID bool
	interestID    uint32
	declID        byte
	entityID      uint32
	// INTEREST
	mode    byte
	options byte
	// REQUEST
	requestID uint32
}

// INTEREST option bits.
const (
	intKeyExprs    = 0x01
	intSubscribers = 0x02
	intQueryables  = 0x04
	intTokens      = 0x08
	intRestricted  = 0x10
	intN           = 0x20
	intM           = 0x40
	intAggregate   = 0x80
)

// INTEREST modes.
const (
	modeFinal         = 0
	modeCurrent       = 1
	modeFuture        = 2
	modeCurrentFuture = 3
)

// decodeNetwork decodes one network message from r into m.
func decodeNetwork(r *reader, m *netMsg) error {
	h, err := r.u8()
	if err != nil {
		return err
	}
	*m = netMsg{id: h & idMask}
	switch m.id {
	case nPush:
		if m.key, err = r.wireExpr(h&flagF1 != 0, h&flagF2 != 0); err != nil {
			return err
		}
		if h&flagZ != 0 {
			if err = r.exts(func(e ext) bool {
				// QoS 1, Timestamp 2, NodeId 3, TsStack 7 are all safe to ignore.
				return e.id == 1 || e.id == 2 || e.id == 3 || e.id == 7
			}); err != nil {
				return err
			}
		}
		return decodeData(r, &m.data)
	case nDeclare:
		if h&flagF1 != 0 {
			m.hasInterestID = true
			v, err := r.zintMax(1<<32 - 1)
			if err != nil {
				return err
			}
			m.interestID = uint32(v)
		}
		if h&flagZ != 0 {
			if err = r.skipExts(3); err != nil {
				return err
			}
		}
		return decodeDeclaration(r, m)
	case nInterest:
		v, err := r.zintMax(1<<32 - 1)
		if err != nil {
			return err
		}
		m.interestID = uint32(v)
		m.mode = (h & interestMask) >> 5
		if m.mode != modeFinal {
			if m.options, err = r.u8(); err != nil {
				return err
			}
			if m.options&intRestricted != 0 {
				if m.key, err = r.wireExpr(m.options&intN != 0, m.options&intM != 0); err != nil {
					return err
				}
			}
		}
		if h&flagZ != 0 {
			return r.skipExts(3)
		}
		return nil
	case nRequest:
		v, err := r.zintMax(1<<32 - 1)
		if err != nil {
			return err
		}
		m.requestID = uint32(v)
		if m.key, err = r.wireExpr(h&flagF1 != 0, h&flagF2 != 0); err != nil {
			return err
		}
		if h&flagZ != 0 {
			if err = r.skipExts(3, 4); err != nil {
				return err
			}
		}
		return skipQuery(r)
	case nResponse:
		v, err := r.zintMax(1<<32 - 1)
		if err != nil {
			return err
		}
		m.requestID = uint32(v)
		if m.key, err = r.wireExpr(h&flagF1 != 0, h&flagF2 != 0); err != nil {
			return err
		}
		if h&flagZ != 0 {
			if err = r.skipExts(3); err != nil {
				return err
			}
		}
		return skipResponseBody(r)
	case nResponseFinal:
		v, err := r.zintMax(1<<32 - 1)
		if err != nil {
			return err
		}
		m.requestID = uint32(v)
		if h&flagZ != 0 {
			return r.skipExts(3)
		}
		return nil
	case nOAM:
		if _, err = r.zintMax(0xffff); err != nil {
			return err
		}
		if h&flagZ != 0 {
			if err = r.skipExts(); err != nil {
				return err
			}
		}
		return skipBody(r, h&extEnc)
	}
	return fmt.Errorf("%w: unknown network message id %#x", ErrProtocol, m.id)
}

// skipBody skips an OAM body of the given encoding.
func skipBody(r *reader, enc byte) error {
	var err error
	switch enc {
	case encUnit:
	case encZ64:
		_, err = r.zint()
	case encZBuf:
		_, err = r.bytes(1<<32 - 1)
	default:
		err = fmt.Errorf("%w: reserved OAM encoding", ErrProtocol)
	}
	return err
}

func decodeDeclaration(r *reader, m *netMsg) error {
	h, err := r.u8()
	if err != nil {
		return err
	}
	m.declID = h & idMask
	switch m.declID {
	case dKeyExpr:
		v, err := r.zintMax(0xffff)
		if err != nil {
			return err
		}
		m.entityID = uint32(v)
		// A D_KEYEXPR scope refers to the sender's own table.
		if m.key, err = r.wireExpr(h&flagF1 != 0, true); err != nil {
			return err
		}
	case dSubscriber, dQueryable, dToken:
		v, err := r.zintMax(1<<32 - 1)
		if err != nil {
			return err
		}
		m.entityID = uint32(v)
		if m.key, err = r.wireExpr(h&flagF1 != 0, h&flagF2 != 0); err != nil {
			return err
		}
	case uKeyExpr, uSubscriber, uQueryable, uToken:
		v, err := r.zintMax(1<<32 - 1)
		if err != nil {
			return err
		}
		m.entityID = uint32(v)
		if h&flagZ != 0 {
			return r.skipExts(0x0f)
		}
		return nil
	case dFinal:
	default:
		return fmt.Errorf("%w: unknown declaration id %#x", ErrProtocol, m.declID)
	}
	if h&flagZ != 0 {
		return r.skipExts()
	}
	return nil
}

// decodeData decodes a PUT or DEL body.
func decodeData(r *reader, d *dataMsg) error {
	h, err := r.u8()
	if err != nil {
		return err
	}
	switch h & idMask {
	case zPut:
	case zDel:
		d.del = true
	default:
		return fmt.Errorf("%w: push body id %#x is neither PUT nor DEL", ErrProtocol, h&idMask)
	}
	if h&flagF1 != 0 {
		if err = readTimestamp(r, &d.ts); err != nil {
			return err
		}
	}
	if !d.del && h&flagF2 != 0 {
		if err = readEncoding(r, &d.encID, &d.schema); err != nil {
			return err
		}
	}
	attID := byte(3)
	if d.del {
		attID = 2
	}
	if h&flagZ != 0 {
		if err = r.exts(func(e ext) bool {
			if e.id == attID && e.enc == encZBuf {
				d.attachment = e.zbuf
				return true
			}
			return e.id == 1 // SourceInfo
		}); err != nil {
			return err
		}
	}
	if !d.del {
		d.payload, err = r.bytes(1<<32 - 1)
	}
	return err
}

func readTimestamp(r *reader, ts *Timestamp) error {
	t, err := r.zint()
	if err != nil {
		return err
	}
	id, err := r.bytes(16)
	if err != nil {
		return err
	}
	ts.NTP64 = t
	ts.idLen = uint8(copy(ts.id[:], id))
	return nil
}

func readEncoding(r *reader, id *uint16, schema *[]byte) error {
	v, err := r.zintMax(1<<32 - 1)
	if err != nil {
		return err
	}
	if v>>1 > 0xffff {
		return fmt.Errorf("%w: encoding id %d above 16 bits", ErrProtocol, v>>1)
	}
	*id = uint16(v >> 1)
	if v&1 != 0 {
		*schema, err = r.bytes(0xff)
	}
	return err
}

// skipQuery skips a QUERY body.
func skipQuery(r *reader) error {
	h, err := r.u8()
	if err != nil {
		return err
	}
	if h&idMask != zQuery {
		return fmt.Errorf("%w: request body id %#x is not QUERY", ErrProtocol, h&idMask)
	}
	if h&flagF1 != 0 {
		if _, err = r.zint(); err != nil {
			return err
		}
	}
	if h&flagF2 != 0 {
		if _, err = r.bytes(0xffff); err != nil {
			return err
		}
	}
	if h&flagZ != 0 {
		return r.skipExts()
	}
	return nil
}

// skipResponseBody skips a REPLY or ERR body.
func skipResponseBody(r *reader) error {
	h, err := r.u8()
	if err != nil {
		return err
	}
	switch h & idMask {
	case zReply:
		if h&flagF1 != 0 {
			if _, err = r.zint(); err != nil {
				return err
			}
		}
		if h&flagZ != 0 {
			if err = r.skipExts(); err != nil {
				return err
			}
		}
		var d dataMsg
		return decodeData(r, &d)
	case zErr:
		if h&flagF2 != 0 {
			var id uint16
			var s []byte
			if err = readEncoding(r, &id, &s); err != nil {
				return err
			}
		}
		if h&flagZ != 0 {
			if err = r.skipExts(); err != nil {
				return err
			}
		}
		_, err = r.bytes(1<<32 - 1)
		return err
	}
	return fmt.Errorf("%w: response body id %#x", ErrProtocol, h&idMask)
}

// appendPush encodes PUSH{PUT|DEL} with the whole key as suffix.
func appendPush(b []byte, key string, d *outData) []byte {
	b = append(b, nPush|flagF1)
	b = appendKey(b, key)
	h := byte(zPut)
	if d.del {
		h = zDel
	}
	if d.hasTS {
		h |= flagF1
	}
	if !d.del && (d.encID != 0 || d.schema != "") {
		h |= flagF2
	}
	if d.attachment != nil {
		h |= flagZ
	}
	b = append(b, h)
	if d.hasTS {
		b = appendZint(b, d.ts.NTP64)
		b = appendBytes(b, d.ts.ID())
	}
	if h&flagF2 != 0 {
		v := uint64(d.encID) << 1
		if d.schema != "" {
			v |= 1
		}
		b = appendZint(b, v)
		if d.schema != "" {
			b = appendString(b, d.schema[:min(len(d.schema), 0xff)])
		}
	}
	if d.attachment != nil {
		if d.del {
			b = append(b, encZBuf|0x02)
		} else {
			b = append(b, encZBuf|0x03)
		}
		b = appendBytes(b, d.attachment)
	}
	if !d.del {
		b = appendBytes(b, d.payload)
	}
	return b
}

// outData is what a publisher sends.
type outData struct {
	del        bool
	payload    []byte
	encID      uint16
	schema     string // at most 255 bytes are sent
	attachment []byte
	hasTS      bool
	ts         Timestamp
}

// appendDeclareSubscriber encodes DECLARE [I] D_SUBSCRIBER with a full key.
func appendDeclareSubscriber(b []byte, interest *uint32, id uint32, key string) []byte {
	b = appendDeclareHeader(b, interest)
	b = append(b, dSubscriber|flagF1)
	b = appendZint(b, uint64(id))
	return appendKey(b, key)
}

// appendUndeclareSubscriber encodes DECLARE U_SUBSCRIBER.
func appendUndeclareSubscriber(b []byte, id uint32) []byte {
	b = append(b, nDeclare, uSubscriber)
	return appendZint(b, uint64(id))
}

// appendDeclareFinal encodes DECLARE{I=interest} D_FINAL.
func appendDeclareFinal(b []byte, interest uint32) []byte {
	b = appendDeclareHeader(b, &interest)
	return append(b, dFinal)
}

func appendDeclareHeader(b []byte, interest *uint32) []byte {
	if interest == nil {
		return append(b, nDeclare)
	}
	b = append(b, nDeclare|flagF1)
	return appendZint(b, uint64(*interest))
}

// appendResponseFinal encodes RESPONSE_FINAL.
func appendResponseFinal(b []byte, rid uint32) []byte {
	b = append(b, nResponseFinal)
	return appendZint(b, uint64(rid))
}

// subsInterestID is the id of the interest in subscribers that a client
// sends its router (and a peer a router it links to).
const subsInterestID = 1

// appendInterest encodes an unrestricted INTEREST.
func appendInterest(b []byte, id uint32, mode, options byte) []byte {
	b = append(b, nInterest|mode<<5)
	b = appendZint(b, uint64(id))
	return append(b, options)
}
