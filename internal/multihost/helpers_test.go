//go:build linux

package multihost_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/afor-go/afor/internal/netns/hosts"
	"github.com/afor-go/afor/internal/peers"
)

// outage is how long the outage tests break a link.
const outage = 10 * time.Second

// node is a ROS 2 node on a host, Go or rclpy, driven by commands.
type node struct {
	*hosts.Proc
	t      *testing.T
	kind   string // "go" or "rclpy"
	host   *hosts.Host
	name   string
	start  time.Time // when the process was started
	ready  time.Time // when it said it was ready
	nextID int
}

// rosEnv is the environment of a node in domain d, with extra variables.
func rosEnv(d int, extra ...string) []string {
	return append([]string{"ROS_DOMAIN_ID=" + strconv.Itoa(d), "ROS_AUTOMATIC_DISCOVERY_RANGE=", "ROS_STATIC_PEERS="}, extra...)
}

// goNodeOn starts a Go node (the node role) on h, with the environment
// env (rosEnv) and the role's flags.
func goNodeOn(t *testing.T, h *hosts.Host, name string, env []string, flags ...string) *node {
	t.Helper()
	cmd := h.RoleCommand("node", append([]string{"-name", name}, flags...)...)
	cmd.Env = append(cmd.Env, env...)
	n := &node{t: t, kind: "go", host: h, name: name, start: time.Now()}
	n.Proc = h.Start(t, "go:"+name, cmd)
	n.ready = n.Expect(t, "ready", 30*time.Second).At
	return n
}

// pyNodeOn starts testdata/rclpy_node.py on h: rclpy on Fast DDS over
// UDPv4 (no shared memory: two hosts of the lab share one kernel).
func pyNodeOn(t *testing.T, h *hosts.Host, name string, env []string) *node {
	t.Helper()
	py := peers.Python(t, "rclpy", "sensor_msgs.msg", "std_srvs.srv", "test_msgs.action")
	script, err := filepath.Abs(filepath.Join("testdata", "rclpy_node.py"))
	if err != nil {
		t.Fatal(err)
	}
	cmd := h.Command(py, "-u", script, name)
	cmd.Env = append(cmd.Env, "RMW_IMPLEMENTATION=rmw_fastrtps_cpp", "FASTDDS_BUILTIN_TRANSPORTS=UDPv4", "PYTHONUNBUFFERED=1")
	cmd.Env = append(cmd.Env, env...)
	n := &node{t: t, kind: "rclpy", host: h, name: name, start: time.Now()}
	n.Proc = h.Start(t, "rclpy:"+name, cmd)
	n.ready = n.Expect(t, "ready", 60*time.Second).At
	return n
}

// id returns a fresh command id.
func (n *node) id() string {
	n.nextID++
	return n.name + "-" + strconv.Itoa(n.nextID)
}

// send sends a command, failing the test on error.
func (n *node) send(c map[string]any) {
	n.t.Helper()
	if err := n.Send(c); err != nil {
		n.t.Fatalf("%s: %v", n.Name, err)
	}
}

// qos builds a command's QoS: reliable or not, depth (0: keep all).
func qos(reliable bool, depth int) map[string]any {
	return map[string]any{"reliable": reliable, "depth": depth}
}

// pub asks the node to publish n messages of size bytes on topic at hz,
// once subs subscriptions are in its graph; it returns the command id.
func (n *node) pub(topic string, q map[string]any, count int, hz float64, size, subs int) string {
	id := n.id()
	n.send(map[string]any{"op": "pub", "id": id, "topic": topic, "qos": q, "n": count, "hz": hz, "size": size, "subs": subs})
	return id
}

// sub asks the node to subscribe to topic.
func (n *node) sub(topic string, q map[string]any) {
	n.send(map[string]any{"op": "sub", "topic": topic, "qos": q})
}

// waitPub waits for the end of publication id.
func (n *node) waitPub(id string, timeout time.Duration) {
	n.t.Helper()
	if !n.pubEnded(id, timeout) {
		n.t.Fatalf("%s: publication %s did not end in %v", n.Name, id, timeout)
	}
}

