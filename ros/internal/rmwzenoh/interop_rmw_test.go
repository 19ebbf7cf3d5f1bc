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
	Infos    []struct {
		Node        string `json:"node"`
		Type        string `json:"type"`
		Reliability int    `json:"reliability"`
		Durability  int    `json:"durability"`
		Depth       int    `json:"depth"`
		DeadlineNS  int64  `json:"deadline_ns"`
	} `json:"infos"`
}

// TestInteropRealRMWZenoh runs an rclpy node on a real rmw_zenoh_cpp next to
// a Go node, both linked to a Rust Zenoh router: topics (small and
// fragmented), services and transient-local history both ways, each side's
// graph, and nothing the Go side received dropped or unparsed.
//
// It is skipped unless AFOR_RMW_ZENOH_PYTHON names a launcher: an
// executable that runs the Python it is given arguments for with rclpy on
// rmw_zenoh_cpp. No ROS apt repository is needed; this is how one was
// built (outside the repo, about 55 minutes on 2 shared cores, nearly all
// of it cargo):
//
//  1. A venv V (python3 -m venv) with the pinned wheels of
//     .ci/requirements-{rclpy,ros,zenoh,bench}.txt and ros-rcl-action
//     10.1.3, plus, for the build only, ros-ament-cmake 2.7.3,
//     ros-ament-cmake-include-directories, -gtest, -gmock, -pytest (2.7.3),
//     ros-ament-cmake-ros(-core) 0.14.5, ros-ament-cmake-vendor-package,
//     ros-ament-package 0.17.2, ros-rmw-test-fixture(-implementation) and
//     catkin_pkg; apt nlohmann-json3-dev and liblttng-ust-dev.
//  2. zenoh-c 1.6.2 (the commit zenoh_cpp_vendor 0.6.6 pins): in
//     Cargo.toml.in, Cargo.toml and build-resources/opaque-types/Cargo.toml
//     take zenoh, zenoh-ext, zenoh-runtime, zenoh-util and zenoh-protocol
//     from crates.io (1.6.2) instead of git; rust-toolchain.toml channel
//     stable; add static_init = { version = "1.0.3", features =
//     ["debug_order"] } to the opaque-types crate. Then cmake -S . -B .
//     -DCMAKE_BUILD_TYPE=Release -DZENOHC_BUILD_WITH_UNSTABLE_API=TRUE
//     -DZENOHC_CARGO_FLAGS=--features=shared-memory
//     -DCMAKE_INSTALL_PREFIX=$V, build and install.
//  3. zenoh-cpp 1.6.2 (header only): cmake with ZENOHCXX_ZENOHC,
//     ZENOHCXX_ZENOHPICO, ZENOHCXX_ENABLE_TESTS and ZENOHCXX_ENABLE_EXAMPLES
//     off, installed into $V.
//  4. A stub ament package zenoh_cpp_vendor 0.6.6 whose CMakeLists only
//     calls ament_export_dependencies(zenohc), (zenohcxx) and
//     ament_package(), installed into $V (the real one clones from GitHub).
//  5. rmw_zenoh_cpp 0.6.6 (ros2-gbp/rmw_zenoh-release, tag
//     release/kilted/rmw_zenoh_cpp/0.6.6-1): cmake -DCMAKE_BUILD_TYPE=Release
//     -DBUILD_TESTING=OFF -DCMAKE_PREFIX_PATH=$V -DCMAKE_INSTALL_PREFIX=$V
//     -DPython3_EXECUTABLE=$V/bin/python (with $V/bin first on PATH),
//     build and install.
//
// Then write the launcher as a shell script (LD_PRELOAD because the rclpy
// wheels link rmw_fastrtps_cpp directly):
//
//	#!/bin/sh
//	V=/path/to/venv
//	export RMW_IMPLEMENTATION=rmw_zenoh_cpp AMENT_PREFIX_PATH=$V
//	export LD_LIBRARY_PATH=$V/lib:$(ls -d $V/lib/python3*/site-packages/ros_*.libs | tr '\n' :)
//	export LD_PRELOAD=$V/lib/librmw_zenoh_cpp.so
//	exec $V/bin/python "$@"
//
// The same launcher runs package ros's rclpy interop suites (actions,
// parameters, /rosout, sim time) on rmw_zenoh, and bench's rclpy echo rows.
//
// The test passes the router's endpoint to rmw_zenoh through
// ZENOH_CONFIG_OVERRIDE.
//
// It runs three times: with the Go session a client of the eclipse-zenoh
// router (everything goes through the router); as rmw_zenoh runs in a
// deployment, that router configured as rmw_zenohd and the Go session a
// peer with rmw_zenoh's defaults, which links to the rclpy node directly
// once the router's gossip tells them of each other; and the same beside
// the real rmw_zenohd of the build (zenoh-c 1.6.2), run by the launcher.
func TestInteropRealRMWZenoh(t *testing.T) {
	launcher := os.Getenv(EnvRMWZenohPython)
	if launcher == "" {
		t.Skipf("set %s to a launcher of Python with rclpy on rmw_zenoh_cpp (see this test's doc comment)", EnvRMWZenohPython)
	}
	t.Run("client", func(t *testing.T) {
		ep := startRouter(t)
		testRealRMWZenoh(t, launcher, ep, zenoh.Config{Mode: zenoh.ModeClient, Connect: []string{ep}})
	})
	t.Run("peer", func(t *testing.T) {
		ep := startRouter(t, "--rmw")
		testRealRMWZenoh(t, launcher, ep, zenoh.Config{Connect: []string{ep}, Listen: []string{"tcp/127.0.0.1:0"}})
	})
	t.Run("rmw_zenohd", func(t *testing.T) {
		ep := startRMWZenohd(t, launcher)
		testRealRMWZenoh(t, launcher, ep, zenoh.Config{Connect: []string{ep}, Listen: []string{"tcp/127.0.0.1:0"}})
	})
}

