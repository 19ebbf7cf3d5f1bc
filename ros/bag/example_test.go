package bag_test

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/afor-go/afor/ros"
	"github.com/afor-go/afor/ros/bag"
	"github.com/afor-go/afor/ros/msgs/std_msgs"
)

// Write a bag as `ros2 bag record` does, then read it back.
func Example() {
	dir, _ := os.MkdirTemp("", "example")
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "my_bag")

	w, err := bag.Create(path, bag.WriterOptions{Compression: bag.CompressionZstd})
	if err != nil {
		panic(err)
	}
	msg := std_msgs.String{}
	_ = w.AddTopic(bag.Topic{Name: "/chatter", Type: msg.TypeName(), TypeHash: msg.TypeHash(),
		OfferedQoS: []bag.QoS{bag.QoSFromROS(ros.QoSDefault)}})
	start := time.Unix(1_700_000_000, 0)
	for i := range 3 {
		payload, _ := (&std_msgs.String{Data: fmt.Sprint("hello ", i)}).AppendCDR(nil)
		at := start.Add(time.Duration(i) * 100 * time.Millisecond)
		_ = w.Write("/chatter", at, at, uint32(i), payload)
	}
	if err := w.Close(); err != nil { // writes metadata.yaml
		panic(err)
	}

	r, err := bag.Open(path, bag.ReaderOptions{})
	if err != nil {
		panic(err)
	}
	defer r.Close()
	fmt.Println(r.Metadata().MessageCount, "messages over", r.Metadata().Duration)
	for m, err := range r.Messages(bag.ReadOptions{Topics: []string{"/chatter"}}) {
		if err != nil {
			panic(err)
		}
		s, _ := bag.Decode[std_msgs.String](m)
		fmt.Println(m.Received.Sub(start), s.Data)
	}
	// Output:
	// 3 messages over 200ms
	// 0s hello 0
	// 100ms hello 1
	// 200ms hello 2
}
