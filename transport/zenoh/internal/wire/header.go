package wire

// Header byte layout shared by transport, network, zenoh and declaration
// messages: the message id in bits 0-4 and three flags.
const (
	// IDMask selects the message id of a header byte.
	IDMask = 0x1f
	// Flag1 is bit 5 of a header (A, R, N, S or C depending on the message).
	Flag1 = 0x20
	// Flag2 is bit 6 of a header (S, T, M, E or P depending on the message).
	Flag2 = 0x40
	// FlagZ is bit 7 of a header: an extension chain follows.
	FlagZ = 0x80
)

// HeaderID returns the message id of header h.
func HeaderID(h byte) byte { return h & IDMask }

// HasFlag reports whether all bits of flag are set in h.
func HasFlag(h, flag byte) bool { return h&flag == flag }

// Transport message ids.
const (
	IDTransportOAM = 0x00
	IDInit         = 0x01
	IDOpen         = 0x02
	IDClose        = 0x03
	IDKeepAlive    = 0x04
	IDFrame        = 0x05
	IDFragment     = 0x06
	IDJoin         = 0x07
)

// Network message ids.
const (
	IDNetworkOAM    = 0x1f
	IDDeclare       = 0x1e
	IDPush          = 0x1d
	IDRequest       = 0x1c
	IDResponse      = 0x1b
	IDResponseFinal = 0x1a
	IDInterest      = 0x19
)

// Zenoh (data) message ids.
const (
	IDPut   = 0x01
	IDDel   = 0x02
	IDQuery = 0x03
	IDReply = 0x04
	IDErr   = 0x05
)

// Declaration ids (the body of a DECLARE).
const (
	IDDeclKeyExpr      = 0x00
	IDUndeclKeyExpr    = 0x01
	IDDeclSubscriber   = 0x02
	IDUndeclSubscriber = 0x03
	IDDeclQueryable    = 0x04
	IDUndeclQueryable  = 0x05
	IDDeclToken        = 0x06
	IDUndeclToken      = 0x07
	IDDeclFinal        = 0x1a
)

// IsNetworkID reports whether id (a header's low 5 bits) names a network
// message. Inside a FRAME, the first header that is not a network message
// starts the next transport message of the batch.
func IsNetworkID(id byte) bool { return id >= IDInterest && id <= IDNetworkOAM }
