package rmwdds

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/afor-go/afor"
	"github.com/afor-go/afor/internal/netns"
	"github.com/afor-go/afor/internal/peers"
	"github.com/afor-go/afor/ros/internal/rmw"
	"github.com/afor-go/afor/transport/dds"
)

// maxNameLag bounds the time between a late-joining Go session seeing an
// rclpy node's topic (SEDP) and seeing the node's name (its
// ros_discovery_info sample, TRANSIENT_LOCAL history). Both come from the
// same participant at once; when the reader waited for Fast DDS's periodic
// HEARTBEAT (3 s) the lag was 2–2.5 s. The bound is generous for a loaded
// machine.
const maxNameLag = 1500 * time.Millisecond

// TestRclpyNodeNameLag opens a Go session after an rclpy node on Fast DDS
// is up (as `afor node list` does) and checks that the node's name follows
// its topics closely: the reader of ros_discovery_info asks the newly
// matched writer for its history at once rather than waiting for the
// writer's periodic HEARTBEAT.
func TestRclpyNodeNameLag(t *testing.T) {
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
	ready := make(chan struct{})
	drained := make(chan struct{})
	go func() {
		defer close(drained)
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			var ev pyEvent
			if json.Unmarshal(sc.Bytes(), &ev) == nil && ev.Ev == "ready" {
				close(ready)
			}
		}
	}()
	t.Cleanup(func() {
		_ = stdin.Close()
		<-drained
		_ = cmd.Wait()
	})
	select {
	case <-ready:
	case <-drained:
		t.Fatal("rclpy peer ended before it was ready")
	case <-ctx.Done():
		t.Fatal("rclpy peer not ready")
	}

	s, err := Open(ctx, Config{DomainID: d, DDS: dds.Config{Range: dds.RangeSubnet, Getenv: func(string) string { return "" }}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })

	pyNode := rmw.NodeName{Namespace: "/py", Name: "pynode", Enclave: "/"}
	var topicAt, nodeAt time.Time
	for g := range s.Graph().ListenReliable(ctx, afor.QueueSize(0)) {
		now := time.Now()
		if topicAt.IsZero() && slices.ContainsFunc(g.Endpoints, func(e rmw.Endpoint) bool { return e.Name == "/py_chatter" }) {
			topicAt = now
		}
		if nodeAt.IsZero() && slices.Contains(g.Nodes, pyNode) {
			nodeAt = now
		}
		if !topicAt.IsZero() && !nodeAt.IsZero() {
			break
		}
	}
	if topicAt.IsZero() || nodeAt.IsZero() {
		t.Fatalf("graph: topic seen %v, node seen %v: %v", !topicAt.IsZero(), !nodeAt.IsZero(), ctx.Err())
	}
	lag := nodeAt.Sub(topicAt)
	t.Logf("node name %v after its topic", lag)
	if lag > maxNameLag {
		t.Errorf("the node's name came %v after its topic, want at most %v", lag, maxNameLag)
	}
}
