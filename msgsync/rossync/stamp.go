// Package rossync reads the stamps of ROS 2 messages for package msgsync,
// which synchronizes any afor sub and does not depend on package ros:
//
//	images, _ := ros.Subscribe[sensor_msgs.Image](node, "camera/image_raw", ros.QoSSensorData)
//	infos, _ := ros.Subscribe[sensor_msgs.CameraInfo](node, "camera/camera_info", ros.QoSSensorData)
//	pairs := msgsync.Exact(rossync.In(images), rossync.In(infos))
package rossync

import (
	"fmt"
	"reflect"
	"time"

	"github.com/afor-go/afor"
	"github.com/afor-go/afor/msgsync"
	"github.com/afor-go/afor/ros/msgs/builtin_interfaces"
	"github.com/afor-go/afor/ros/msgs/std_msgs"
)

// Time returns t as a time.Time.
func Time(t builtin_interfaces.Time) time.Time {
	return time.Unix(int64(t.Sec), int64(t.Nanosec))
}

// Stamp returns the stamp of h.
func Stamp(h std_msgs.Header) time.Time { return Time(h.Stamp) }

// HeaderStamp returns the function that reads the header stamp of a
// message of type T: a struct with a field Header of type
// [std_msgs.Header], as every generated message with a header has. It
// reads the field in place, without allocating. A T without such a field
// is a programming error: HeaderStamp panics.
func HeaderStamp[T any]() func(T) time.Time {
	t := reflect.TypeFor[T]()
	if t.Kind() != reflect.Struct {
		panic(fmt.Sprintf("rossync: HeaderStamp[%v]: not a struct", t))
	}
	f, ok := t.FieldByName("Header")
	if !ok || f.Type != reflect.TypeFor[std_msgs.Header]() {
		panic(fmt.Sprintf("rossync: HeaderStamp[%v]: no field Header of type std_msgs.Header", t))
	}
	header := f.Index
	stamp, _ := f.Type.FieldByName("Stamp")
	sec, _ := stamp.Type.FieldByName("Sec")
	nanosec, _ := stamp.Type.FieldByName("Nanosec")
	return func(m T) time.Time {
		s := reflect.ValueOf(&m).Elem().FieldByIndex(header).FieldByIndex(stamp.Index)
		return time.Unix(s.FieldByIndex(sec.Index).Int(), int64(s.FieldByIndex(nanosec.Index).Uint()))
	}
}

// In returns the msgsync input of sub, stamped by its messages' header
// (see [HeaderStamp]).
func In[T any](sub *afor.Sub[T]) msgsync.Input[T] {
	return msgsync.In(sub, HeaderStamp[T]())
}
