package cdr_test

import (
	"bytes"
	"slices"
	"testing"

	"github.com/afor-go/afor/ros/cdr"
	"github.com/afor-go/afor/ros/msgs/sensor_msgs"
	"github.com/afor-go/afor/ros/msgs/std_msgs"
)

// newImage returns a width x height image of the given encoding and bytes
// per pixel, its pixels a recognisable pattern.
func newImage(width, height int, encoding string, bpp int) *sensor_msgs.Image {
	img := &sensor_msgs.Image{
		Header:   std_msgs.Header{FrameID: "camera_optical_frame"},
		Height:   uint32(height),
		Width:    uint32(width),
		Encoding: encoding,
		Step:     uint32(width * bpp),
		Data:     make([]byte, width*height*bpp),
	}
	for i := range img.Data {
		img.Data[i] = byte(i * 7)
	}
	return img
}

// newCloud returns a PointCloud2 of n points of x, y, z, intensity
// float32s (16 bytes each).
func newCloud(n int) *sensor_msgs.PointCloud2 {
	c := &sensor_msgs.PointCloud2{
		Header: std_msgs.Header{FrameID: "lidar"},
		Height: 1, Width: uint32(n), PointStep: 16, RowStep: uint32(16 * n), IsDense: true,
		Data: make([]byte, 16*n),
	}
	for i, name := range []string{"x", "y", "z", "intensity"} {
		c.Fields = append(c.Fields, sensor_msgs.PointField{Name: name, Offset: uint32(4 * i), Datatype: sensor_msgs.PointFieldFloat32, Count: 1})
	}
	for i := range c.Data {
		c.Data[i] = byte(i * 13)
	}
	return c
}

func TestImageAliasOwnership(t *testing.T) {
	img := newImage(64, 48, "mono8", 1)
	for _, alias := range []bool{false, true} {
		payload, err := img.AppendCDR(nil)
		if err != nil {
			t.Fatal(err)
		}
		var got sensor_msgs.Image
		if alias {
			err = cdr.UnmarshalAlias(payload, &got)
		} else {
			err = cdr.Unmarshal(payload, &got)
		}
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got.Data, img.Data) || got.Encoding != "mono8" || got.Header.FrameID != img.Header.FrameID {
			t.Fatalf("alias=%v: decoded image differs", alias)
		}
		// The pixels are the payload's last bytes: overwrite them.
		for i := len(payload) - len(img.Data); i < len(payload); i++ {
			payload[i] = 0xAA
		}
		changed := got.Data[0] == 0xAA && got.Data[len(got.Data)-1] == 0xAA
		if changed != alias {
			t.Errorf("alias=%v: overwriting the payload changed the message: %v", alias, changed)
		}
		// Strings never alias.
		clear(payload)
		if got.Encoding != "mono8" || got.Header.FrameID != img.Header.FrameID {
			t.Errorf("alias=%v: strings changed with the payload", alias)
		}
	}
}

func TestPointCloud2Alias(t *testing.T) {
	c := newCloud(1000)
	payload, err := c.AppendCDR(nil)
	if err != nil {
		t.Fatal(err)
	}
	var got sensor_msgs.PointCloud2
	if err := cdr.UnmarshalAlias(payload, &got); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got.Data, c.Data) || !slices.Equal(got.Fields, c.Fields) || !got.IsDense {
		t.Fatal("decoded cloud differs")
	}
	// Data aliases the payload: it ends just before is_dense.
	if &got.Data[len(got.Data)-1] != &payload[len(payload)-2] {
		t.Error("PointCloud2.Data does not alias the payload")
	}
}

// A large message is appended to a reused buffer without allocating, and
// to a fresh one with its data copied once (one allocation of the payload's
// size, not a series of doublings).
func TestLargeAppendCopiesOnce(t *testing.T) {
	img := newImage(1280, 720, "mono8", 1)
	buf, err := img.AppendCDR(nil)
	if err != nil {
		t.Fatal(err)
	}
	if n := testing.AllocsPerRun(5, func() { buf, _ = img.AppendCDR(buf[:0]) }); n != 0 {
		t.Errorf("AppendCDR to a reused buffer: %v allocations", n)
	}
	res := testing.Benchmark(func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := img.AppendCDR(nil); err != nil {
				b.Fatal(err)
			}
		}
	})
	if per := res.AllocedBytesPerOp(); per > int64(len(buf))+64<<10 {
		t.Errorf("AppendCDR(nil) of a %d-byte payload allocates %d bytes", len(buf), per)
	}
}

func TestAliasCodec(t *testing.T) {
	img := newImage(16, 8, "mono8", 1)
	codec := cdr.AliasCodec[sensor_msgs.Image]()
	payload, err := codec.Append(nil, *img)
	if err != nil {
		t.Fatal(err)
	}
	got, err := codec.Decode(payload)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got.Data, img.Data) || !codec.KeepsPayload() || codec.TypeName() != "sensor_msgs/msg/Image" {
		t.Fatalf("decoded %d bytes, KeepsPayload %v, type %q", len(got.Data), codec.KeepsPayload(), codec.TypeName())
	}
	if &got.Data[len(got.Data)-1] != &payload[len(payload)-1] {
		t.Error("AliasCodec's Decode copied the pixels")
	}
	if _, err := codec.Decode(payload[:10]); err == nil {
		t.Error("a truncated payload decoded")
	}
}
