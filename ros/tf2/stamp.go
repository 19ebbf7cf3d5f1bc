package tf2

import (
	"time"

	"github.com/afor-go/afor/ros/msgs/builtin_interfaces"
)

// stampOf maps a lookup time to nanoseconds of ROS time; Latest and time
// zero map to 0.
func stampOf(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixNano()
}

// StampTime converts a message stamp to a time.Time (ROS time zero, the
// Latest of lookups, is time.Unix(0, 0)).
func StampTime(s builtin_interfaces.Time) time.Time {
	return time.Unix(int64(s.Sec), int64(s.Nanosec))
}

// TimeStamp converts t to a message stamp; [Latest] (the zero time.Time)
// is ROS time zero.
func TimeStamp(t time.Time) builtin_interfaces.Time { return stampMsg(stampOf(t)) }

func stampMsg(ns int64) builtin_interfaces.Time {
	sec, nsec := ns/1e9, ns%1e9
	if nsec < 0 {
		sec, nsec = sec-1, nsec+1e9
	}
	return builtin_interfaces.Time{Sec: int32(sec), Nanosec: uint32(nsec)}
}

func nsOf(s builtin_interfaces.Time) int64 { return int64(s.Sec)*1e9 + int64(s.Nanosec) }
