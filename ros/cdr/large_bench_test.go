package cdr_test

import (
	"testing"

	"github.com/afor-go/afor/ros/cdr"
	"github.com/afor-go/afor/ros/msgs/sensor_msgs"
)

// BenchmarkLarge decodes and encodes large messages, against the
// primitives underneath: copy (the bytes into a buffer that exists) and
// clone (into a new one, as a decode that owns its result must).
//
//	go test -run XXX -bench Large -benchmem ./ros/cdr
func BenchmarkLarge(b *testing.B) {
	cases := []struct {
		name  string
		msg   cdr.Message
		fresh func() cdr.Message
	}{
		{"mono8-1280x720", newImage(1280, 720, "mono8", 1), func() cdr.Message { return new(sensor_msgs.Image) }},
		{"rgb8-1920x1080", newImage(1920, 1080, "rgb8", 3), func() cdr.Message { return new(sensor_msgs.Image) }},
		{"cloud-65536pt", newCloud(65536), func() cdr.Message { return new(sensor_msgs.PointCloud2) }},
	}
	for _, c := range cases {
		payload, err := c.msg.AppendCDR(nil)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(c.name+"/copy", func(b *testing.B) {
			dst := make([]byte, len(payload))
			b.SetBytes(int64(len(payload)))
			for b.Loop() {
				copy(dst, payload)
			}
		})
		b.Run(c.name+"/clone", func(b *testing.B) {
			b.SetBytes(int64(len(payload)))
			var keep []byte
			for b.Loop() {
				keep = append([]byte(nil), payload...)
			}
			_ = keep
		})
		b.Run(c.name+"/decode", func(b *testing.B) {
			b.SetBytes(int64(len(payload)))
			for b.Loop() {
				if err := c.fresh().UnmarshalCDR(payload); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(c.name+"/decode-reuse", func(b *testing.B) {
			m := c.fresh()
			b.SetBytes(int64(len(payload)))
			for b.Loop() {
				if err := m.UnmarshalCDR(payload); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(c.name+"/decode-alias", func(b *testing.B) {
			b.SetBytes(int64(len(payload)))
			for b.Loop() {
				if err := cdr.UnmarshalAlias(payload, c.fresh()); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(c.name+"/append-reuse", func(b *testing.B) {
			buf := make([]byte, 0, len(payload))
			b.SetBytes(int64(len(payload)))
			for b.Loop() {
				buf, _ = c.msg.AppendCDR(buf[:0])
			}
		})
		b.Run(c.name+"/append-nil", func(b *testing.B) {
			b.SetBytes(int64(len(payload)))
			for b.Loop() {
				if _, err := c.msg.AppendCDR(nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
