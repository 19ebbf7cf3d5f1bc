package ros_test

import (
	"bytes"
	"testing"

	"github.com/afor-go/afor/ros"
	"github.com/afor-go/afor/ros/cdr"
	"github.com/afor-go/afor/ros/msgs/example_interfaces"
)

// FuzzRawActionPayloads feeds any bytes to the codecs a raw action client
// runs on what a server sends (feedback messages and get_result replies):
// they return errors, never panic, and keep exactly the bytes after the
// part they skip.
func FuzzRawActionPayloads(f *testing.F) {
	fb := example_interfaces.FibonacciFeedbackMessage{Feedback: example_interfaces.FibonacciFeedback{Sequence: []int32{0, 1, 1}}}
	seed, _ := cdr.Marshal(&fb)
	f.Add(seed)
	res := example_interfaces.FibonacciGetResultResponse{Status: 4, Result: example_interfaces.FibonacciResult{Sequence: []int32{0, 1}}}
	seed, _ = cdr.Marshal(&res)
	f.Add(seed)
	f.Add([]byte{0, 1, 0, 0})
	f.Add([]byte{0, 0, 0, 0, 1})
	f.Add([]byte{0, 9})
	f.Fuzz(func(t *testing.T, data []byte) {
		var p ros.RawPayload
		if err := p.UnmarshalCDR(data); err != nil {
			return
		}
		d, err := cdr.NewDecoder(data)
		if err != nil {
			t.Fatalf("UnmarshalCDR took what NewDecoder refuses: %v", err)
		}
		skip := min(16, d.Remaining())
		for range skip {
			d.Uint8()
		}
		p.DecodeCDR(&d)
		if d.Err() != nil || !bytes.Equal(p[4:], data[4+skip:]) {
			t.Fatalf("feedback %x from %x (%v)", p, data, d.Err())
		}
		d, _ = cdr.NewDecoder(data)
		if d.Remaining() > 0 {
			d.Int8()
		}
		var r ros.RawResult
		r.DecodeCDR(&d)
		if d.Err() != nil || len(r.Payload) != len(data) || !bytes.Equal(r.Payload[4+min(1, len(data)-4):], data[4+min(1, len(data)-4):]) {
			t.Fatalf("result %x from %x (%v)", r.Payload, data, d.Err())
		}
	})
}
