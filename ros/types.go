package ros

import (
	"encoding/hex"
	"time"

	"github.com/afor-go/afor/ros/cdr"
	"github.com/afor-go/afor/ros/internal/rmw"
)

// GID identifies a publisher, subscription, service or client in the graph
// (rmw's 16-byte GID).
type GID [16]byte

func (g GID) String() string { return hex.EncodeToString(g[:]) }

// MessageInfo describes one received message.
type MessageInfo struct {
	PublisherGID GID       // the publisher's GID
	Sequence     int64     // its sequence number: from 1, per publisher
	SourceTime   time.Time // when it was published, by the publisher's clock
	ReceivedTime time.Time // when it was received, by ours
}

// Received is a message and its [MessageInfo], as given by
// [SubscribeInfo].
type Received[T any] struct {
	Msg  T
	Info MessageInfo
}

func infoFromRMW(i rmw.MessageInfo) MessageInfo {
	return MessageInfo{PublisherGID: GID(i.PublisherGID), Sequence: i.Sequence, SourceTime: i.SourceTime, ReceivedTime: i.ReceivedTime}
}

// messageType is what the middleware needs to know of a message type.
func messageType(m cdr.Named) rmw.Type {
	return rmw.Type{Name: m.TypeName(), DDSName: m.DDSTypeName(), Hash: m.TypeHash()}
}
