package rmwdds

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/afor-go/afor/internal/netns"
	"github.com/afor-go/afor/internal/peers"
	"github.com/afor-go/afor/ros/internal/rmw"
	"github.com/afor-go/afor/transport/dds"
)

// pyEvent is a line of testdata/rclpy_graph_peer.py.
type pyEvent struct {
	Ev         string   `json:"ev"`
	Data       string   `json:"data"`
	Nodes      []string `json:"nodes"`
	Topics     []string `json:"topics"`
	Publishers int      `json:"go_chatter_publishers"`
}

// TestInteropRclpy runs a Go session next to an rclpy node on Fast DDS
// (the pinned Kilted wheels) in the loopback namespace: messages flow both
// ways, the Go graph has the rclpy node (from its ros_discovery_info), and
// rclpy's graph calls see the Go node (from ours), its topic and its
// publisher.
func TestInteropRclpy(t *testing.T) {
	netns.Require(t)
	py := peers.Python(t, "rclpy", "std_msgs.msg")
	d := 150 + int(testDomain.Add(1))%50
	ctx := waitCtx(t)

	cmd := exec.CommandContext(ctx, py, filepath.Join("testdata", "rclpy_graph_peer.py"))
	cmd.Env = append(os.Environ(), "RMW_IMPLEMENTATION=rmw_fastrtps_cpp", "FASTDDS_BUILTIN_TRANSPORTS=UDPv4",
		"ROS_DOMAIN_ID="+strconv.Itoa(d), "ROS_AUTOMATIC_DISCOVERY_RANGE=SUBNET")
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
	events := make(chan pyEvent, 1024)
	var readers sync.WaitGroup
	readers.Add(1)
	go func() {
		defer readers.Done()
		defer close(events)
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			var ev pyEvent
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

	s, err := Open(ctx, Config{DomainID: d, DDS: dds.Config{Range: dds.RangeSubnet, Getenv: func(string) string { return "" }}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	n, err := s.CreateNode(rmw.NodeName{Namespace: "/", Name: "gonode"})
	if err != nil {
		t.Fatal(err)
	}
	got := make(chan string, 16)
	if _, err := n.CreateSubscription("/py_chatter", stringType, qosDefault, func(m rmw.Message) {
		if v, ok := decodeString(m.Payload); ok {
			select {
			case got <- v:
			default:
			}
		}
	}); err != nil {
		t.Fatal(err)
	}
	pub, err := n.CreatePublisher("/go_chatter", stringType, qosDefault)
	if err != nil {
		t.Fatal(err)
	}

	var pySawNode, pySawTopic, pyGotSample, goGotSample bool
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for !(pySawNode && pySawTopic && pyGotSample && goGotSample) {
		select {
		case ev, ok := <-events:
			if !ok {
				t.Fatal("rclpy peer ended")
			}
			switch ev.Ev {
			case "sample":
				pyGotSample = pyGotSample || ev.Data == "go"
			case "graph":
				pySawNode = slices.Contains(ev.Nodes, "/|gonode")
				pySawTopic = slices.Contains(ev.Topics, "/go_chatter|std_msgs/msg/String") && ev.Publishers == 1
			}
		case v := <-got:
			goGotSample = goGotSample || len(v) > 3 && v[:3] == "py "
		case <-tick.C:
			if err := pub.Publish(ctx, encodeString("go")); err != nil {
				t.Fatal(err)
			}
		case <-ctx.Done():
			t.Fatalf("rclpy saw the Go node %v, its topic %v, its message %v; Go got rclpy's message %v",
				pySawNode, pySawTopic, pyGotSample, goGotSample)
		}
	}
	pyNode := rmw.NodeName{Namespace: "/py", Name: "pynode", Enclave: "/"}
	waitGraph(t, s, func(g *rmw.Graph) bool { return slices.Contains(g.Nodes, pyNode) })
}

// encodeString returns the CDR_LE payload of a std_msgs/String.
func encodeString(s string) []byte {
	n := len(s) + 1
	b := []byte{0, 1, 0, 0, byte(n), byte(n >> 8), byte(n >> 16), byte(n >> 24)}
	return append(append(b, s...), 0)
}

// decodeString decodes a std_msgs/String payload.
func decodeString(b []byte) (string, bool) {
	if len(b) < 8 {
		return "", false
	}
	n := int(b[4]) | int(b[5])<<8 | int(b[6])<<16 | int(b[7])<<24
	if n < 1 || 8+n > len(b) {
		return "", false
	}
	return string(b[8 : 8+n-1]), true
}
