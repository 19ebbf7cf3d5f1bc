package msgs_test

import (
	"fmt"

	"github.com/afor-go/afor/ros/msgs/example_interfaces"
	"github.com/afor-go/afor/ros/msgs/sensor_msgs"
)

// Decoding a stream of large messages into the same value reuses its
// slices, so a steady stream of images decodes without allocating Data.
func Example_reuse() {
	src := sensor_msgs.Image{Height: 2, Width: 2, Encoding: "mono8", Step: 2, Data: []byte{1, 2, 3, 4}}
	var payload []byte
	var img sensor_msgs.Image
	for frame := range byte(3) {
		src.Data[0] = frame
		payload, _ = src.AppendCDR(payload[:0]) // reuse the payload buffer too
		if err := img.UnmarshalCDR(payload); err != nil {
			panic(err)
		}
		fmt.Println(img.Encoding, img.Data)
	}
	// Output:
	// mono8 [0 2 3 4]
	// mono8 [1 2 3 4]
	// mono8 [2 2 3 4]
}

// Services are zero-size types that name the service and give the codecs
// of its request and response messages.
func Example_service() {
	svc := example_interfaces.AddTwoInts{}
	req, err := svc.RequestCodec().Append(nil, example_interfaces.AddTwoIntsRequest{A: 2, B: 3})
	if err != nil {
		panic(err)
	}
	fmt.Println(svc.TypeName(), svc.DDSTypeName(), len(req))
	fmt.Println(svc.TypeHash())
	// Output:
	// example_interfaces/srv/AddTwoInts example_interfaces::srv::dds_::AddTwoInts_ 20
	// RIHS01_e118de6bf5eeb66a2491b5bda11202e7b68f198d6f67922cf30364858239c81a
}
