package rossync_test

import (
	"testing"
	"time"

	"github.com/afor-go/afor/msgsync/rossync"
	"github.com/afor-go/afor/ros/msgs/builtin_interfaces"
	"github.com/afor-go/afor/ros/msgs/sensor_msgs"
	"github.com/afor-go/afor/ros/msgs/std_msgs"
)

func TestHeaderStamp(t *testing.T) {
	stamp := rossync.HeaderStamp[sensor_msgs.Imu]()
	m := sensor_msgs.Imu{Header: std_msgs.Header{Stamp: builtin_interfaces.Time{Sec: 1_700_000_000, Nanosec: 999_999_999}}}
	want := time.Unix(1_700_000_000, 999_999_999)
	if got := stamp(m); !got.Equal(want) {
		t.Errorf("HeaderStamp = %v, want %v", got, want)
	}
	if got := rossync.Stamp(m.Header); !got.Equal(want) {
		t.Errorf("Stamp = %v, want %v", got, want)
	}
	if n := testing.AllocsPerRun(100, func() { m.Header.Stamp.Nanosec--; _ = stamp(m) }); n != 0 {
		t.Errorf("HeaderStamp allocates %v times a call", n)
	}
	// Negative seconds (before 1970) come out as ROS means them.
	if got := rossync.Time(builtin_interfaces.Time{Sec: -2, Nanosec: 500_000_000}); !got.Equal(time.Unix(-2, 500_000_000)) {
		t.Errorf("Time(-2 s + 0.5 s) = %v", got)
	}
}

func TestHeaderStampPanics(t *testing.T) {
	for name, f := range map[string]func(){
		"no header":  func() { rossync.HeaderStamp[std_msgs.String]() },
		"not struct": func() { rossync.HeaderStamp[int]() },
		"wrong type": func() { rossync.HeaderStamp[struct{ Header int }]() },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic", name)
				}
			}()
			f()
		}()
	}
}
