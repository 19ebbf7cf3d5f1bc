package ros

import (
	"bytes"
	"testing"

	"github.com/afor-go/afor/ros/internal/rmw"
	"github.com/afor-go/afor/ros/msgs/sensor_msgs"
)

// A subscription's decoder aliases a payload the middleware hands over
// (Stable) and copies any other, which the middleware reuses.
func TestDecoderAliasesStablePayloads(t *testing.T) {
	src := sensor_msgs.Image{Height: 2, Width: 3, Encoding: "mono8", Step: 3, Data: []byte{1, 2, 3, 4, 5, 6}}
	for _, stable := range []bool{false, true} {
		payload, err := src.AppendCDR(nil)
		if err != nil {
			t.Fatal(err)
		}
		var d decoder[sensor_msgs.Image, *sensor_msgs.Image]
		got, err := d.decode(rmw.Message{Payload: payload, Stable: stable})
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got.Data, src.Data) || got.Encoding != "mono8" {
			t.Fatalf("stable=%v: decoded %+v", stable, got)
		}
		aliases := &got.Data[len(got.Data)-1] == &payload[len(payload)-1]
		if aliases != stable {
			t.Errorf("stable=%v: Data aliases the payload: %v", stable, aliases)
		}
		// The middleware reusing a buffer it did not hand over must not
		// change a delivered message.
		clear(payload)
		if !stable && !bytes.Equal(got.Data, src.Data) {
			t.Error("a copied message changed with the middleware's buffer")
		}
		// The next decode does not write into what was handed out.
		kept := got
		other := src
		other.Data = []byte{9, 9, 9, 9, 9, 9}
		payload2, _ := other.AppendCDR(nil)
		if _, err := d.decode(rmw.Message{Payload: payload2, Stable: stable}); err != nil {
			t.Fatal(err)
		}
		if kept.Data[0] == 9 {
			t.Errorf("stable=%v: decoding the next message wrote into the previous one", stable)
		}
	}
}
