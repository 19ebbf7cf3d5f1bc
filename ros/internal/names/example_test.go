package names_test

import (
	"fmt"

	"github.com/afor-go/afor/ros/internal/names"
)

func ExampleResolve() {
	args, err := names.ParseArgs([]string{"--ros-args", "-r", "chatter:=speech", "-r", "__ns:=/robot1"})
	if err != nil {
		panic(err)
	}
	ns := names.Namespace(args.Rules, "talker", "/")
	for _, n := range []string{"chatter", "~/status", "{node}/odom", "/abs"} {
		full, _ := names.Resolve(args.Rules, n, "talker", ns, false)
		fmt.Println(n, "->", full)
	}
	_, err = names.Resolve(nil, "2fast", "talker", "/", false)
	fmt.Println(err)
	_, err = names.Resolve(nil, "{ns}/x", "talker", "/", false)
	fmt.Println(err)
	// Output:
	// chatter -> /robot1/speech
	// ~/status -> /robot1/talker/status
	// {node}/odom -> /robot1/talker/odom
	// /abs -> /abs
	// invalid topic or service name "2fast": must not start with a number (at index 0)
	// invalid topic or service name "{ns}/x": must not contain '//' once expanded to "//x"
}
