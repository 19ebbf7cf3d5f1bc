package ddspeer

import (
	"encoding/json"
	"errors"
)

// The kinds of [Event] the peers print.
const (
	EvReady        = "ready"        // entities created
	EvMatched      = "matched"      // the number of matched endpoints changed to Count
	EvIncompatible = "incompatible" // a QoS mismatch, Side "offered" or "requested", and its Policy
	EvSample       = "sample"       // a reader got sample I, Len bytes, its padding intact if OK
	EvDone         = "done"         // a writer wrote, or a reader got, its Count samples
)

// ErrNotEvent is returned by [ParseEvent] for a line that is not a peer's
// event.
var ErrNotEvent = errors.New("ddspeer: not an event line")

// Event is one line of a peer's output.
type Event struct {
	Ev     string `json:"ev"`
	Count  int    `json:"count,omitempty"`
	I      int    `json:"i,omitempty"`
	Len    int    `json:"len,omitempty"`
	OK     bool   `json:"ok,omitempty"`
	Side   string `json:"side,omitempty"`
	Policy string `json:"policy,omitempty"`
}

// ParseEvent decodes one output line.
func ParseEvent(line string) (Event, error) {
	var ev Event
	if err := json.Unmarshal([]byte(line), &ev); err != nil || ev.Ev == "" {
		return Event{}, ErrNotEvent
	}
	return ev, nil
}
