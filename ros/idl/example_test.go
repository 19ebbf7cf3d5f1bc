package idl_test

import (
	"errors"
	"fmt"

	"github.com/afor-go/afor/ros/idl"
)

func ExampleParseMessage() {
	src := []byte(`# A 2D point with a label.
uint8 KIND_A=1
float64 x
float64 y 1.5
string<=8 label "origin"
std_msgs/Header header
`)
	m, err := idl.ParseMessage("my_msgs", "Point2", src)
	if err != nil {
		panic(err)
	}
	fmt.Println(m.FullName())
	for _, c := range m.Constants {
		fmt.Printf("const %s %s = %d\n", c.Type, c.Name, c.Value.Uint)
	}
	for _, f := range m.Fields {
		fmt.Printf("%s %s", f.Type, f.Name)
		if f.Default != nil {
			fmt.Printf(" (default %s)", f.Default.Literal)
		}
		fmt.Println()
	}
	// Output:
	// my_msgs/msg/Point2
	// const uint8 KIND_A = 1
	// float64 x
	// float64 y (default 1.5)
	// string<=8 label (default "origin")
	// std_msgs/Header header
}

func ExampleParseMessage_error() {
	_, err := idl.ParseMessage("my_msgs", "Bad", []byte("int32 x\nint32 Y\n"))
	fmt.Println(err)
	fmt.Println(errors.Is(err, idl.ErrSyntax))
	// Output:
	// my_msgs/msg/Bad.msg:2:7: invalid field name "Y": use lower_snake_case starting with a letter, without double or trailing underscore
	// true
}

func ExampleRegistry_TypeHash() {
	r := idl.NewRegistry()
	for _, f := range []struct{ pkg, file, src string }{
		{"builtin_interfaces", "Time.msg", "int32 sec\nuint32 nanosec\n"},
		{"service_msgs", "ServiceEventInfo.msg", "uint8 event_type\nbuiltin_interfaces/Time stamp\nchar[16] client_gid\nint64 sequence_number\n"},
		{"example_interfaces", "AddTwoInts.srv", "int64 a\nint64 b\n---\nint64 sum\n"},
	} {
		if err := r.AddFile(f.pkg, f.file, []byte(f.src)); err != nil {
			panic(err)
		}
	}
	h, err := r.TypeHash("example_interfaces/srv/AddTwoInts")
	if err != nil {
		panic(err)
	}
	fmt.Println(h)
	// Output: RIHS01_e118de6bf5eeb66a2491b5bda11202e7b68f198d6f67922cf30364858239c81a
}

func ExampleAction_SendGoal() {
	a, err := idl.ParseAction("example_interfaces", "Fibonacci", []byte("int32 order\n---\nint32[] sequence\n---\nint32[] sequence\n"))
	if err != nil {
		panic(err)
	}
	s := a.SendGoal()
	fmt.Println(s.FullName())
	for _, f := range s.Request.Fields {
		fmt.Println(" ", f.Type.FullName(), f.Name)
	}
	// Output:
	// example_interfaces/action/Fibonacci_SendGoal
	//   unique_identifier_msgs/msg/UUID goal_id
	//   example_interfaces/action/Fibonacci_Goal goal
}
