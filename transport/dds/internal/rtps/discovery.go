package rtps

import "time"

// ParticipantData is the body of an SPDP sample (DATA(p)).
type ParticipantData struct {
	GUID    GUID
	Version ProtocolVersion
	Vendor  VendorID
	// DomainID is valid when DomainIDPresent.
	DomainID        uint32
	DomainIDPresent bool
	// DomainTag is the DOMAIN_TAG, "" by default.
	DomainTag            string
	MetatrafficUnicast   []Locator
	MetatrafficMulticast []Locator
	DefaultUnicast       []Locator
	DefaultMulticast     []Locator
	// LeaseDuration defaults to DefaultLeaseDuration when absent.
	LeaseDuration    time.Duration
	BuiltinEndpoints uint32
	UserData         []byte
	EntityName       string
	Properties       [][2]string
}

// DefaultLeaseDuration is the participant lease assumed when SPDP omits it
// (the RTPS default).
const DefaultLeaseDuration = 100 * time.Second

// Bits of BUILTIN_ENDPOINT_SET.
const (
	BuiltinParticipantAnnouncer   uint32 = 1 << 0
	BuiltinParticipantDetector    uint32 = 1 << 1
	BuiltinPublicationsAnnouncer  uint32 = 1 << 2
	BuiltinPublicationsDetector   uint32 = 1 << 3
	BuiltinSubscriptionsAnnouncer uint32 = 1 << 4
	BuiltinSubscriptionsDetector  uint32 = 1 << 5
	BuiltinWLPWriter              uint32 = 1 << 10
	BuiltinWLPReader              uint32 = 1 << 11
	// BuiltinEndpointsAfor is the set afor announces: SPDP, SEDP and WLP,
	// no TypeLookup (0x00000c3f).
	BuiltinEndpointsAfor uint32 = 0x00000c3f
)

// EndpointData is the body of an SEDP sample: DATA(w) for a writer, DATA(r)
// for a reader.
type EndpointData struct {
	EndpointGUID GUID
	// ParticipantGUID defaults to the endpoint GUID's prefix with
	// EntityParticipant when absent (Cyclone omits it).
	ParticipantGUID   GUID
	TopicName         string
	TypeName          string
	QoS               QoS
	UnicastLocators   []Locator
	MulticastLocators []Locator
	UserData          []byte
	ExpectsInlineQoS  bool
	// DataRepresentation is nil when absent (meaning XCDR1).
	DataRepresentation []int16
}

// Data representation ids.
const (
	XCDR1 int16 = 0
	XML   int16 = 1
	XCDR2 int16 = 2
)

// SampleIdentity identifies a sample by writer GUID and sequence number
// (DDS-RPC's related sample identity).
type SampleIdentity struct {
	Writer GUID
	SN     SequenceNumber
}

// STATUS_INFO flags.
const (
	StatusDisposed     uint32 = 1
	StatusUnregistered uint32 = 2
	StatusFiltered     uint32 = 4
)
