package rmwzenoh

import (
	"bufio"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/afor-go/afor"
	"github.com/afor-go/afor/ros/internal/rmw"
	"github.com/afor-go/afor/transport/zenoh"
)

// EnvRMWZenohPython names a launcher that runs Python with rclpy on a real
// rmw_zenoh_cpp.
const EnvRMWZenohPython = "AFOR_RMW_ZENOH_PYTHON"

// rclEvent is one JSON line of testdata/rclpy_peer.py.
type rclEvent struct {
	Ev       string              `json:"ev"`
	RMW      string              `json:"rmw"`
	Topic    string              `json:"topic"`
	Data     string              `json:"data"`
	Success  bool                `json:"success"`
	Message  string              `json:"message"`
	Error    string              `json:"error"`
	Nodes    []string            `json:"nodes"`
	Topics   map[string][]string `json:"topics"`
	Services map[string][]string `json:"services"`
}

// TestInteropRealRMWZenoh runs an rclpy node on a real rmw_zenoh_cpp next to
// a Go node, both linked to a Rust Zenoh router: topics, services and
// transient-local history both ways, and each side's graph.
//
// It is skipped unless AFOR_RMW_ZENOH_PYTHON names a launcher: an
// executable that runs the Python it is given arguments for with rclpy on
// rmw_zenoh_cpp. No ROS apt repository is needed; build rmw_zenoh_cpp
// 0.6.6 against zenoh-c/zenoh-cpp 1.6.2 into a venv holding the Kilted
// rclpy wheels, as /work/shared/notes/rmw-zenoh-captured.md §9 describes,
// then write the launcher as a shell script:
//
//	#!/bin/sh
//	V=/path/to/venv
//	export RMW_IMPLEMENTATION=rmw_zenoh_cpp AMENT_PREFIX_PATH=$V
//	export LD_LIBRARY_PATH=$V/lib:$(ls -d $V/lib/python3*/site-packages/ros_*.libs | tr '\n' :)
//	export LD_PRELOAD=$V/lib/librmw_zenoh_cpp.so
//	exec $V/bin/python "$@"
//
// The test passes the router's endpoint to rmw_zenoh through
// ZENOH_CONFIG_OVERRIDE.
func TestInteropRealRMWZenoh(t *testing.T) {
	launcher := os.Getenv(EnvRMWZenohPython)
	if launcher == "" {
		t.Skipf("set %s to a launcher of Python with rclpy on rmw_zenoh_cpp (see this test's doc comment)", EnvRMWZenohPython)
	}
	ep := startRouter(t)
	ctx := testCtx(t)
	s, err := Open(ctx, Config{Zenoh: zenoh.Config{Mode: zenoh.ModeClient, Connect: []string{ep}}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	n := mustNode(t, s, "/", "go_peer")
	goChatter, err := n.CreatePublisher("/go_chatter", stringType, depth10)
	if err != nil {
		t.Fatal(err)
	}
	tl := rmw.QoS{Depth: 5, Durability: rmw.DurabilityTransientLocal}
	goLatched, err := n.CreatePublisher("/go_latched", stringType, tl)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		if err := goLatched.Publish(ctx, cdrString(fmt.Sprintf("go latched %d", i))); err != nil {
			t.Fatal(err)
		}
	}
	fromPy := make(chan string, 64)
	if _, err := n.CreateSubscription("/py_chatter", stringType, depth10, func(m rmw.Message) {
		if v, ok := parseCDRString(m.Payload); ok {
			fromPy <- v
		}
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := n.CreateService("/go_set_flag", setBoolType, depth10, func(r rmw.Request) {
		flag := len(r.Payload) > 4 && r.Payload[4] != 0
		go func() { _ = r.Reply(setBoolResponse(flag, fmt.Sprintf("go got %v", flag)), nil) }()
	}); err != nil {
		t.Fatal(err)
	}
	cl, err := n.CreateClient("/py_set_flag", setBoolType, depth10)
	if err != nil {
		t.Fatal(err)
	}

	// Start the rclpy node.
	cmd := exec.Command(launcher, "testdata/rclpy_peer.py")
	cmd.Env = append(os.Environ(), "ROS_DOMAIN_ID=0",
		`ZENOH_CONFIG_OVERRIDE=connect/endpoints=["`+ep+`"];listen/endpoints=["tcp/127.0.0.1:0"]`)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	events := make(chan rclEvent, 256)
	exited := make(chan struct{})
	go func() {
		defer close(exited)
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			var ev rclEvent
			if json.Unmarshal(sc.Bytes(), &ev) == nil && ev.Ev != "" {
				events <- ev
			}
		}
		_, _ = io.Copy(io.Discard, stdout)
	}()
	defer func() {
		_ = stdin.Close()
		select {
		case <-exited:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			<-exited
		}
		_ = cmd.Wait()
	}()
	send := func(c map[string]any) {
		b, _ := json.Marshal(c)
		if _, err := stdin.Write(append(b, '\n')); err != nil {
			t.Fatal(err)
		}
	}
	next := func(ev string) rclEvent {
		t.Helper()
		for {
			select {
			case e := <-events:
				if e.Ev == ev {
					return e
				}
			case <-exited:
				t.Fatalf("rclpy node exited waiting for %q", ev)
			case <-ctx.Done():
				t.Fatalf("no %q from the rclpy node", ev)
			}
		}
	}
	if r := next("ready"); r.RMW != "rmw_zenoh_cpp" {
		t.Fatalf("rclpy runs on %q, not rmw_zenoh_cpp", r.RMW)
	}

	// The Go graph lists the rclpy node and its endpoints with types.
	waitGraph(t, s, "the rclpy node", func(g *rmw.Graph) bool {
		has := func(kind rmw.EndpointKind, name, typ string) bool {
			return slices.ContainsFunc(g.Endpoints, func(e rmw.Endpoint) bool {
				return e.Kind == kind && e.Name == name && e.Type == typ && e.Node.Name == "py_peer"
			})
		}
		return slices.Contains(g.Nodes, rmw.NodeName{Namespace: "/", Name: "py_peer", Enclave: "/"}) &&
			has(rmw.KindPublisher, "/py_chatter", "std_msgs/msg/String") &&
			has(rmw.KindSubscription, "/go_chatter", "std_msgs/msg/String") &&
			has(rmw.KindService, "/py_set_flag", "std_srvs/srv/SetBool")
	})

	// rclpy -> Go, until the rclpy publisher has matched the subscription.
	tick := time.NewTicker(200 * time.Millisecond)
	defer tick.Stop()
	for got := false; !got; {
		send(map[string]any{"op": "pub", "data": "hello go"})
		select {
		case v := <-fromPy:
			got = v == "hello go"
		case <-tick.C:
		case <-ctx.Done():
			t.Fatal("no message from rclpy")
		}
	}
	// Go -> rclpy.
	for got := false; !got; {
		if err := goChatter.Publish(ctx, cdrString("hello py")); err != nil {
			t.Fatal(err)
		}
		select {
		case e := <-events:
			got = e.Ev == "msg" && e.Topic == "go_chatter" && e.Data == "hello py"
		case <-tick.C:
		case <-ctx.Done():
			t.Fatal("no message to rclpy")
		}
	}
	// Services both ways.
	send(map[string]any{"op": "call", "data": true})
	if r := next("reply"); r.Error != "" || !r.Success || r.Message != "go got true" {
		t.Fatalf("rclpy -> Go service: %+v", r)
	}
	if err := cl.WaitReady(ctx); err != nil {
		t.Fatal(err)
	}
	res, err := afor.NewClient[[]byte, []byte](cl).Call(ctx, []byte{0, 1, 0, 0, 1})
	if err != nil {
		t.Fatal(err)
	}
	if ok, msg := parseSetBoolResponse(res); !ok || msg != "py got True" {
		t.Fatalf("Go -> rclpy service: %v %q (%x)", ok, msg, res)
	}
	// Transient local both ways: late joiners get the history.
	var late []string
	if _, err := n.CreateSubscription("/py_latched", stringType, tl, func(m rmw.Message) {
		if v, ok := parseCDRString(m.Payload); ok {
			fromPy <- v
		}
	}); err != nil {
		t.Fatal(err)
	}
	for len(late) < 3 {
		select {
		case v := <-fromPy:
			if strings.HasPrefix(v, "py latched") {
				late = append(late, v)
			}
		case <-ctx.Done():
			t.Fatalf("rclpy history: got %q", late)
		}
	}
	if !slices.Equal(late, []string{"py latched 0", "py latched 1", "py latched 2"}) {
		t.Fatalf("rclpy history %q", late)
	}
	send(map[string]any{"op": "sub_latched"})
	late = late[:0]
	for len(late) < 3 {
		if e := next("msg"); e.Topic == "go_latched" {
			late = append(late, e.Data)
		}
	}
	if !slices.Equal(late, []string{"go latched 0", "go latched 1", "go latched 2"}) {
		t.Fatalf("Go history at rclpy %q", late)
	}
	// The rclpy graph lists the Go node, its topics and services.
	send(map[string]any{"op": "graph"})
	g := next("graph")
	if !slices.Contains(g.Nodes, "/|go_peer") || !slices.Contains(g.Topics["/go_chatter"], "std_msgs/msg/String") ||
		!slices.Contains(g.Services["/go_set_flag"], "std_srvs/srv/SetBool") {
		t.Fatalf("rclpy graph %+v", g)
	}
}

// cdrString is the CDR (little endian, with encapsulation) of a
// std_msgs/String.
func cdrString(s string) []byte {
	b := binary.LittleEndian.AppendUint32([]byte{0, 1, 0, 0}, uint32(len(s)+1))
	return append(append(b, s...), 0)
}

// parseCDRString reads a std_msgs/String written by cdrString.
func parseCDRString(b []byte) (string, bool) {
	if len(b) < 9 {
		return "", false
	}
	n := binary.LittleEndian.Uint32(b[4:8])
	if n == 0 || uint64(len(b)) < 8+uint64(n) {
		return "", false
	}
	return string(b[8 : 8+n-1]), true
}

// setBoolResponse is the CDR of a std_srvs/SetBool response.
func setBoolResponse(ok bool, msg string) []byte {
	b := []byte{0, 1, 0, 0, 0, 0, 0, 0}
	if ok {
		b[4] = 1
	}
	b = binary.LittleEndian.AppendUint32(b, uint32(len(msg)+1))
	return append(append(b, msg...), 0)
}

// parseSetBoolResponse reads a std_srvs/SetBool response (padding not
// checked: Fast-CDR leaves it unzeroed).
func parseSetBoolResponse(b []byte) (bool, string) {
	if len(b) < 13 {
		return false, ""
	}
	n := binary.LittleEndian.Uint32(b[8:12])
	if n == 0 || uint64(len(b)) < 12+uint64(n) {
		return false, ""
	}
	return b[4] != 0, string(b[12 : 12+n-1])
}

func TestCDRHelpers(t *testing.T) {
	// The captured "hello 0" and SetBool reply payloads.
	if v, ok := parseCDRString([]byte("\x00\x01\x00\x00\x08\x00\x00\x00hello 0\x00")); !ok || v != "hello 0" {
		t.Fatalf("parseCDRString = %q %v", v, ok)
	}
	want := []byte("\x00\x01\x00\x00\x01\x00\x00\x00\x09\x00\x00\x00got True\x00")
	if got := setBoolResponse(true, "got True"); !slices.Equal(got, want) {
		t.Fatalf("setBoolResponse = %x", got)
	}
	if ok, msg := parseSetBoolResponse(want); !ok || msg != "got True" {
		t.Fatalf("parseSetBoolResponse = %v %q", ok, msg)
	}
}
