package cdr_test

import (
	"fmt"

	"github.com/afor-go/afor/ros/cdr"
	"github.com/afor-go/afor/ros/msgs/geometry_msgs"
	"github.com/afor-go/afor/ros/msgs/sensor_msgs"
	"github.com/afor-go/afor/ros/msgs/std_msgs"
)

// A generated message encodes to the payload ROS 2 puts on the wire and
// decodes from it.
func ExampleMessage() {
	msg := std_msgs.String{Data: "hello 0"}
	payload, err := msg.AppendCDR(nil)
	if err != nil {
		panic(err)
	}
	fmt.Printf("% x\n", payload)

	var back std_msgs.String
	if err := back.UnmarshalCDR(payload); err != nil {
		panic(err)
	}
	fmt.Printf("%q %s %s\n", back.Data, back.TypeName(), back.DDSTypeName())
	// Output:
	// 00 01 00 00 08 00 00 00 68 65 6c 6c 6f 20 30 00
	// "hello 0" std_msgs/msg/String std_msgs::msg::dds_::String_
}

// Codec adapts a generated type to the byte transports of package afor,
// which take a codec with Append and Decode. Reusing the buffer passed to
// Append avoids allocation.
func ExampleCodec() {
	codec := cdr.Codec[geometry_msgs.Twist]()
	var buf []byte
	for _, speed := range []float64{0.5, 1.0} {
		var err error
		buf, err = codec.Append(buf[:0], geometry_msgs.Twist{Linear: geometry_msgs.Vector3{X: speed}})
		if err != nil {
			panic(err)
		}
		twist, err := codec.Decode(buf)
		if err != nil {
			panic(err)
		}
		fmt.Println(len(buf), twist.Linear.X)
	}
	fmt.Println(codec.TypeHash())
	// Output:
	// 52 0.5
	// 52 1
	// RIHS01_9c45bf16fe0983d80e3cfe750d6835843d265a9a6c46bd2e609fcddde6fb8d2a
}

// Encoder and Decoder are the building blocks of the generated methods; they
// can encode a structure by hand. Errors are sticky and reported once.
func ExampleEncoder() {
	e := cdr.NewEncoder(nil)
	e.Uint8(7)
	e.Float64(2.5) // aligned to 8 after the header
	cdr.AppendSequence(&e, []int16{1, -1}, 0)
	payload, err := e.Finish()
	if err != nil {
		panic(err)
	}
	fmt.Printf("% x\n", payload)

	d, err := cdr.NewDecoder(payload)
	if err != nil {
		panic(err)
	}
	a, b := d.Uint8(), d.Float64()
	s := cdr.DecodeSequence[int16](&d, nil, 0)
	fmt.Println(a, b, s, d.Err())

	d.Uint32() // past the end
	fmt.Println(d.Err())
	// Output:
	// 00 01 00 00 07 00 00 00 00 00 00 00 00 00 00 00 00 00 04 40 02 00 00 00 01 00 ff ff
	// 7 2.5 [1 -1] <nil>
	// cdr: truncated input: need 4 bytes at offset 24, have 0
}

// UnmarshalAlias decodes a large message without copying its pixels: the
// decoded Data is a view of the payload, which the caller hands over (it
// must not reuse it). A copying decode is independent of the payload.
func ExampleUnmarshalAlias() {
	img := sensor_msgs.Image{Height: 1, Width: 4, Encoding: "mono8", Step: 4, Data: []byte{10, 20, 30, 40}}
	payload, err := img.AppendCDR(nil)
	if err != nil {
		panic(err)
	}

	var view, copied sensor_msgs.Image
	if err := cdr.UnmarshalAlias(payload, &view); err != nil {
		panic(err)
	}
	if err := cdr.Unmarshal(payload, &copied); err != nil {
		panic(err)
	}
	payload[len(payload)-1] = 99 // the last pixel, in the payload
	fmt.Println(view.Data, copied.Data)
	// Output:
	// [10 20 30 99] [10 20 30 40]
}
