package wire

// Default values of Limits, used for every zero field.
const (
	// DefaultMaxPayload bounds a payload, a key suffix, a parameters
	// string, a cookie or an attachment decoded from one batch.
	DefaultMaxPayload = MaxBatchSize
	// DefaultMaxFragment bounds the bytes carried by one FRAGMENT.
	DefaultMaxFragment = MaxBatchSize
	// DefaultMaxExtension bounds the body of one ZBuf extension.
	DefaultMaxExtension = 4096
	// DefaultMaxExtensions bounds the extensions in one extension chain.
	DefaultMaxExtensions = 32
	// DefaultMaxMessagesPerFrame bounds the network messages in one FRAME.
	DefaultMaxMessagesPerFrame = 4096
	// DefaultMaxLocators bounds the locators in one HELLO.
	DefaultMaxLocators = 64
)

// Limits bounds what the decoders accept. A zero field takes its default
// (the Default* constants). Reassembled fragments are bounded by the
// session, not here.
type Limits struct {
	// MaxPayload bounds every length-prefixed byte field other than an
	// extension body: payloads, key suffixes, parameters, cookies.
	MaxPayload int
	// MaxFragment bounds the payload of one FRAGMENT message.
	MaxFragment int
	// MaxExtension bounds the body of one ZBuf extension (attachments and
	// query bodies are ZBuf extensions, so they are bounded by this too).
	MaxExtension int
	// MaxExtensions bounds the number of extensions in one chain.
	MaxExtensions int
	// MaxMessagesPerFrame bounds the network messages in one FRAME.
	MaxMessagesPerFrame int
	// MaxLocators bounds the locators in one HELLO (each is at most
	// MaxLocatorLen bytes).
	MaxLocators int
}

// DefaultLimits returns the limits applied when a Limits field is zero.
func DefaultLimits() Limits {
	return Limits{
		MaxPayload:          DefaultMaxPayload,
		MaxFragment:         DefaultMaxFragment,
		MaxExtension:        DefaultMaxExtension,
		MaxExtensions:       DefaultMaxExtensions,
		MaxMessagesPerFrame: DefaultMaxMessagesPerFrame,
		MaxLocators:         DefaultMaxLocators,
	}
}

// withDefaults returns l with every zero or negative field replaced by its
// default.
func (l Limits) withDefaults() Limits {
	if l.MaxPayload <= 0 {
		l.MaxPayload = DefaultMaxPayload
	}
	if l.MaxFragment <= 0 {
		l.MaxFragment = DefaultMaxFragment
	}
	if l.MaxExtension <= 0 {
		l.MaxExtension = DefaultMaxExtension
	}
	if l.MaxExtensions <= 0 {
		l.MaxExtensions = DefaultMaxExtensions
	}
	if l.MaxMessagesPerFrame <= 0 {
		l.MaxMessagesPerFrame = DefaultMaxMessagesPerFrame
	}
	if l.MaxLocators <= 0 {
		l.MaxLocators = DefaultMaxLocators
	}
	return l
}
