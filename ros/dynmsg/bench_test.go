package dynmsg_test

import (
	"testing"

	"github.com/afor-go/afor/ros/cdr"
	"github.com/afor-go/afor/ros/dynmsg"
	"github.com/afor-go/afor/ros/msgs/sensor_msgs"
	"github.com/afor-go/afor/ros/msgs/std_msgs"
)

// benchImage is a 640x480 rgb8 image: 921,600 bytes of data.
func benchImage() *sensor_msgs.Image {
	img := &sensor_msgs.Image{Height: 480, Width: 640, Encoding: "rgb8", Step: 640 * 3, Data: make([]byte, 640*480*3)}
	img.Header.FrameID = "camera"
	for i := range img.Data {
		img.Data[i] = byte(i)
	}
	return img
}

// The dynmsg decoder and encoder against the generated code of package
// msgs (the primitive underneath: straight-line calls, no maps), on a small
// and a large message.
func BenchmarkDecode(b *testing.B) {
	reg := registry(b)
	for _, c := range []struct {
		name string
		gen  cdr.Message
		into func() cdr.Message
	}{
		{"String", &std_msgs.String{Data: "hello world"}, func() cdr.Message { return &std_msgs.String{} }},
		{"Image", benchImage(), func() cdr.Message { return &sensor_msgs.Image{} }},
	} {
		data := mustMarshal(b, c.gen)
		typ := mustType(b, reg, c.gen.TypeName())
		b.Run(c.name+"/generated", func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				if err := c.into().UnmarshalCDR(data); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(c.name+"/dynmsg", func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := typ.Decode(data); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkEncode(b *testing.B) {
	reg := registry(b)
	for _, gen := range []cdr.Message{&std_msgs.String{Data: "hello world"}, benchImage()} {
		data := mustMarshal(b, gen)
		typ := mustType(b, reg, gen.TypeName())
		m, err := typ.Decode(data)
		if err != nil {
			b.Fatal(err)
		}
		name := "String"
		if _, ok := gen.(*sensor_msgs.Image); ok {
			name = "Image"
		}
		b.Run(name+"/generated", func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := gen.AppendCDR(nil); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(name+"/dynmsg", func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := typ.Encode(m); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// FormatYAML of an image as ros2 topic echo prints it by default
// (truncated to 128 elements).
func BenchmarkFormatYAMLImage(b *testing.B) {
	reg := registry(b)
	img := benchImage()
	typ := mustType(b, reg, img.TypeName())
	m, err := typ.Decode(mustMarshal(b, img))
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		_ = typ.FormatYAML(m, dynmsg.FormatOptions{TruncateLength: 128})
	}
}
