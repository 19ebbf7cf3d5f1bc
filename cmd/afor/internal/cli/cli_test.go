package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"testing/fstest"
	"time"

	"github.com/afor-go/afor/ros"
	"github.com/afor-go/afor/ros/dynmsg"
	"github.com/afor-go/afor/ros/idl"
	"github.com/afor-go/afor/ros/msgs/example_interfaces"
	"github.com/afor-go/afor/ros/msgs/std_msgs"
	"github.com/afor-go/afor/ros/msgs/std_srvs"
)

// syncBuffer is a bytes.Buffer safe for a command writing while the test
// reads.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// world is a memory ROS network with a node of the test's, and the
// environment of commands that run on it.
type world struct {
	t    *testing.T
	net  *ros.MemoryNetwork
	node *ros.Node
}

func newWorld(t *testing.T) *world {
	t.Helper()
	net := ros.NewMemoryNetwork()
	n, err := ros.NewNode(context.Background(), "peer", ros.WithMiddleware(ros.Memory(net)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = n.Close() })
	return &world{t: t, net: net, node: n}
}

// run runs a command line to its end and returns its exit code, stdout
// and stderr.
func (w *world) run(ctx context.Context, args ...string) (int, string, string) {
	var out, errOut syncBuffer
	code := w.start(ctx, &out, &errOut, args...)()
	return code, out.String(), errOut.String()
}

// start starts a command line and returns a function waiting for its exit
// code.
func (w *world) start(ctx context.Context, out, errOut *syncBuffer, args ...string) func() int {
	env := Env{Stdout: out, Stderr: errOut, ROSOptions: []ros.Option{ros.WithMiddleware(ros.Memory(w.net))}}
	done := make(chan int, 1)
	go func() { done <- Run(ctx, env, append(args, "--spin-time", "20ms")) }()
	return func() int { return <-done }
}

func testCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func TestUsage(t *testing.T) {
	w := newWorld(t)
	ctx := testCtx(t)
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"bogus"}, 2, `unknown command "bogus"`},
		{[]string{"topic", "bogus"}, 2, `unknown command "topic bogus"`},
		{[]string{"topic", "echo"}, 2, "takes 1 to 2 argument(s)"},
		{[]string{"topic", "echo", "/a", "--bogus"}, 2, "flag provided but not defined: -bogus"},
		{[]string{"topic", "pub", "/a", "std_msgs/msg/String", "{data: x}", "--rate", "0"}, 2, "want a rate above 0 Hz"},
	} {
		code, _, errOut := w.run(ctx, c.args...)
		if code != c.code || !strings.Contains(errOut, c.want) {
			t.Errorf("%v: code %d, stderr %q; want %d and %q", c.args, code, errOut, c.code, c.want)
		}
	}
	code, out, _ := w.run(ctx, "topic", "echo", "-h")
	if code != 0 || !strings.Contains(out, "Usage: afor topic echo") || !strings.Contains(out, "-once") {
		t.Errorf("-h: code %d, %q", code, out)
	}
}

func TestTopicListInfoType(t *testing.T) {
	w := newWorld(t)
	ctx := testCtx(t)
	if _, err := ros.NewPublisher[std_msgs.String](w.node, "chatter", ros.QoSDefault); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := w.run(ctx, "topic", "list", "-t")
	if code != 0 || !strings.Contains(out, "/chatter [std_msgs/msg/String]\n") || strings.Contains(out, "_afor_cli") {
		t.Fatalf("topic list: %d %q %q", code, out, errOut)
	}
	code, out, _ = w.run(ctx, "topic", "type", "/chatter")
	if code != 0 || out != "std_msgs/msg/String\n" {
		t.Fatalf("topic type: %d %q", code, out)
	}
	code, out, _ = w.run(ctx, "topic", "info", "chatter")
	if code != 0 || out != "Type: std_msgs/msg/String\nPublisher count: 1\nSubscription count: 0\n" {
		t.Fatalf("topic info: %d %q", code, out)
	}
	code, out, _ = w.run(ctx, "topic", "info", "chatter", "-v")
	if code != 0 || !strings.Contains(out, "Node name: peer\nNode namespace: /\nTopic type: std_msgs/msg/String\n") ||
		!strings.Contains(out, "Endpoint type: PUBLISHER") || !strings.Contains(out, "History (Depth): KEEP_LAST (10)") {
		t.Fatalf("topic info -v: %d %q", code, out)
	}
	code, _, errOut = w.run(ctx, "topic", "info", "/nope")
	if code != 1 || !strings.Contains(errOut, "unknown topic /nope") {
		t.Fatalf("unknown topic: %d %q", code, errOut)
	}
}

