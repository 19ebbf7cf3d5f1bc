package rtps

import "fmt"

// ParseEndpointData decodes an SEDP body (encapsulation header included)
// sent by vendor. Absent policies take the DDS defaults for the endpoint's
// kind (DefaultReaderQoS or DefaultWriterQoS, told apart by the endpoint
// GUID's entity kind). The endpoint GUID comes from ENDPOINT_GUID, else
// from KEY_HASH; a body with neither is malformed. An absent participant
// GUID is derived from the endpoint GUID. Strings and slices are copied.
func ParseEndpointData(payload []byte, vendor VendorID) (EndpointData, error) {
	var e EndpointData
	le, pl, err := encapsulation(payload)
	if err != nil {
		return e, err
	}
	var (
		q                               QoS
		haveEP, havePP, haveRel, haveKH bool
		keyHash                         GUID
	)
	q = defaultQoS()
	err = ParsePL(pl, le, func(pid uint16, v []byte) (err error) {
		switch pid {
		case PIDEndpointGUID:
			e.EndpointGUID, err = plGUID(pid, v)
			haveEP = err == nil
		case PIDParticipantGUID:
			e.ParticipantGUID, err = plGUID(pid, v)
			havePP = err == nil
		case PIDKeyHash:
			keyHash, err = plGUID(pid, v)
			haveKH = err == nil
		case PIDTopicName:
			e.TopicName, err = plString(pid, v, le)
		case PIDTypeName:
			e.TypeName, err = plString(pid, v, le)
		case PIDReliability:
			haveRel = true
			return parseReliability(&q, v, le)
		case PIDDurability:
			var k uint32
			if k, err = plUint32(pid, v, le); err == nil {
				if k > uint32(Persistent) {
					return fmt.Errorf("%w: durability kind %d", ErrMalformed, k)
				}
				q.Durability = DurabilityKind(k)
			}
		case PIDHistory:
			if len(v) < 8 {
				return errValue(pid, len(v))
			}
			k := u32(v, le)
			if k > uint32(KeepAll) {
				return fmt.Errorf("%w: history kind %d", ErrMalformed, k)
			}
			q.History, q.Depth, q.HistoryPresent = HistoryKind(k), int32(u32(v[4:], le)), true
		case PIDLiveliness:
			if len(v) < 12 {
				return errValue(pid, len(v))
			}
			k := u32(v, le)
			if k > uint32(LivelinessManualByTopic) {
				return fmt.Errorf("%w: liveliness kind %d", ErrMalformed, k)
			}
			q.Liveliness, q.LivelinessLease = LivelinessKind(k), durationAt(v[4:], le).Duration()
		case PIDDeadline:
			q.Deadline, err = plDuration(pid, v, le)
		case PIDLatencyBudget:
			q.LatencyBudget, err = plDuration(pid, v, le)
		case PIDLifespan:
			q.Lifespan, err = plDuration(pid, v, le)
		case PIDOwnership:
			var k uint32
			if k, err = plUint32(pid, v, le); err == nil {
				if k > uint32(OwnershipExclusive) {
					return fmt.Errorf("%w: ownership kind %d", ErrMalformed, k)
				}
				q.Ownership = OwnershipKind(k)
			}
		case PIDOwnershipStrength:
			var s uint32
			s, err = plUint32(pid, v, le)
			q.OwnershipStrength = int32(s)
		case PIDDestinationOrder:
			var k uint32
			if k, err = plUint32(pid, v, le); err == nil {
				if k > uint32(BySourceTimestamp) {
					return fmt.Errorf("%w: destination order kind %d", ErrMalformed, k)
				}
				q.DestinationOrder = DestinationOrderKind(k)
			}
		case PIDPartition:
			q.Partition, err = plStrings(pid, v, le, MaxPartitions)
		case PIDUserData:
			e.UserData, err = plOctets(pid, v, le)
		case PIDUnicastLocator:
			e.UnicastLocators, err = appendLocator(e.UnicastLocators, pid, v, le)
		case PIDMulticastLocator:
			e.MulticastLocators, err = appendLocator(e.MulticastLocators, pid, v, le)
		case PIDExpectsInlineQoS:
			if len(v) < 1 {
				return errValue(pid, len(v))
			}
			e.ExpectsInlineQoS = v[0] != 0
		case PIDDataRepresentation:
			e.DataRepresentation, err = plInt16s(pid, v, le, MaxDataRepresentations)
		case PIDProtocolVersion, PIDVendorID, PIDPresentation, PIDDurabilityService,
			PIDGroupData, PIDTopicData, PIDTypeMaxSizeSerialized, PIDTypeInformation,
			PIDTypeConsistency, PIDTimeBasedFilter, PIDResourceLimits, PIDTransportPriority:
			// Understood and not needed.
		default:
			return unknownPID(pid)
		}
		return err
	})
	if err != nil {
		return EndpointData{}, fmt.Errorf("SEDP from vendor %v: %w", vendor, err)
	}
	if !haveEP {
		if !haveKH {
			return EndpointData{}, fmt.Errorf("%w: SEDP without endpoint GUID", ErrMalformed)
		}
		e.EndpointGUID = keyHash
	}
	if !havePP {
		e.ParticipantGUID = GUID{Prefix: e.EndpointGUID.Prefix, Entity: EntityParticipant}
	}
	if !haveRel {
		if e.EndpointGUID.Entity.IsReader() {
			q.Reliability = BestEffort
		} else {
			q.Reliability = Reliable
		}
	}
	e.QoS = q
	return e, nil
}

