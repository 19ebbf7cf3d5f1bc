package rmwdds

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"testing"

	"github.com/afor-go/afor/internal/netns"
	"github.com/afor-go/afor/internal/peers"
	"github.com/afor-go/afor/ros/internal/rmw"
	"github.com/afor-go/afor/transport/dds"
)

// pyLine is a JSON line of a Python driver.
type pyLine struct {
	Ev                   string   `json:"ev"`
	Data                 string   `json:"data"`
	Seq                  int64    `json:"seq"`
	Success              bool     `json:"success"`
	Message              string   `json:"message"`
	Nodes                []string `json:"nodes"`
	Topics               []string `json:"topics"`
	Services             []string `json:"services"`
	GoLatchedPublishers  int      `json:"go_latched_publishers"`
	PyLatchedSubscribers int      `json:"py_latched_subscribers"`
}

// startRclpy runs testdata/<script> on Fast DDS in domain d and returns its
// events; it ends when the test does.
func startRclpy(t *testing.T, ctx context.Context, script string, d int, modules ...string) <-chan pyLine {
	t.Helper()
	return startPython(t, ctx, script, nil, []string{"RMW_IMPLEMENTATION=rmw_fastrtps_cpp", "FASTDDS_BUILTIN_TRANSPORTS=UDPv4",
		"ROS_DOMAIN_ID=" + strconv.Itoa(d), "ROS_AUTOMATIC_DISCOVERY_RANGE=SUBNET"}, append([]string{"rclpy"}, modules...)...)
}

// startPython runs testdata/<script> with args and env added, once the
// modules import, and returns its JSON events; it ends when the test does.
func startPython(t *testing.T, ctx context.Context, script string, args, env []string, modules ...string) <-chan pyLine {
	t.Helper()
	py := peers.Python(t, modules...)
	cmd := exec.CommandContext(ctx, py, append([]string{filepath.Join("testdata", script)}, args...)...)
	cmd.Env = append(os.Environ(), env...)
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	events := make(chan pyLine, 1024)
	var readers sync.WaitGroup
	readers.Add(1)
	go func() {
		defer readers.Done()
		defer close(events)
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 0, 1<<16), 1<<20)
		for sc.Scan() {
			var ev pyLine
			if json.Unmarshal(sc.Bytes(), &ev) == nil {
				select {
				case events <- ev:
				default: // the test stopped reading
				}
			}
		}
	}()
	t.Cleanup(func() {
		_ = stdin.Close()
		readers.Wait()
		_ = cmd.Wait()
	})
	return events
}

// encodeSetBoolResponse returns the CDR_LE payload of a
// std_srvs/SetBool_Response.
func encodeSetBoolResponse(success bool, msg string) []byte {
	b := []byte{0, 1, 0, 0, 0, 0, 0, 0}
	if success {
		b[4] = 1
	}
	n := len(msg) + 1
	b = append(b, byte(n), byte(n>>8), byte(n>>16), byte(n>>24))
	return append(append(b, msg...), 0)
}

// decodeSetBoolResponse decodes a std_srvs/SetBool_Response payload.
func decodeSetBoolResponse(b []byte) (bool, string, bool) {
	if len(b) < 12 {
		return false, "", false
	}
	n := int(b[8]) | int(b[9])<<8 | int(b[10])<<16 | int(b[11])<<24
	if n < 1 || 12+n > len(b) {
		return false, "", false
	}
	return b[4] == 1, string(b[12 : 12+n-1]), true
}