func TestNodeListInfo(t *testing.T) {
	w := newWorld(t)
	ctx := testCtx(t)
	if _, err := ros.NewPublisher[std_msgs.String](w.node, "chatter", ros.QoSDefault); err != nil {
		t.Fatal(err)
	}
	if _, err := ros.NewActionServer(w.node, "fibonacci", example_interfaces.Fibonacci{}); err != nil {
		t.Fatal(err)
	}
	code, out, _ := w.run(ctx, "node", "list")
	if code != 0 || out != "/peer\n" {
		t.Fatalf("node list: %d %q", code, out)
	}
	code, out, _ = w.run(ctx, "node", "info", "/peer")
	if code != 0 || !strings.HasPrefix(out, "/peer\n  Subscribers:\n") || !strings.Contains(out, "    /chatter: std_msgs/msg/String\n") ||
		!strings.Contains(out, "  Action Servers:\n    /fibonacci: example_interfaces/action/Fibonacci\n") ||
		strings.Contains(out, "_action") {
		t.Fatalf("node info: %d %q", code, out)
	}
	code, out, _ = w.run(ctx, "action", "list", "-t")
	if code != 0 || out != "/fibonacci [example_interfaces/action/Fibonacci]\n" {
		t.Fatalf("action list: %d %q", code, out)
	}
}

func TestTopicPubEcho(t *testing.T) {
	w := newWorld(t)
	ctx := testCtx(t)
	sub, err := ros.Subscribe[std_msgs.String](w.node, "chatter", ros.QoSDefault)
	if err != nil {
		t.Fatal(err)
	}
	next := sub.ArmNext(ctx)
	code, out, errOut := w.run(ctx, "topic", "pub", "/chatter", "std_msgs/msg/String", "{data: 'hello world'}", "--once")
	if code != 0 {
		t.Fatalf("pub: %d %q", code, errOut)
	}
	if want := "publisher: beginning loop\npublishing #1: std_msgs.msg.String(data='hello world')\n\n"; out != want {
		t.Errorf("pub printed %q, want %q", out, want)
	}
	if m, err := next.Wait(ctx); err != nil || m.Data != "hello world" {
		t.Fatalf("received %q, %v", m.Data, err)
	}

	// Echo: the type comes from the graph.
	pub, err := ros.NewPublisher[std_msgs.String](w.node, "chatter", ros.QoSDefault)
	if err != nil {
		t.Fatal(err)
	}
	var eout, eerr syncBuffer
	wait := w.start(ctx, &eout, &eerr, "topic", "echo", "chatter", "--count", "2")
	// Publish until the echo's subscription has both messages.
	for i := 0; ; i++ {
		if strings.Count(eout.String(), "---") >= 2 {
			break
		}
		if err := pub.Publish(ctx, &std_msgs.String{Data: "hi"}); err != nil {
			t.Fatal(err)
		}
		select {
		case <-ctx.Done():
			t.Fatalf("echo printed %q %q", eout.String(), eerr.String())
		case <-time.After(10 * time.Millisecond):
		}
	}
	if code := wait(); code != 0 || eout.String() != "data: hi\n---\ndata: hi\n---\n" {
		t.Fatalf("echo: %d %q %q", code, eout.String(), eerr.String())
	}
}

func TestTopicErrors(t *testing.T) {
	w := newWorld(t)
	ctx := testCtx(t)
	code, _, errOut := w.run(ctx, "topic", "echo", "/nothing")
	if code != 1 || !strings.Contains(errOut, "/nothing is not published yet") {
		t.Errorf("echo unknown: %d %q", code, errOut)
	}
	code, _, errOut = w.run(ctx, "topic", "pub", "/a", "std_msgs/msg/Nope", "{}")
	if code != 1 || !strings.Contains(errOut, `unknown message type "std_msgs/msg/Nope"`) {
		t.Errorf("pub unknown type: %d %q", code, errOut)
	}
	code, _, errOut = w.run(ctx, "topic", "pub", "/a", "std_msgs/msg/String", "{nope: 1}", "--once")
	if code != 1 || !strings.Contains(errOut, "VALUES") {
		t.Errorf("pub bad values: %d %q", code, errOut)
	}
}

