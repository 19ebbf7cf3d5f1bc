package dds

// Port formula parameters of the DDSI-RTPS specification (§9.6.1.1), as
// Fast DDS and Cyclone DDS use them by default.
const (
	portBase        = 7400 // PB
	domainGain      = 250  // DG
	participantGain = 2    // PG
	offsetSPDPMC    = 0    // d0: SPDP multicast
	offsetMetaUC    = 10   // d1: metatraffic unicast
	offsetUserMC    = 1    // d2: user multicast
	offsetUserUC    = 11   // d3: user unicast
)

// MaxDomainID is the largest domain ID whose ports fit in 16 bits.
const MaxDomainID = 232

// spdpMulticastGroup is the default IPv4 group for SPDP.
var spdpMulticastGroup = [4]byte{239, 255, 0, 1}

// spdpMulticastPort is the port SPDP announcements are multicast to.
func spdpMulticastPort(domain int) int { return portBase + domainGain*domain + offsetSPDPMC }

// userMulticastPort is the default port for user multicast traffic.
func userMulticastPort(domain int) int { return portBase + domainGain*domain + offsetUserMC }

// metaUnicastPort is the metatraffic (discovery) unicast port of a
// participant index.
func metaUnicastPort(domain, index int) int {
	return portBase + domainGain*domain + offsetMetaUC + participantGain*index
}

// userUnicastPort is the user-data unicast port of a participant index.
func userUnicastPort(domain, index int) int {
	return portBase + domainGain*domain + offsetUserUC + participantGain*index
}
