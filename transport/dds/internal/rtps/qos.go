package rtps

import (
	"fmt"
	"time"
)

// ReliabilityKind is the RELIABILITY kind as on the wire.
type ReliabilityKind uint32

// Reliability kinds.
const (
	BestEffort ReliabilityKind = 1
	Reliable   ReliabilityKind = 2
)

// DurabilityKind is the DURABILITY kind, ordered from weakest to strongest.
type DurabilityKind uint32

// Durability kinds.
const (
	Volatile       DurabilityKind = 0
	TransientLocal DurabilityKind = 1
	Transient      DurabilityKind = 2
	Persistent     DurabilityKind = 3
)

// HistoryKind is the HISTORY kind.
type HistoryKind uint32

// History kinds.
const (
	KeepLast HistoryKind = 0
	KeepAll  HistoryKind = 1
)

// LivelinessKind is the LIVELINESS kind, ordered from weakest to strongest.
type LivelinessKind uint32

// Liveliness kinds.
const (
	LivelinessAutomatic           LivelinessKind = 0
	LivelinessManualByParticipant LivelinessKind = 1
	LivelinessManualByTopic       LivelinessKind = 2
)

// OwnershipKind is the OWNERSHIP kind.
type OwnershipKind uint32

// Ownership kinds.
const (
	OwnershipShared    OwnershipKind = 0
	OwnershipExclusive OwnershipKind = 1
)

// DestinationOrderKind is the DESTINATION_ORDER kind.
type DestinationOrderKind uint32

// Destination order kinds.
const (
	ByReceptionTimestamp DestinationOrderKind = 0
	BySourceTimestamp    DestinationOrderKind = 1
)

// QoS holds the endpoint QoS policies carried by SEDP. Durations use
// Infinite for DURATION_INFINITE.
type QoS struct {
	Reliability ReliabilityKind
	MaxBlocking time.Duration
	Durability  DurabilityKind
	// History and Depth hold HISTORY; HistoryPresent reports whether the
	// peer sent it (Fast DDS never does).
	History        HistoryKind
	Depth          int32
	HistoryPresent bool
	Deadline       time.Duration
	LatencyBudget  time.Duration
	Lifespan       time.Duration
	Liveliness     LivelinessKind
	// LivelinessLease is the liveliness lease duration.
	LivelinessLease   time.Duration
	Ownership         OwnershipKind
	OwnershipStrength int32
	DestinationOrder  DestinationOrderKind
	// Partition is the partition names; nil or empty means the default
	// partition "".
	Partition []string
}

// defaultQoS returns the DDS defaults shared by readers and writers.
func defaultQoS() QoS {
	return QoS{
		MaxBlocking:     100 * time.Millisecond,
		Durability:      Volatile,
		History:         KeepLast,
		Depth:           1,
		Deadline:        Infinite,
		Lifespan:        Infinite,
		Liveliness:      LivelinessAutomatic,
		LivelinessLease: Infinite,
	}
}

// DefaultReaderQoS returns the QoS a reader has when SEDP omits every
// policy: BEST_EFFORT, VOLATILE, KEEP_LAST 1, infinite deadline and
// liveliness lease, AUTOMATIC liveliness, shared ownership, by-reception
// order, the default partition.
func DefaultReaderQoS() QoS {
	q := defaultQoS()
	q.Reliability = BestEffort
	return q
}

// DefaultWriterQoS returns DefaultReaderQoS with RELIABLE reliability, the
// DDS default for writers.
func DefaultWriterQoS() QoS {
	q := defaultQoS()
	q.Reliability = Reliable
	return q
}

// String returns the DDS name of the kind.
func (k ReliabilityKind) String() string {
	switch k {
	case BestEffort:
		return "BEST_EFFORT"
	case Reliable:
		return "RELIABLE"
	}
	return fmt.Sprintf("ReliabilityKind(%d)", uint32(k))
}

// String returns the DDS name of the kind.
func (k DurabilityKind) String() string {
	switch k {
	case Volatile:
		return "VOLATILE"
	case TransientLocal:
		return "TRANSIENT_LOCAL"
	case Transient:
		return "TRANSIENT"
	case Persistent:
		return "PERSISTENT"
	}
	return fmt.Sprintf("DurabilityKind(%d)", uint32(k))
}

// String returns the DDS name of the kind.
func (k HistoryKind) String() string {
	switch k {
	case KeepLast:
		return "KEEP_LAST"
	case KeepAll:
		return "KEEP_ALL"
	}
	return fmt.Sprintf("HistoryKind(%d)", uint32(k))
}

// String returns the DDS name of the kind.
func (k LivelinessKind) String() string {
	switch k {
	case LivelinessAutomatic:
		return "AUTOMATIC"
	case LivelinessManualByParticipant:
		return "MANUAL_BY_PARTICIPANT"
	case LivelinessManualByTopic:
		return "MANUAL_BY_TOPIC"
	}
	return fmt.Sprintf("LivelinessKind(%d)", uint32(k))
}

// String returns the DDS name of the kind.
func (k OwnershipKind) String() string {
	switch k {
	case OwnershipShared:
		return "SHARED"
	case OwnershipExclusive:
		return "EXCLUSIVE"
	}
	return fmt.Sprintf("OwnershipKind(%d)", uint32(k))
}

// String returns the DDS name of the kind.
func (k DestinationOrderKind) String() string {
	switch k {
	case ByReceptionTimestamp:
		return "BY_RECEPTION_TIMESTAMP"
	case BySourceTimestamp:
		return "BY_SOURCE_TIMESTAMP"
	}
	return fmt.Sprintf("DestinationOrderKind(%d)", uint32(k))
}