func TestServiceCall(t *testing.T) {
	w := newWorld(t)
	ctx := testCtx(t)
	srv, err := ros.NewServer(w.node, "set_flag", std_srvs.SetBool{})
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		for r := range srv.ListenReliable(ctx) {
			_ = r.Respond(std_srvs.SetBoolResponse{Success: r.Request.Data, Message: "it's set"})
		}
	}()
	code, out, errOut := w.run(ctx, "service", "call", "/set_flag", "std_srvs/srv/SetBool", "{data: true}")
	want := "requester: making request: std_srvs.srv.SetBool_Request(data=True)\n\nresponse:\nstd_srvs.srv.SetBool_Response(success=True, message=\"it's set\")\n\n"
	if code != 0 || out != want {
		t.Fatalf("service call: %d %q %q, want %q", code, out, errOut, want)
	}
	code, out, _ = w.run(ctx, "service", "list", "-t")
	if code != 0 || !strings.Contains(out, "/set_flag [std_srvs/srv/SetBool]\n") {
		t.Fatalf("service list: %d %q", code, out)
	}
	code, out, _ = w.run(ctx, "service", "type", "/set_flag")
	if code != 0 || out != "std_srvs/srv/SetBool\n" {
		t.Fatalf("service type: %d %q", code, out)
	}
}

func TestActionSendGoal(t *testing.T) {
	w := newWorld(t)
	ctx := testCtx(t)
	srv, err := ros.NewActionServer(w.node, "fibonacci", example_interfaces.Fibonacci{})
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		for g := range srv.ListenReliable(ctx) {
			if g.Accept() != nil {
				continue
			}
			seq := []int32{0, 1}
			for i := 1; i < int(g.Goal.Order); i++ {
				seq = append(seq, seq[i]+seq[i-1])
			}
			g.Succeed(example_interfaces.FibonacciResult{Sequence: seq})
		}
	}()
	code, out, errOut := w.run(ctx, "action", "send_goal", "/fibonacci", "example_interfaces/action/Fibonacci", "{order: 3}")
	if code != 0 || !strings.Contains(out, "Sending goal:\n     order: 3\n\n") || !strings.Contains(out, "Goal accepted with ID: ") ||
		!strings.Contains(out, "Result:\n    sequence:\n- 0\n- 1\n- 1\n- 2\n\nGoal finished with status: SUCCEEDED\n") {
		t.Fatalf("send_goal: %d %q %q", code, out, errOut)
	}
}

func TestParams(t *testing.T) {
	w := newWorld(t)
	ctx := testCtx(t)
	if _, err := w.node.DeclareParameter("speed", int64(5)); err != nil {
		t.Fatal(err)
	}
	if _, err := w.node.DeclareParameter("arm.names", []string{"a", "b"}); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := w.run(ctx, "param", "get", "/peer", "speed")
	if code != 0 || out != "Integer value is: 5\n" {
		t.Fatalf("param get: %d %q %q", code, out, errOut)
	}
	code, out, errOut = w.run(ctx, "param", "set", "/peer", "speed", "7")
	if code != 0 || out != "Set parameter successful\n" {
		t.Fatalf("param set: %d %q %q", code, out, errOut)
	}
	code, out, _ = w.run(ctx, "param", "list", "/peer")
	if code != 0 || out != "  arm.names\n  speed\n  start_type_description_service\n  use_sim_time\n" {
		t.Fatalf("param list: %d %q", code, out)
	}
	code, out, _ = w.run(ctx, "param", "dump", "/peer")
	want := "/peer:\n  ros__parameters:\n    arm:\n      names:\n      - a\n      - b\n    speed: 7\n    start_type_description_service: true\n    use_sim_time: false\n"
	if code != 0 || out != want {
		t.Fatalf("param dump: %d %q, want %q", code, out, want)
	}
	code, _, errOut = w.run(ctx, "param", "get", "/nobody", "x", "--timeout", "50ms")
	if code != 1 || !strings.Contains(errOut, "node /nobody not found") {
		t.Fatalf("param get of no node: %d %q", code, errOut)
	}
}

func TestCtrlCStopsLongCommands(t *testing.T) {
	w := newWorld(t)
	if _, err := ros.NewPublisher[std_msgs.String](w.node, "chatter", ros.QoSDefault); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"topic", "echo", "/chatter"},
		{"topic", "hz", "/chatter"},
		{"topic", "bw", "/chatter"},
		{"topic", "pub", "/chatter", "std_msgs/msg/String", "{data: x}", "--rate", "50"},
	} {
		ctx, cancel := context.WithCancel(context.Background())
		var out, errOut syncBuffer
		wait := w.start(ctx, &out, &errOut, args...)
		time.AfterFunc(100*time.Millisecond, cancel) // Ctrl-C, once it runs
		if code := wait(); code != 0 {
			t.Errorf("%v: exit code %d after Ctrl-C, stderr %q", args, code, errOut.String())
		}
		cancel()
	}
}

