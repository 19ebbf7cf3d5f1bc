package rtps

import (
	"encoding/binary"
	"fmt"
)

// InlineQoS holds the inline QoS parameters of a DATA that this package
// interprets.
type InlineQoS struct {
	// KeyHash is valid when HasKeyHash.
	KeyHash    [16]byte
	HasKeyHash bool
	// StatusInfo holds the STATUS_INFO flags (StatusDisposed,
	// StatusUnregistered, StatusFiltered) when HasStatusInfo.
	StatusInfo    uint32
	HasStatusInfo bool
	// Related is the RELATED_SAMPLE_IDENTITY (or, from eProsima and RTI
	// senders when the standard one is absent, its vendor twin 0x800f),
	// valid when HasRelated.
	Related    SampleIdentity
	HasRelated bool
}

// ParseInlineQoS decodes the inline QoS raw (a Data's InlineQoS) in the
// given byte order, sent by vendor. It allocates nothing.
func ParseInlineQoS(raw []byte, littleEndian bool, vendor VendorID) (InlineQoS, error) {
	var q InlineQoS
	var custom SampleIdentity
	var haveCustom bool
	le := littleEndian
	p := 0
	for {
		if len(raw)-p < 4 {
			return InlineQoS{}, fmt.Errorf("%w: inline QoS without sentinel", ErrMalformed)
		}
		pid, n := u16(raw[p:], le), int(u16(raw[p+2:], le))
		if pid == PIDSentinel {
			break
		}
		if len(raw)-p-4 < n {
			return InlineQoS{}, fmt.Errorf("%w: inline parameter %#04x length %d past the end", ErrMalformed, pid, n)
		}
		v := raw[p+4 : p+4+n]
		p += 4 + n
		switch pid {
		case PIDPad:
		case PIDKeyHash:
			if len(v) < 16 {
				return InlineQoS{}, errValue(pid, len(v))
			}
			q.KeyHash, q.HasKeyHash = [16]byte(v[:16]), true
		case PIDStatusInfo:
			if len(v) < 4 {
				return InlineQoS{}, errValue(pid, len(v))
			}
			// Flags are in the last byte whatever the byte order.
			q.StatusInfo, q.HasStatusInfo = binary.BigEndian.Uint32(v), true
		case PIDRelatedSampleIdentity:
			if len(v) < 24 {
				return InlineQoS{}, errValue(pid, len(v))
			}
			q.Related, q.HasRelated = SampleIdentity{GUIDFromBytes(v), seqNum(v[16:], le)}, true
		case PIDCustomRelatedSampleIdentity:
			if !vendorIs(vendor, VendorEProsima, VendorRTI) {
				continue
			}
			if len(v) < 24 {
				return InlineQoS{}, errValue(pid, len(v))
			}
			custom, haveCustom = SampleIdentity{GUIDFromBytes(v), seqNum(v[16:], le)}, true
		default:
			if err := unknownPID(pid); err != nil {
				return InlineQoS{}, err
			}
		}
	}
	if !q.HasRelated && haveCustom {
		q.Related, q.HasRelated = custom, true
	}
	return q, nil
}

// Disposal says which instance a DATA disposed or unregistered: for the
// builtin topics, the participant or endpoint GUID.
type Disposal struct {
	GUID GUID
	// Status holds StatusDisposed and/or StatusUnregistered.
	Status uint32
}

// ParseDisposal recognises a dispose or unregister DATA sent by vendor, in
// either form peers use: inline STATUS_INFO with KEY_HASH and no payload
// (Fast DDS), or inline STATUS_INFO with a K-flag key payload holding
// PARTICIPANT_GUID or ENDPOINT_GUID (Cyclone). ok is false for ordinary
// data. A K-flag DATA without STATUS_INFO counts as disposed and
// unregistered. The GUID comes from KEY_HASH if present, else from the key
// payload; a disposal with neither is malformed.
func ParseDisposal(d *Data, vendor VendorID) (disp Disposal, ok bool, err error) {
	var q InlineQoS
	if d.InlineQoS != nil {
		if q, err = ParseInlineQoS(d.InlineQoS, d.LittleEndian, vendor); err != nil {
			return Disposal{}, false, err
		}
	}
	disp.Status = q.StatusInfo & (StatusDisposed | StatusUnregistered)
	switch {
	case disp.Status != 0:
	case d.Key && !q.HasStatusInfo:
		disp.Status = StatusDisposed | StatusUnregistered
	default:
		return Disposal{}, false, nil
	}
	if q.HasKeyHash {
		disp.GUID = GUIDFromBytes(q.KeyHash[:])
		return disp, true, nil
	}
	if d.Payload == nil {
		return Disposal{}, false, fmt.Errorf("%w: disposal without key hash or key", ErrMalformed)
	}
	g, err := parseKey(d.Payload, vendor)
	if err != nil {
		return Disposal{}, false, err
	}
	disp.GUID = g
	return disp, true, nil
}

// parseKey decodes a builtin-topic key payload: a ParameterList holding
// PARTICIPANT_GUID, ENDPOINT_GUID or KEY_HASH, or a plain CDR GUID.
func parseKey(payload []byte, vendor VendorID) (GUID, error) {
	if len(payload) >= 20 && payload[0] == 0 && payload[1] <= 1 {
		return GUIDFromBytes(payload[4:]), nil
	}
	le, pl, err := encapsulation(payload)
	if err != nil {
		return GUID{}, err
	}
	var g GUID
	var found bool
	err = ParsePL(pl, le, func(pid uint16, v []byte) (err error) {
		switch pid {
		case PIDParticipantGUID, PIDEndpointGUID, PIDKeyHash:
			g, err = plGUID(pid, v)
			found = err == nil
			return err
		}
		return unknownPID(pid)
	})
	if err != nil {
		return GUID{}, fmt.Errorf("key from vendor %v: %w", vendor, err)
	}
	if !found {
		return GUID{}, fmt.Errorf("%w: key without GUID", ErrMalformed)
	}
	return g, nil
}

// AppendKey appends a builtin-topic key payload (PL_CDR_LE, encapsulation
// header included) holding g under pid (PIDParticipantGUID for SPDP,
// PIDEndpointGUID for SEDP), the form Cyclone sends with a dispose.
func AppendKey(dst []byte, pid uint16, g GUID) []byte {
	var w PLWriter
	w.Reset(append(dst, 0, 3, 0, 0))
	w.GUID(pid, g)
	w.Sentinel()
	return w.Bytes()
}

// Dispose appends a DATA that disposes and unregisters (status) the
// builtin-topic instance key, in a form both Fast DDS and Cyclone read:
// inline KEY_HASH and STATUS_INFO, and, if keyPID is not zero, a K-flag key
// payload holding key under keyPID (PIDParticipantGUID or
// PIDEndpointGUID). With keyPID zero it is exactly Fast DDS's form.
func (b *Builder) Dispose(reader, writer EntityID, sn SequenceNumber, key GUID, keyPID uint16, status uint32) {
	d := Data{ReaderID: reader, WriterID: writer, SN: sn}
	var kbuf [28]byte
	if keyPID != 0 {
		d.Payload, d.Key = AppendKey(kbuf[:0], keyPID, key), true
	}
	b.DataWith(&d, func(w *PLWriter) {
		w.KeyHash(key)
		w.StatusInfo(status)
	})
}
