package rossync_test

import (
	"context"
	"fmt"
	"log"
	"time"

	"github.com/afor-go/afor/msgsync"
	"github.com/afor-go/afor/msgsync/rossync"
	"github.com/afor-go/afor/ros"
	"github.com/afor-go/afor/ros/msgs/sensor_msgs"
)

// A node pairs each camera image with its camera info by header stamp.
// (The in-memory middleware stands for DDS here; the code is the same.)
func ExampleIn() {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	mw := ros.WithMiddleware(ros.Memory(ros.NewMemoryNetwork()))
	node, err := ros.NewNode(ctx, "viewer", mw)
	if err != nil {
		log.Fatal(err)
	}
	defer node.Close()
	images, err := ros.Subscribe[sensor_msgs.Image](node, "camera/image_raw", ros.QoSSensorData)
	if err != nil {
		log.Fatal(err)
	}
	infos, err := ros.Subscribe[sensor_msgs.CameraInfo](node, "camera/camera_info", ros.QoSSensorData)
	if err != nil {
		log.Fatal(err)
	}
	pairs := msgsync.Exact(rossync.In(images), rossync.In(infos))
	defer pairs.Close()
	pairs.OnInput(func(p msgsync.Pair[sensor_msgs.Image, sensor_msgs.CameraInfo]) {
		fmt.Printf("%dx%d image with K[0]=%v at %v\n", p.A.Width, p.A.Height, p.B.K[0], rossync.Stamp(p.A.Header).Unix())
	})

	// A camera driver, elsewhere.
	camera, err := ros.NewNode(ctx, "camera", mw)
	if err != nil {
		log.Fatal(err)
	}
	defer camera.Close()
	imagePub, err := ros.NewPublisher[sensor_msgs.Image](camera, "camera/image_raw", ros.QoSSensorData)
	if err != nil {
		log.Fatal(err)
	}
	infoPub, err := ros.NewPublisher[sensor_msgs.CameraInfo](camera, "camera/camera_info", ros.QoSSensorData)
	if err != nil {
		log.Fatal(err)
	}
	for sec := int32(1); sec <= 2; sec++ {
		img := sensor_msgs.Image{Width: 640, Height: 480}
		img.Header.Stamp.Sec = sec
		info := sensor_msgs.CameraInfo{K: [9]float64{525}}
		info.Header.Stamp.Sec = sec
		_ = imagePub.Publish(ctx, &img)
		_ = infoPub.Publish(ctx, &info)
	}
	// Output:
	// 640x480 image with K[0]=525 at 1
	// 640x480 image with K[0]=525 at 2
}
