package rossync_test

import (
	"testing"
	"time"

	"github.com/afor-go/afor/msgsync/rossync"
	"github.com/afor-go/afor/ros/msgs/sensor_msgs"
)

var sinkTime time.Time

// BenchmarkHeaderStamp: the reflective stamp reader, against the same
// read written by hand.
func BenchmarkHeaderStamp(b *testing.B) {
	var m sensor_msgs.Imu
	b.Run("reflect", func(b *testing.B) {
		stamp := rossync.HeaderStamp[sensor_msgs.Imu]()
		b.ReportAllocs()
		for b.Loop() {
			m.Header.Stamp.Nanosec++
			sinkTime = stamp(m)
		}
	})
	b.Run("by hand", func(b *testing.B) {
		stamp := func(m sensor_msgs.Imu) time.Time { return rossync.Stamp(m.Header) }
		b.ReportAllocs()
		for b.Loop() {
			m.Header.Stamp.Nanosec++
			sinkTime = stamp(m)
		}
	})
}
