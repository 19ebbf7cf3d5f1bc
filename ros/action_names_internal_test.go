package ros

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
)

// TestActionNamesGolden checks what the middleware sees of an action
// server and client: the five names under "<action>/_action/", their
// types, RIHS01 hashes and QoS. The action_msgs hashes are those of the
// rmw_zenoh capture (rmw-zenoh-captured.md §4), the Fibonacci ones those
// rosidl computes for example_interfaces (checked in ros/msgs).
func TestActionNamesGolden(t *testing.T) {
	const (
		sendGoal   = "example_interfaces/action/Fibonacci_SendGoal RIHS01_d1a57fb2a4afe8c21e34fb10db206f16ce6729b28531141472df92277c55b557"
		getResult  = "example_interfaces/action/Fibonacci_GetResult RIHS01_1b0de0d5d29dc955d92f546706568428632771db13ec84c15ec1c1a59f424a57"
		feedback   = "example_interfaces/action/Fibonacci_FeedbackMessage RIHS01_c1de71afd52e49a89c53d8262366884185bc0a02f78ce051c4e46b0a7fe59bb2"
		cancelGoal = "action_msgs/srv/CancelGoal RIHS01_573d8b0a534451d7bc2ac8c5ffde8ac14b8593b7001175d0cd6516dcbeb8689a"
		status     = "action_msgs/msg/GoalStatusArray RIHS01_6c1684b00f177d37438febe6e709fc4e2b0d4248dca4854946f9ed8b30cda83e"
		services   = "keep_last(10), reliable, volatile"
		latched    = "keep_last(1), reliable, transient_local"
	)
	want := func(node string) []string {
		side := map[string][]string{
			"fib_server": {
				"publisher /ns/fibonacci/_action/feedback " + feedback + " " + services,
				"publisher /ns/fibonacci/_action/status " + status + " " + latched,
				"server /ns/fibonacci/_action/cancel_goal " + cancelGoal + " " + services,
				"server /ns/fibonacci/_action/get_result " + getResult + " " + services,
				"server /ns/fibonacci/_action/send_goal " + sendGoal + " " + services,
			},
			"fib_client": {
				"client /ns/fibonacci/_action/cancel_goal " + cancelGoal + " " + services,
				"client /ns/fibonacci/_action/get_result " + getResult + " " + services,
				"client /ns/fibonacci/_action/send_goal " + sendGoal + " " + services,
				"subscription /ns/fibonacci/_action/feedback " + feedback + " " + services,
				"subscription /ns/fibonacci/_action/status " + status + " " + latched,
			},
		}
		return side[node]
	}
	actionMiddlewares(t, func(t *testing.T, pair func() (*Node, *Node)) {
		sn, cn := pair()
		ctx := actionCtx(t)
		srv, err := NewActionServer(sn, "/ns/fibonacci", exampleFibonacci())
		if err != nil {
			t.Fatal(err)
		}
		defer srv.Close()
		cl, err := NewActionClient(cn, "/ns/fibonacci", exampleFibonacci())
		if err != nil {
			t.Fatal(err)
		}
		defer cl.Close()
		if srv.Name() != "/ns/fibonacci" || cl.Name() != "/ns/fibonacci" {
			t.Fatalf("names %q %q", srv.Name(), cl.Name())
		}
		for _, n := range []*Node{sn, cn} {
			var got []string
			_, err := n.Graph().WaitFor(ctx, func(g *GraphSnapshot) bool {
				got = actionEndpoints(g)
				return slices.Equal(got, append(want("fib_client"), want("fib_server")...))
			})
			if err != nil {
				t.Fatalf("%v sees:\n%s\nwant:\n%s", n, strings.Join(got, "\n"), strings.Join(append(want("fib_client"), want("fib_server")...), "\n"))
			}
		}
	})
}

// actionEndpoints lists the endpoints of the graph under /ns/fibonacci,
// by node, sorted, with the QoS policies an action sets (the liveliness a
// middleware reports by default is left out).
func actionEndpoints(g *GraphSnapshot) []string {
	var out []string
	for _, e := range g.Endpoints {
		if !strings.HasPrefix(e.Name, "/ns/fibonacci/") {
			continue
		}
		kind := map[EndpointKind]string{KindPublisher: "publisher", KindSubscription: "subscription", KindServer: "server", KindClient: "client"}[e.Kind]
		q := QoS{History: e.QoS.History, Depth: e.QoS.Depth, Reliability: e.QoS.Reliability, Durability: e.QoS.Durability}
		out = append(out, fmt.Sprintf("%s|%s %s %s %s %v", e.Node.Name, kind, e.Name, e.Type, e.TypeHash, q))
	}
	slices.Sort(out)
	for i, s := range out {
		out[i] = s[strings.IndexByte(s, '|')+1:]
	}
	return out
}

// TestActionNameRemapping: an action name is resolved in the node's
// namespace and remapped as a whole, as rcl_action does.
func TestActionNameRemapping(t *testing.T) {
	ctx := actionCtx(t)
	c, err := Open(ctx, WithMiddleware(Memory(NewMemoryNetwork())))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	n, err := c.NewNode("arm", WithNamespace("robot"), WithArgs([]string{"--ros-args", "-r", "move:=/planner/move"}))
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{"fibonacci": "/robot/fibonacci", "~/fib": "/robot/arm/fib", "move": "/planner/move"} {
		an, err := resolveActionNames(n, name)
		if err != nil {
			t.Fatal(err)
		}
		if an.action != want || an.sendGoal != want+"/_action/send_goal" || an.status != want+"/_action/status" {
			t.Errorf("%q resolves to %+v, want %s", name, an, want)
		}
	}
	if _, err := NewActionServer(n, "bad name", exampleFibonacci()); !errors.Is(err, ErrInvalidName) {
		t.Errorf("invalid action name: %v", err)
	}
	if _, err := NewActionClient(n, "", exampleFibonacci()); !errors.Is(err, ErrInvalidName) {
		t.Errorf("empty action name: %v", err)
	}
}