// pubEnded waits for the end of publication id, and reports whether it
// came within timeout.
func (n *node) pubEnded(id string, timeout time.Duration) bool {
	ctx, cancel := contextWithTimeout(timeout)
	defer cancel()
	for {
		for _, e := range n.Events() {
			var v struct{ ID string }
			if e.Ev == "pubdone" && e.Decode(&v) == nil && v.ID == id {
				return true
			}
		}
		select {
		case <-ctx.Done():
			return false
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// recv is a message a node received.
type recv struct {
	Topic string
	Seq   int
	Lat   int64
	Size  int
	T     int64
}

// received returns the messages the node got on topic so far.
func (n *node) received(topic string) []recv {
	var out []recv
	for _, e := range n.Events() {
		if e.Ev != "recv" {
			continue
		}
		var r recv
		if e.Decode(&r) == nil && r.Topic == topic {
			out = append(out, r)
		}
	}
	return out
}

// waitReceived waits until the node got want distinct messages on topic,
// or quiet passed without a new one, or timeout; it returns them.
func (n *node) waitReceived(topic string, want int, quiet, timeout time.Duration) []recv {
	deadline := time.Now().Add(timeout)
	count, lastChange := -1, time.Now()
	for {
		rs := n.received(topic)
		if distinctSeqs(rs) >= want || time.Now().After(deadline) || (count == len(rs) && time.Since(lastChange) > quiet) {
			return rs
		}
		if len(rs) != count {
			count, lastChange = len(rs), time.Now()
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func distinctSeqs(rs []recv) int {
	seen := map[int]bool{}
	for _, r := range rs {
		seen[r.Seq] = true
	}
	return len(seen)
}

// delivery summarizes what a subscriber got of sent messages numbered 0
// to sent-1.
type delivery struct {
	Sent, Delivered, Lost, Duplicated int
	P50, P99                          time.Duration
}

func summarize(rs []recv, sent int) delivery {
	d := delivery{Sent: sent}
	seen := map[int]int{}
	var lats []int64
	for _, r := range rs {
		seen[r.Seq]++
		if seen[r.Seq] > 1 {
			d.Duplicated++
			continue
		}
		lats = append(lats, r.Lat)
	}
	for i := range sent {
		if seen[i] > 0 {
			d.Delivered++
		}
	}
	d.Lost = sent - d.Delivered
	if len(lats) > 0 {
		slices.Sort(lats)
		d.P50 = time.Duration(lats[len(lats)/2])
		d.P99 = time.Duration(lats[min(len(lats)-1, len(lats)*99/100)])
	}
	return d
}

func (d delivery) String() string {
	return fmt.Sprintf("delivered %d/%d, lost %d, duplicated %d, latency p50 %v p99 %v",
		d.Delivered, d.Sent, d.Lost, d.Duplicated, d.P50.Round(10*time.Microsecond), d.P99.Round(10*time.Microsecond))
}

// report records one row of the results table: on the test log, and in
// the file named by AFOR_MULTIHOST_REPORT when set.
func report(t *testing.T, scenario, peer, faults string, d *delivery, rediscovery time.Duration) {
	t.Helper()
	cols := []string{scenario, peer, faults, "", "", "", "", "", ""}
	if d != nil {
		cols[3] = fmt.Sprintf("%d/%d", d.Delivered, d.Sent)
		cols[4] = strconv.Itoa(d.Lost)
		cols[5] = strconv.Itoa(d.Duplicated)
		cols[6] = fmtDur(d.P50)
		cols[7] = fmtDur(d.P99)
	}
	if rediscovery > 0 {
		cols[8] = fmtDur(rediscovery)
	}
	line := strings.Join(cols, "\t")
	t.Log("result: " + line)
	if f := os.Getenv("AFOR_MULTIHOST_REPORT"); f != "" {
		reportMu.Lock()
		defer reportMu.Unlock()
		fh, err := os.OpenFile(f, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
		if err != nil {
			t.Log(err)
			return
		}
		defer fh.Close()
		fmt.Fprintln(fh, line)
	}
}

var reportMu sync.Mutex

func fmtDur(d time.Duration) string {
	switch {
	case d >= time.Second:
		return fmt.Sprintf("%.2f s", d.Seconds())
	case d >= time.Millisecond:
		return fmt.Sprintf("%.1f ms", float64(d)/float64(time.Millisecond))
	}
	return fmt.Sprintf("%d µs", d.Microseconds())
}

func contextWithTimeout(d time.Duration) (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), d)
}

// sinceStart returns how long after talker was ready (its node made:
// rclpy takes a second or two to get there, Go some milliseconds) the
// first of rs arrived.
func sinceStart(talker *node, rs []recv) time.Duration {
	return time.Unix(0, rs[0].T).Sub(talker.ready)
}

// stream has talker publish on topic (q, hz, size bytes a message) until
// every listener got want messages or timeout passed, then stops it; it
// returns how many it sent.
func stream(talker *node, topic string, q map[string]any, hz float64, size, want int, timeout time.Duration, listeners ...*node) int {
	talker.t.Helper()
	id := talker.pub(topic, q, -1, hz, size, 0)
	deadline := time.Now().Add(timeout)
	for _, l := range listeners {
		for distinctSeqs(l.received(topic)) < want && time.Now().Before(deadline) {
			time.Sleep(20 * time.Millisecond)
		}
	}
	talker.send(map[string]any{"op": "stop", "id": id})
	ctx, cancel := contextWithTimeout(30 * time.Second)
	defer cancel()
	ev, err := talker.Next(ctx, func(e hosts.Event) bool {
		var v struct{ ID string }
		return e.Ev == "pubdone" && e.Decode(&v) == nil && v.ID == id
	})
	if err != nil {
		talker.t.Fatalf("%s: publication on %s did not end: %v", talker.Name, topic, err)
	}
	var done struct{ N int }
	if err := ev.Decode(&done); err != nil {
		talker.t.Fatal(err)
	}
	// What is in flight arrives.
	for _, l := range listeners {
		l.waitReceived(topic, done.N, time.Second, 10*time.Second)
	}
	return done.N
}

// summarizeFrom is summarize over the messages from the first one
// received to the last one sent: what a reliable subscription that
// matched the publisher after it started must get.
func summarizeFrom(rs []recv, sent int) delivery {
	first := sent
	for _, r := range rs {
		first = min(first, r.Seq)
	}
	var in []recv
	for _, r := range rs {
		r.Seq -= first
		in = append(in, r)
	}
	return summarize(in, sent-first)
}

// lastSeq returns the highest sequence number in rs.
func lastSeq(rs []recv) int {
	m := -1
	for _, r := range rs {
		m = max(m, r.Seq)
	}
	return m
}

// contiguous reports whether rs holds every message from the first one
// received to the last sent (n-1): what a reliable subscription that
// matched the publisher late must get.
func contiguous(rs []recv, n int) bool {
	if len(rs) == 0 {
		return false
	}
	seen := map[int]bool{}
	first := n
	for _, r := range rs {
		seen[r.Seq] = true
		first = min(first, r.Seq)
	}
	for i := first; i < n; i++ {
		if !seen[i] {
			return false
		}
	}
	return true
}

// firstAfter returns how long after t the first message on topic that
// arrived after t came, looking at the messages from the skip-th on; zero
// when none came within timeout.
func (n *node) firstAfter(topic string, skip int, t time.Time, timeout time.Duration) time.Duration {
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		rs := n.received(topic)
		for _, r := range rs[min(skip, len(rs)):] {
			if at := time.Unix(0, r.T); at.After(t) {
				return at.Sub(t)
			}
		}
		time.Sleep(10 * time.Millisecond)
	}
	return 0
}

// firstAfterAll is firstAfter for several nodes and topics at once: it
// waits for all of them together, up to timeout.
func firstAfterAll(ns []*node, topics []string, skip []int, t time.Time, timeout time.Duration) []time.Duration {
	out := make([]time.Duration, len(ns))
	var wg sync.WaitGroup
	for i, n := range ns {
		wg.Go(func() { out[i] = n.firstAfter(topics[i], skip[i], t, timeout) })
	}
	wg.Wait()
	return out
}

// skipShort skips a scenario that takes tens of seconds under -short.
func skipShort(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("a long scenario: not with -short")
	}
}
