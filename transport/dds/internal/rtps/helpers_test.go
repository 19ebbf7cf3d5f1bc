package rtps

import (
	"bytes"
	"encoding/hex"
	"errors"
	"strings"
	"testing"
)

// hx builds bytes from hex fragments (spaces and | ignored); a fragment in
// double quotes contributes its ASCII bytes.
func hx(t testing.TB, parts ...string) []byte {
	if t != nil {
		t.Helper()
	}
	var out []byte
	for _, p := range parts {
		if strings.HasPrefix(p, `"`) {
			out = append(out, strings.Trim(p, `"`)...)
			continue
		}
		p = strings.NewReplacer(" ", "", "|", "", "\n", "", "\t", "").Replace(p)
		b, err := hex.DecodeString(p)
		if err != nil {
			panic("bad hex " + p + ": " + err.Error())
		}
		out = append(out, b...)
	}
	return out
}

// event is one submessage delivered to a recorder, deep-copied, with the
// context in force.
type event struct {
	ctx  Context
	kind string
	data Data
	frag DataFrag
	hb   Heartbeat
	an   AckNack
	nf   NackFrag
	hf   HeartbeatFrag
	gap  Gap
}

// recorder is a Handler that keeps copies of everything it receives.
type recorder struct{ events []event }

func clone(b []byte) []byte {
	if b == nil {
		return nil
	}
	return append([]byte{}, b...)
}

func (r *recorder) add(c *Context, e event) {
	e.ctx = *c
	e.ctx.UnicastReply = append([]Locator(nil), c.UnicastReply...)
	e.ctx.MulticastReply = append([]Locator(nil), c.MulticastReply...)
	e.ctx.replyBuf = [2 * MaxReplyLocators]Locator{}
	r.events = append(r.events, e)
}

func (r *recorder) Data(c *Context, d *Data) {
	dd := *d
	dd.InlineQoS, dd.Payload = clone(d.InlineQoS), clone(d.Payload)
	r.add(c, event{kind: "DATA", data: dd})
}

func (r *recorder) DataFrag(c *Context, d *DataFrag) {
	dd := *d
	dd.InlineQoS, dd.Payload = clone(d.InlineQoS), clone(d.Payload)
	r.add(c, event{kind: "DATA_FRAG", frag: dd})
}

func (r *recorder) Heartbeat(c *Context, h *Heartbeat) { r.add(c, event{kind: "HEARTBEAT", hb: *h}) }
func (r *recorder) AckNack(c *Context, a *AckNack)     { r.add(c, event{kind: "ACKNACK", an: *a}) }
func (r *recorder) NackFrag(c *Context, n *NackFrag)   { r.add(c, event{kind: "NACK_FRAG", nf: *n}) }
func (r *recorder) HeartbeatFrag(c *Context, h *HeartbeatFrag) {
	r.add(c, event{kind: "HEARTBEAT_FRAG", hf: *h})
}
func (r *recorder) Gap(c *Context, g *Gap) { r.add(c, event{kind: "GAP", gap: *g}) }

// parseAll parses msg with a zero Receiver and returns the events.
func parseAll(t testing.TB, msg []byte) []event {
	t.Helper()
	var r recorder
	if err := Parse(msg, &r); err != nil {
		t.Fatalf("Parse: %v\n%x", err, msg)
	}
	return r.events
}

// checkSentinel fails unless err wraps one of the package's sentinels.
func checkSentinel(t testing.TB, err error) {
	t.Helper()
	for _, s := range []error{ErrMalformed, ErrNotRTPS, ErrIncompatible, ErrLimit, ErrTooLarge} {
		if errors.Is(err, s) {
			return
		}
	}
	t.Fatalf("error %v wraps no sentinel", err)
}

func eqBytes(t testing.TB, what string, got, want []byte) {
	t.Helper()
	if !bytes.Equal(got, want) {
		t.Errorf("%s:\n got %x\nwant %x", what, got, want)
	}
}

var (
	fastPrefix = GuidPrefix{0x01, 0x0f, 0x7f, 0x01, 0xc6, 0x4f, 0xed, 0x38, 0, 0, 0, 0}
	cycPrefix  = GuidPrefix{0x01, 0x10, 0x4d, 0x95, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88}
	ourPrefix  = GuidPrefix{0x01, 0xaf, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10}
)
