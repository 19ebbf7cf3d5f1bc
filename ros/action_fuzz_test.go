package ros

import (
	"context"
	"encoding/hex"
	"testing"

	"github.com/afor-go/afor/ros/internal/rmw"
	"github.com/afor-go/afor/ros/msgs/example_interfaces"
)

// FuzzActionWire feeds arbitrary bytes to every decoder of an action's
// messages and to the server's three request handlers: errors, never
// panics; a malformed request gets an error reply.
func FuzzActionWire(f *testing.F) {
	w := newActionWire(example_interfaces.Fibonacci{})
	id := GoalID{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}
	seeds := [][]byte{nil, {0, 1, 0, 0}, {0, 1, 0, 0, 0xff, 0xff, 0xff, 0x7f}}
	add := func(b []byte, err error) {
		if err != nil {
			f.Fatal(err)
		}
		seeds = append(seeds, b)
	}
	add(w.appendSendGoalRequest(nil, id, &example_interfaces.FibonacciGoal{Order: 6}))
	add(appendSendGoalResponse(nil, true, actionTime(actionStamp(testStamp))))
	add(appendGetResultRequest(nil, id))
	add(w.appendGetResultResponse(nil, StatusSucceeded, &example_interfaces.FibonacciResult{Sequence: []int32{0, 1, 1}}))
	add(w.appendFeedback(nil, id, &example_interfaces.FibonacciFeedback{Sequence: []int32{0, 1}}))
	// The get_result reply of the rmw_zenoh capture (§4 of the note).
	captured, _ := hex.DecodeString("0001000004550000070000000000000001000000010000000200000003000000050000000800000000")
	seeds = append(seeds, captured)
	for _, s := range seeds {
		f.Add(s)
	}

	net := NewMemoryNetwork()
	c, err := Open(context.Background(), WithMiddleware(Memory(net)))
	if err != nil {
		f.Fatal(err)
	}
	defer c.Close()
	n, err := c.NewNode("fuzz")
	if err != nil {
		f.Fatal(err)
	}
	srv, err := NewActionServer(n, "fibonacci", example_interfaces.Fibonacci{})
	if err != nil {
		f.Fatal(err)
	}
	defer srv.Close()
	f.Fuzz(func(t *testing.T, data []byte) {
		var g example_interfaces.FibonacciGoal
		var r example_interfaces.FibonacciResult
		var fb example_interfaces.FibonacciFeedback
		_, _ = w.decodeSendGoalRequest(data, &g)
		_, _, _ = w.decodeSendGoalResponse(data)
		_, _ = w.decodeGetResultRequest(data)
		_, _ = w.decodeGetResultResponse(data, &r)
		_, _ = w.decodeFeedback(data, &fb)
		for _, h := range []func(rmw.Request){srv.handleGetResult, srv.handleCancel, srv.handleSendGoal} {
			h(rmw.Request{Payload: data, Reply: func([]byte, error) error { return nil }})
		}
	})
}