// TestInteropRclpyServicesGraph runs a Go session next to an rclpy node on
// Fast DDS: services both ways in rmw_fastrtps's form (a Go server that
// answers later, an rclpy client; an rclpy server, a Go client), the graph
// both ways (rclpy's get_service_names_and_types, get_topic_names_and_types
// and counts see the Go node's entities; the Go graph has the rclpy node's
// topics and services, learnt from SEDP) and TRANSIENT_LOCAL late joiners
// both ways.
func TestInteropRclpyServicesGraph(t *testing.T) {
	netns.Require(t)
	d := 150 + int(testDomain.Add(1))%50
	ctx := waitCtx(t)
	latched := rmw.QoS{History: rmw.HistoryKeepLast, Depth: 1, Reliability: rmw.ReliabilityReliable, Durability: rmw.DurabilityTransientLocal}

	s, err := Open(ctx, Config{DomainID: d, DDS: dds.Config{Range: dds.RangeSubnet, Getenv: func(string) string { return "" }}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	n, err := s.CreateNode(rmw.NodeName{Namespace: "/", Name: "gonode"})
	if err != nil {
		t.Fatal(err)
	}
	// Written before rclpy starts: its TRANSIENT_LOCAL reader joins late.
	lp, err := n.CreatePublisher("/go_latched", stringType, latched)
	if err != nil {
		t.Fatal(err)
	}
	if err := lp.Publish(ctx, encodeString("go latched")); err != nil {
		t.Fatal(err)
	}
	served := make(chan struct{}, 64)
	if _, err := n.CreateService("/go_set", setBool, qosDefault, func(r rmw.Request) {
		data := len(r.Payload) > 4 && r.Payload[4] == 1
		// A deferred answer, from another goroutine.
		go func() {
			if err := r.Reply(encodeSetBoolResponse(data, "go "+strconv.FormatBool(data)), nil); err != nil {
				t.Errorf("reply: %v", err)
			}
			select {
			case served <- struct{}{}:
			default:
			}
		}()
	}); err != nil {
		t.Fatal(err)
	}

	events := startRclpy(t, ctx, "rclpy_service_peer.py", d, "std_srvs.srv", "std_msgs.msg")

	// The Go client calls rclpy's server.
	cl, err := n.CreateClient("/py_set", setBool, qosDefault)
	if err != nil {
		t.Fatal(err)
	}
	goResp := make(chan string, 1)
	go func() {
		if err := cl.WaitReady(ctx); err != nil {
			return
		}
		if _, err := cl.Send(ctx, []byte{0, 1, 0, 0, 1, 0, 0, 0}, func(p []byte, err error) {
			ok, msg, good := decodeSetBoolResponse(p)
			if err != nil || !good || !ok {
				t.Errorf("reply from rclpy: %x %v", p, err)
			}
			goResp <- msg
		}); err != nil {
			t.Errorf("Send: %v", err)
		}
	}()

	// The Go node subscribes late to rclpy's latched topic.
	gotLatched := make(chan string, 4)
	waitGraph(t, s, func(g *rmw.Graph) bool {
		return slices.ContainsFunc(g.Endpoints, func(e rmw.Endpoint) bool {
			return e.Kind == rmw.KindPublisher && e.Name == "/py_latched"
		})
	})
	if _, err := n.CreateSubscription("/py_latched", stringType, latched, func(m rmw.Message) {
		if v, ok := decodeString(m.Payload); ok {
			gotLatched <- v
		}
	}); err != nil {
		t.Fatal(err)
	}

	var pyResp, pyLatched, pyGraph bool
	var goMsg, goLatched string
	for !(pyResp && pyLatched && pyGraph && goMsg != "" && goLatched != "") {
		select {
		case ev, ok := <-events:
			if !ok {
				t.Fatal("rclpy peer ended")
			}
			switch ev.Ev {
			case "response":
				if !ev.Success || ev.Message != "go true" {
					t.Errorf("rclpy got response %+v", ev)
				}
				pyResp = true
			case "latched":
				pyLatched = pyLatched || ev.Data == "go latched"
			case "graph":
				pyGraph = slices.Contains(ev.Nodes, "/|gonode") &&
					slices.Contains(ev.Services, "/go_set|std_srvs/srv/SetBool") &&
					slices.Contains(ev.Topics, "/go_latched|std_msgs/msg/String") &&
					ev.GoLatchedPublishers == 1 && ev.PyLatchedSubscribers == 1
			}
		case m := <-goResp:
			goMsg = m
		case v := <-gotLatched:
			goLatched = v
		case <-ctx.Done():
			t.Fatalf("rclpy got the Go server's response %v, the latched sample %v, saw the graph %v; Go got rclpy's response %q, latched %q",
				pyResp, pyLatched, pyGraph, goMsg, goLatched)
		}
	}
	if goMsg != "py True" || goLatched != "latched" {
		t.Errorf("Go got response %q, latched %q", goMsg, goLatched)
	}
	// The Go graph has the rclpy node with its service and topics.
	pyNode := rmw.NodeName{Namespace: "/py", Name: "pysrv", Enclave: "/"}
	waitGraph(t, s, func(g *rmw.Graph) bool {
		has := func(k rmw.EndpointKind, name, typ string) bool {
			return slices.ContainsFunc(g.Endpoints, func(e rmw.Endpoint) bool {
				return e.Kind == k && e.Name == name && e.Type == typ && e.Node == pyNode
			})
		}
		return slices.Contains(g.Nodes, pyNode) &&
			has(rmw.KindService, "/py_set", "std_srvs/srv/SetBool") &&
			has(rmw.KindClient, "/go_set", "std_srvs/srv/SetBool") &&
			has(rmw.KindPublisher, "/py_latched", "std_msgs/msg/String") &&
			has(rmw.KindSubscription, "/go_latched", "std_msgs/msg/String")
	})
}