// testRealRMWZenoh is TestInteropRealRMWZenoh with a Go session configured
// by zc and the rclpy node connecting to the router at ep.
func testRealRMWZenoh(t *testing.T, launcher, ep string, zc zenoh.Config) {
	ctx := testCtx(t)
	s, err := Open(ctx, Config{Zenoh: zc})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	n := mustNode(t, s, "/", "go_peer")
	// A second node, in a namespace, with a topic of a non-default QoS.
	ns := mustNode(t, s, "/robot1", "go_ns")
	if _, err := ns.CreatePublisher("/robot1/odom_like", stringType, rmw.QoS{Depth: 3, Reliability: rmw.ReliabilityBestEffort, Deadline: 1500 * time.Millisecond}); err != nil {
		t.Fatal(err)
	}
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
	// Large messages both ways, fragmented by Zenoh (more than a batch).
	big := strings.Repeat("0123456789", 30000)
	send(map[string]any{"op": "pub", "data": big})
	for v := "hello go"; v == "hello go"; { // skip the greetings sent until one came
		select {
		case v = <-fromPy:
			if v != big && v != "hello go" {
				t.Fatalf("large message from rclpy: %d bytes, want %d", len(v), len(big))
			}
		case <-ctx.Done():
			t.Fatal("no large message from rclpy")
		}
	}
	if err := goChatter.Publish(ctx, cdrString(big)); err != nil {
		t.Fatal(err)
	}
	for e := next("msg"); e.Data != big; e = next("msg") {
		if e.Topic != "go_chatter" || e.Data != "hello py" {
			t.Fatalf("large message at rclpy: %s, %d bytes, want %d", e.Topic, len(e.Data), len(big))
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
		!slices.Contains(g.Services["/go_set_flag"], "std_srvs/srv/SetBool") ||
		!slices.Contains(g.Nodes, "/robot1|go_ns") || !slices.Contains(g.Topics["/robot1/odom_like"], "std_msgs/msg/String") {
		t.Fatalf("rclpy graph %+v", g)
	}
	// rclpy reads the QoS of the Go publisher from its token (rclpy's
	// numbering: reliable 1, best effort 2; transient local 1, volatile 2).
	send(map[string]any{"op": "pubinfo", "topic": "/robot1/odom_like"})
	if pi := next("pubinfo"); len(pi.Infos) != 1 || pi.Infos[0].Node != "/robot1|go_ns" || pi.Infos[0].Type != "std_msgs/msg/String" ||
		pi.Infos[0].Reliability != 2 || pi.Infos[0].Durability != 2 || pi.Infos[0].Depth != 3 || pi.Infos[0].DeadlineNS != 1.5e9 {
		t.Fatalf("rclpy reads the Go publisher as %+v", pi.Infos)
	}
	// And the Go graph reads rclpy's.
	waitGraph(t, s, "rclpy's latched publisher", func(g *rmw.Graph) bool {
		return slices.ContainsFunc(g.Endpoints, func(e rmw.Endpoint) bool {
			return e.Kind == rmw.KindPublisher && e.Name == "/py_latched" && e.Node.Name == "py_peer" &&
				e.QoS.Durability == rmw.DurabilityTransientLocal && e.QoS.Reliability == rmw.ReliabilityReliable && e.QoS.Depth == 5
		})
	})
	// Everything rmw_zenoh_cpp sent was understood: every token parsed,
	// no sample, request or reply dropped.
	if st := s.Stats(); st != (Stats{}) {
		t.Fatalf("dropped input from rmw_zenoh_cpp: %+v", st)
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
