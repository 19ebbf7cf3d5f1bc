package msgs_test

import (
	"slices"
	"testing"

	"github.com/afor-go/afor/ros/cdr"
	"github.com/afor-go/afor/ros/msgs/builtin_interfaces"
	"github.com/afor-go/afor/ros/msgs/sensor_msgs"
	"github.com/afor-go/afor/ros/msgs/std_msgs"
)

// BenchmarkImage720p measures CDR encode and decode of a 1280x720 mono8
// sensor_msgs/Image next to the primitive underneath, a copy of the same
// 921600 bytes: copy between aligned buffers, copy from and into the offset
// the pixels have in the payload (compare with decode into a reused message
// and with encode into a reused buffer), and clone into a new slice
// (compare with decode into a new message, which must allocate its Data).
func BenchmarkImage720p(b *testing.B) {
	img := &sensor_msgs.Image{
		Header:   std_msgs.Header{Stamp: builtin_interfaces.Time{Sec: 1, Nanosec: 2}, FrameID: "camera"},
		Height:   720,
		Width:    1280,
		Encoding: "mono8",
		Step:     1280,
		Data:     make([]byte, 1280*720),
	}
	for i := range img.Data {
		img.Data[i] = byte(i)
	}
	payload, err := img.AppendCDR(nil)
	if err != nil {
		b.Fatal(err)
	}
	size := int64(len(img.Data))

	b.Run("copy", func(b *testing.B) {
		dst := make([]byte, len(img.Data))
		b.SetBytes(size)
		for b.Loop() {
			copy(dst, img.Data)
		}
	})
	// The same copy from where the pixels sit in the payload (56 bytes in,
	// so not 64-byte aligned): the memmove that decoding performs.
	b.Run("copy-from-payload", func(b *testing.B) {
		dst := make([]byte, len(img.Data))
		src := payload[len(payload)-len(img.Data):]
		b.SetBytes(size)
		for b.Loop() {
			copy(dst, src)
		}
	})
	// And into a payload buffer at that offset: the memmove of encoding.
	b.Run("copy-into-payload", func(b *testing.B) {
		dst := make([]byte, len(payload))
		off := len(payload) - len(img.Data)
		b.SetBytes(size)
		for b.Loop() {
			copy(dst[off:], img.Data)
		}
	})
	b.Run("encode", func(b *testing.B) {
		buf := make([]byte, 0, len(payload))
		b.SetBytes(size)
		b.ReportAllocs()
		for b.Loop() {
			buf, _ = img.AppendCDR(buf[:0])
		}
	})
	b.Run("decode-reuse", func(b *testing.B) {
		var out sensor_msgs.Image
		b.SetBytes(size)
		b.ReportAllocs()
		for b.Loop() {
			if err := out.UnmarshalCDR(payload); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("clone", func(b *testing.B) {
		b.SetBytes(size)
		b.ReportAllocs()
		for b.Loop() {
			_ = slices.Clone(img.Data)
		}
	})
	b.Run("decode-new", func(b *testing.B) {
		c := cdr.Codec[sensor_msgs.Image]()
		b.SetBytes(size)
		b.ReportAllocs()
		for b.Loop() {
			if _, err := c.Decode(payload); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkHeader measures a small nested message, std_msgs/Header, where
// per-call overhead dominates.
func BenchmarkHeader(b *testing.B) {
	h := &std_msgs.Header{Stamp: builtin_interfaces.Time{Sec: 1, Nanosec: 2}, FrameID: "base_link"}
	payload, _ := h.AppendCDR(nil)
	b.Run("encode", func(b *testing.B) {
		buf := make([]byte, 0, 64)
		b.ReportAllocs()
		for b.Loop() {
			buf, _ = h.AppendCDR(buf[:0])
		}
	})
	b.Run("decode", func(b *testing.B) {
		var out std_msgs.Header
		b.ReportAllocs()
		for b.Loop() {
			_ = out.UnmarshalCDR(payload)
		}
	})
	b.Run("codec-append", func(b *testing.B) {
		c := cdr.Codec[std_msgs.Header]()
		buf := make([]byte, 0, 64)
		b.ReportAllocs()
		for b.Loop() {
			buf, _ = c.Append(buf[:0], *h)
		}
	})
}