func parseReliability(q *QoS, v []byte, le bool) error {
	if len(v) < 4 {
		return errValue(PIDReliability, len(v))
	}
	switch k := ReliabilityKind(u32(v, le)); k {
	case BestEffort, Reliable:
		q.Reliability = k
	default:
		return fmt.Errorf("%w: reliability kind %d", ErrMalformed, k)
	}
	if len(v) >= 12 {
		q.MaxBlocking = durationAt(v[4:], le).Duration()
	}
	return nil
}

// Append appends the SEDP body of e (PL_CDR_LE, encapsulation header
// included) to dst. It always writes RELIABILITY, DURABILITY and HISTORY,
// and the other policies only when they differ from the DDS defaults (so
// Cyclone and Fast DDS read the same QoS); LIFESPAN and OWNERSHIP_STRENGTH
// only for writers, EXPECTS_INLINE_QOS only for readers that expect it.
// Fields too large for a parameter are left out; Validate reports them.
func (e *EndpointData) Append(dst []byte) []byte {
	var w PLWriter
	w.Reset(append(dst, 0, 3, 0, 0))
	q := &e.QoS
	reader := e.EndpointGUID.Entity.IsReader()
	w.GUID(PIDEndpointGUID, e.EndpointGUID)
	w.GUID(PIDParticipantGUID, e.ParticipantGUID)
	w.KeyHash(e.EndpointGUID)
	w.Param(PIDProtocolVersion, ProtocolVersion24[:])
	w.Param(PIDVendorID, VendorAfor[:])
	optional(&w, func() { w.String(PIDTopicName, e.TopicName) })
	optional(&w, func() { w.String(PIDTypeName, e.TypeName) })
	w.buf = append(w.buf, byte(PIDReliability), byte(PIDReliability>>8), 12, 0)
	w.buf = le32(w.buf, uint32(q.Reliability))
	mb := DurationFrom(q.MaxBlocking)
	w.buf = le32(le32(w.buf, uint32(mb.Sec)), mb.Frac)
	w.Uint32(PIDDurability, uint32(q.Durability))
	w.buf = append(w.buf, byte(PIDHistory), byte(PIDHistory>>8), 8, 0)
	w.buf = le32(le32(w.buf, uint32(q.History)), uint32(q.Depth))
	if q.Deadline != Infinite {
		w.Duration(PIDDeadline, DurationFrom(q.Deadline))
	}
	if q.LatencyBudget != 0 {
		w.Duration(PIDLatencyBudget, DurationFrom(q.LatencyBudget))
	}
	if !reader && q.Lifespan != Infinite {
		w.Duration(PIDLifespan, DurationFrom(q.Lifespan))
	}
	if q.Liveliness != LivelinessAutomatic || q.LivelinessLease != Infinite {
		w.buf = append(w.buf, byte(PIDLiveliness), byte(PIDLiveliness>>8), 12, 0)
		lease := DurationFrom(q.LivelinessLease)
		w.buf = le32(le32(le32(w.buf, uint32(q.Liveliness)), uint32(lease.Sec)), lease.Frac)
	}
	if q.Ownership != OwnershipShared {
		w.Uint32(PIDOwnership, uint32(q.Ownership))
	}
	if !reader && q.OwnershipStrength != 0 {
		w.Uint32(PIDOwnershipStrength, uint32(q.OwnershipStrength))
	}
	if q.DestinationOrder != ByReceptionTimestamp {
		w.Uint32(PIDDestinationOrder, uint32(q.DestinationOrder))
	}
	if len(q.Partition) > 0 {
		optional(&w, func() { w.Strings(PIDPartition, q.Partition) })
	}
	if e.UserData != nil {
		optional(&w, func() { w.Octets(PIDUserData, e.UserData) })
	}
	for _, l := range e.UnicastLocators {
		w.Locator(PIDUnicastLocator, l)
	}
	for _, l := range e.MulticastLocators {
		w.Locator(PIDMulticastLocator, l)
	}
	if reader && e.ExpectsInlineQoS {
		w.Bool(PIDExpectsInlineQoS, true)
	}
	if e.DataRepresentation != nil {
		optional(&w, func() { w.Int16s(PIDDataRepresentation, e.DataRepresentation) })
	}
	w.Sentinel()
	return w.Bytes()
}

// Validate reports why e cannot be encoded whole: too many locators,
// partitions or representations, or a field over 64 KiB.
func (e *EndpointData) Validate() error {
	switch {
	case len(e.UnicastLocators) > MaxLocators || len(e.MulticastLocators) > MaxLocators:
		return fmt.Errorf("%w: more than %d locators", ErrLimit, MaxLocators)
	case len(e.QoS.Partition) > MaxPartitions:
		return fmt.Errorf("%w: %d partitions", ErrLimit, len(e.QoS.Partition))
	case len(e.DataRepresentation) > MaxDataRepresentations:
		return fmt.Errorf("%w: %d data representations", ErrLimit, len(e.DataRepresentation))
	}
	var w PLWriter
	w.String(PIDTopicName, e.TopicName)
	w.String(PIDTypeName, e.TypeName)
	w.Strings(PIDPartition, e.QoS.Partition)
	w.Octets(PIDUserData, e.UserData)
	w.Int16s(PIDDataRepresentation, e.DataRepresentation)
	return w.Err()
}
