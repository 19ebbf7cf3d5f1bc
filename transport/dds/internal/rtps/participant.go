package rtps

import "fmt"

// ParseParticipantData decodes an SPDP body (encapsulation header
// included) sent by vendor. The GUID comes from PARTICIPANT_GUID, or from
// KEY_HASH when that is absent; a body with neither is malformed. Strings
// and byte slices are copied.
func ParseParticipantData(payload []byte, vendor VendorID) (ParticipantData, error) {
	var p ParticipantData
	le, pl, err := encapsulation(payload)
	if err != nil {
		return p, err
	}
	p.LeaseDuration = DefaultLeaseDuration
	var haveGUID bool
	var keyHash *GUID
	err = ParsePL(pl, le, func(pid uint16, v []byte) (err error) {
		switch pid {
		case PIDParticipantGUID:
			p.GUID, err = plGUID(pid, v)
			haveGUID = err == nil
		case PIDKeyHash:
			var g GUID
			if g, err = plGUID(pid, v); err == nil {
				keyHash = &g
			}
		case PIDProtocolVersion:
			if len(v) < 2 {
				return errValue(pid, len(v))
			}
			p.Version = ProtocolVersion{v[0], v[1]}
		case PIDVendorID:
			if len(v) < 2 {
				return errValue(pid, len(v))
			}
			p.Vendor = VendorID{v[0], v[1]}
		case PIDDomainID:
			p.DomainID, err = plUint32(pid, v, le)
			p.DomainIDPresent = err == nil
		case PIDDomainTag:
			p.DomainTag, err = plString(pid, v, le)
		case PIDMetatrafficUnicastLocator:
			p.MetatrafficUnicast, err = appendLocator(p.MetatrafficUnicast, pid, v, le)
		case PIDMetatrafficMulticastLocator:
			p.MetatrafficMulticast, err = appendLocator(p.MetatrafficMulticast, pid, v, le)
		case PIDDefaultUnicastLocator:
			p.DefaultUnicast, err = appendLocator(p.DefaultUnicast, pid, v, le)
		case PIDDefaultMulticastLocator:
			p.DefaultMulticast, err = appendLocator(p.DefaultMulticast, pid, v, le)
		case PIDParticipantLeaseDuration:
			p.LeaseDuration, err = plDuration(pid, v, le)
		case PIDBuiltinEndpointSet:
			p.BuiltinEndpoints, err = plUint32(pid, v, le)
		case PIDUserData:
			p.UserData, err = plOctets(pid, v, le)
		case PIDEntityName:
			p.EntityName, err = plString(pid, v, le)
		case PIDPropertyList:
			p.Properties, err = plProperties(pid, v, le)
		default:
			return unknownPID(pid)
		}
		return err
	})
	if err != nil {
		return ParticipantData{}, fmt.Errorf("SPDP from vendor %v: %w", vendor, err)
	}
	if !haveGUID {
		if keyHash == nil {
			return ParticipantData{}, fmt.Errorf("%w: SPDP without participant GUID", ErrMalformed)
		}
		p.GUID = *keyHash
	}
	return p, nil
}

// Append appends the SPDP body of p (PL_CDR_LE, encapsulation header
// included) to dst: version and vendor (ProtocolVersion24 and VendorAfor
// when zero), participant GUID, domain id if present, domain tag if not
// empty, builtin endpoint set, locators, lease, user data if not nil,
// entity name if not empty, properties if any, SENTINEL. A field too large
// for a parameter (over 64 KiB) is left out; Validate reports it.
func (p *ParticipantData) Append(dst []byte) []byte {
	var w PLWriter
	w.Reset(append(dst, 0, 3, 0, 0))
	ver, ven := p.Version, p.Vendor
	if ver == (ProtocolVersion{}) {
		ver = ProtocolVersion24
	}
	if ven == (VendorID{}) {
		ven = VendorAfor
	}
	w.Param(PIDProtocolVersion, ver[:])
	w.Param(PIDVendorID, ven[:])
	w.GUID(PIDParticipantGUID, p.GUID)
	if p.DomainIDPresent {
		w.Uint32(PIDDomainID, p.DomainID)
	}
	if p.DomainTag != "" {
		w.String(PIDDomainTag, p.DomainTag)
	}
	w.Uint32(PIDBuiltinEndpointSet, p.BuiltinEndpoints)
	for _, l := range p.MetatrafficUnicast {
		w.Locator(PIDMetatrafficUnicastLocator, l)
	}
	for _, l := range p.MetatrafficMulticast {
		w.Locator(PIDMetatrafficMulticastLocator, l)
	}
	for _, l := range p.DefaultUnicast {
		w.Locator(PIDDefaultUnicastLocator, l)
	}
	for _, l := range p.DefaultMulticast {
		w.Locator(PIDDefaultMulticastLocator, l)
	}
	w.Duration(PIDParticipantLeaseDuration, DurationFrom(p.LeaseDuration))
	optional(&w, func() {
		if p.UserData != nil {
			w.Octets(PIDUserData, p.UserData)
		}
	})
	optional(&w, func() {
		if p.EntityName != "" {
			w.String(PIDEntityName, p.EntityName)
		}
	})
	optional(&w, func() {
		if len(p.Properties) > 0 {
			w.Properties(PIDPropertyList, p.Properties)
		}
	})
	w.Sentinel()
	return w.Bytes()
}

// optional runs fn and forgets the error it caused, fn having written
// nothing in that case.
func optional(w *PLWriter, fn func()) {
	fn()
	w.err = nil
}

// Validate reports why p cannot be encoded whole: too many locators or
// properties, or a field over 64 KiB.
func (p *ParticipantData) Validate() error {
	for _, ls := range [][]Locator{p.MetatrafficUnicast, p.MetatrafficMulticast, p.DefaultUnicast, p.DefaultMulticast} {
		if len(ls) > MaxLocators {
			return fmt.Errorf("%w: %d locators", ErrLimit, len(ls))
		}
	}
	if len(p.Properties) > MaxProperties {
		return fmt.Errorf("%w: %d properties", ErrLimit, len(p.Properties))
	}
	var w PLWriter
	w.Octets(PIDUserData, p.UserData)
	w.String(PIDEntityName, p.EntityName)
	w.String(PIDDomainTag, p.DomainTag)
	w.Properties(PIDPropertyList, p.Properties)
	return w.Err()
}
