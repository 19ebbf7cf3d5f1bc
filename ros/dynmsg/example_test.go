package dynmsg_test

import (
	"fmt"
	"log"
	"strings"

	"github.com/afor-go/afor/ros/dynmsg"
)

// A message type known only by name: parse what a user typed, encode it
// for the wire, decode it back and print it as ros2 topic echo does.
func Example() {
	reg, err := dynmsg.NewRegistry() // the shipped interfaces
	if err != nil {
		log.Fatal(err)
	}
	twist, err := dynmsg.NewType(reg, "geometry_msgs/msg/Twist")
	if err != nil {
		log.Fatal(err)
	}
	m, err := twist.ParseYAML("{linear: {x: 0.5}, angular: {z: -1}}")
	if err != nil {
		log.Fatal(err)
	}
	payload, err := twist.Encode(m) // CDR, as ros2 topic pub sends it
	if err != nil {
		log.Fatal(err)
	}
	got, err := twist.Decode(payload)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Print(twist.FormatYAML(got, dynmsg.FormatOptions{TruncateLength: 128}))
	fmt.Println("---")
	// Output:
	// linear:
	//   x: 0.5
	//   y: 0.0
	//   z: 0.0
	// angular:
	//   x: 0.0
	//   y: 0.0
	//   z: -1.0
	// ---
}

// ParseYAML names the field and the type it expected.
func ExampleType_ParseYAML() {
	reg, _ := dynmsg.NewRegistry()
	str, _ := dynmsg.NewType(reg, "std_msgs/String")
	m, err := str.ParseYAML("data: hello")
	fmt.Println(m["data"], err)
	_, err = str.ParseYAML("{datta: hello}")
	fmt.Println(err)
	point, _ := dynmsg.NewType(reg, "geometry_msgs/msg/Point")
	_, err = point.ParseYAML("{x: abc}")
	fmt.Println(err)
	// Output:
	// hello <nil>
	// dynmsg: unknown field "datta" in std_msgs/msg/String: fields are: data
	// dynmsg: field x: "abc" is not a float64
}

// The options are those of ros2 topic echo.
func ExampleType_FormatYAML() {
	reg, _ := dynmsg.NewRegistry()
	scan, _ := dynmsg.NewType(reg, "sensor_msgs/msg/JointState")
	m, _ := scan.ParseYAML("{name: [shoulder, elbow], position: [0.1, 1e-5]}")
	fmt.Print(scan.FormatYAML(m, dynmsg.FormatOptions{}))
	fmt.Print(scan.FormatYAML(m, dynmsg.FormatOptions{NoArr: true}))
	// Output:
	// header:
	//   stamp:
	//     sec: 0
	//     nanosec: 0
	//   frame_id: ''
	// name:
	// - shoulder
	// - elbow
	// position:
	// - 0.1
	// - 1.0e-05
	// velocity: []
	// effort: []
	// header:
	//   stamp:
	//     sec: 0
	//     nanosec: 0
	//   frame_id: ''
	// name: '<sequence type: string, length: 2>'
	// position: '<sequence type: double, length: 2>'
	// velocity: '<sequence type: double, length: 0>'
	// effort: '<sequence type: double, length: 0>'
}

func ExampleType_FormatJSON() {
	reg, _ := dynmsg.NewRegistry()
	header, _ := dynmsg.NewType(reg, "std_msgs/msg/Header")
	m, _ := header.ParseYAML("{stamp: {sec: 12}, frame_id: map}")
	out, _ := header.FormatJSON(m)
	fmt.Println(string(out))
	// Output:
	// {"stamp":{"sec":12,"nanosec":0},"frame_id":"map"}
}

func ExampleServiceTypes() {
	reg, _ := dynmsg.NewRegistry()
	req, res, _ := dynmsg.ServiceTypes(reg, "example_interfaces/srv/AddTwoInts")
	fmt.Println(req.Name(), req.Fields())
	fmt.Println(res.Name(), res.Fields())
	// Output:
	// example_interfaces/srv/AddTwoInts_Request [a b]
	// example_interfaces/srv/AddTwoInts_Response [sum]
}

func ExampleShowInterface() {
	reg, _ := dynmsg.NewRegistry()
	text, _ := dynmsg.ShowInterface(reg, "geometry_msgs/msg/Vector3Stamped")
	fmt.Print(text)
	// Output:
	// std_msgs/Header header
	// 	builtin_interfaces/Time stamp
	// 		int32 sec
	// 		uint32 nanosec
	// 	string frame_id
	// Vector3 vector
	// 	float64 x
	// 	float64 y
	// 	float64 z
}

func ExampleListInterfaces() {
	reg, _ := dynmsg.NewRegistry()
	lines := dynmsg.ListInterfaces(reg)
	fmt.Println(strings.Join(lines[:3], "\n"))
	// Output:
	// Messages:
	//     action_msgs/msg/GoalInfo
	//     action_msgs/msg/GoalStatus
}

// FormatRepr prints what ros2 service call prints for a request or a
// response.
func ExampleType_FormatRepr() {
	reg, _ := dynmsg.NewRegistry()
	_, res, _ := dynmsg.ServiceTypes(reg, "std_srvs/srv/SetBool")
	fmt.Println(res.FormatRepr(dynmsg.Message{"success": true, "message": "it's set"}))
	arrays, _ := dynmsg.NewType(reg, "test_msgs/msg/Arrays")
	m, _ := arrays.ParseYAML("{float64_values: [0, 0.5, 100], int32_values: [1, -20, 300]}")
	text := arrays.FormatRepr(m)
	fmt.Println(text[strings.Index(text, "float64_values"):strings.Index(text, ", int8_values")])
	fmt.Println(text[strings.Index(text, "int32_values"):strings.Index(text, ", uint32_values")])
	// Output:
	// std_srvs.srv.SetBool_Response(success=True, message="it's set")
	// float64_values=array([  0. ,   0.5, 100. ])
	// int32_values=array([  1, -20, 300], dtype=int32)
}