func TestInterfacesFolder(t *testing.T) {
	w := newWorld(t)
	ctx := testCtx(t)
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "my_pkg", "msg"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "my_pkg", "msg", "Thing.msg"), []byte("int32 a\nstring b\nfloat64[] c\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var eout, eerr syncBuffer
	wait := w.start(ctx, &eout, &eerr, "topic", "echo", "/thing", "my_pkg/msg/Thing", "--interfaces", dir, "--once")
	code, out, errOut := w.run(ctx, "topic", "pub", "/thing", "my_pkg/msg/Thing", "{a: 3, b: 'x y', c: [1.5]}", "--interfaces", dir, "--once")
	if code != 0 || !strings.Contains(out, "publishing #1: my_pkg.msg.Thing(a=3, b='x y', c=[1.5])\n") {
		t.Fatalf("pub: %d %q %q", code, out, errOut)
	}
	if code := wait(); code != 0 || eout.String() != "a: 3\nb: x y\nc:\n- 1.5\n---\n" {
		t.Fatalf("echo: %d %q %q", code, eout.String(), eerr.String())
	}
	code, out, _ = w.run(ctx, "interface", "show", "my_pkg/msg/Thing", "--interfaces", dir)
	if code != 0 || !strings.Contains(out, "int32 a\n") {
		t.Fatalf("interface show: %d %q", code, out)
	}
	code, _, errOut = w.run(ctx, "topic", "pub", "/thing", "my_pkg/msg/Thing", "{}", "--interfaces", filepath.Join(dir, "nope"))
	if code != 1 || !strings.Contains(errOut, "not a folder of interface packages") {
		t.Fatalf("bad --interfaces: %d %q", code, errOut)
	}
}

// topic echo of a type afor does not know: the publisher's node describes
// it (~/get_type_description), and echo decodes with that description once
// its hash is the one advertised; a publisher that cannot describe it
// leaves a clear error.
func TestEchoTypeDescribedByPublisher(t *testing.T) {
	w := newWorld(t)
	ctx := testCtx(t)
	defs := fstest.MapFS{"my_pkg/msg/Thing.msg": {Data: []byte("# a custom type\nint32 a\nstring b\nfloat64[] c\n")}}
	reg := idl.NewRegistry()
	if err := reg.LoadFS(defs); err != nil {
		t.Fatal(err)
	}
	typ, err := dynmsg.NewType(reg, "my_pkg/msg/Thing")
	if err != nil {
		t.Fatal(err)
	}
	payload, err := typ.Encode(dynmsg.Message{"a": int32(3), "b": "x y", "c": []float64{1.5}})
	if err != nil {
		t.Fatal(err)
	}
	publish := func(node *ros.Node, topic string) {
		t.Helper()
		pub, err := ros.NewRawPublisher(node, topic, ros.RawType{Name: "my_pkg/msg/Thing", Hash: typ.Hash()}, ros.QoSTransientLocal(1))
		if err != nil {
			t.Fatal(err)
		}
		if err := pub.Publish(ctx, payload); err != nil {
			t.Fatal(err)
		}
	}
	c, err := ros.Open(ctx, ros.WithMiddleware(ros.Memory(w.net)), ros.WithInterfaces(defs))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	knows, err := c.NewNode("knows")
	if err != nil {
		t.Fatal(err)
	}
	publish(knows, "/thing")
	code, out, errOut := w.run(ctx, "topic", "echo", "/thing", "--once")
	if code != 0 || out != "a: 3\nb: x y\nc:\n- 1.5\n---\n" {
		t.Fatalf("echo: %d %q %q", code, out, errOut)
	}
	publish(w.node, "/other") // a node without the definition
	code, _, errOut = w.run(ctx, "topic", "echo", "/other", "--once")
	if code != 1 || !strings.Contains(errOut, `unknown message type "my_pkg/msg/Thing"`) || !strings.Contains(errOut, "nor could its publishers describe it") ||
		!strings.Contains(errOut, "Failed to populate TypeDescription") {
		t.Fatalf("echo of an undescribed type: %d %q", code, errOut)
	}
}
