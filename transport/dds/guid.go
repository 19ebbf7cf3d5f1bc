package dds

import (
	"encoding/hex"

	"github.com/afor-go/afor/transport/dds/internal/rtps"
)

// GUID identifies a DDS entity globally: a 12-byte participant prefix and
// a 4-byte entity id.
type GUID [16]byte

// String formats the GUID as prefix|entity in hex.
func (g GUID) String() string {
	return hex.EncodeToString(g[:12]) + "|" + hex.EncodeToString(g[12:])
}

// Participant returns the GUID of the participant that owns g.
func (g GUID) Participant() GUID {
	var p GUID
	copy(p[:12], g[:12])
	copy(p[12:], rtps.EntityParticipant[:])
	return p
}

func fromRTPS(g rtps.GUID) GUID { return GUID(g.Bytes()) }
