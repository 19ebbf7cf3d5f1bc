package bag_test

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/afor-go/afor"
	"github.com/afor-go/afor/internal/netns"
	"github.com/afor-go/afor/internal/peers"
	"github.com/afor-go/afor/ros"
	"github.com/afor-go/afor/ros/bag"
	"github.com/afor-go/afor/ros/msgs/std_msgs"
	"github.com/afor-go/afor/transport/dds"
)

// rclpyDomain hands each rclpy test its own ROS domain (200 to 229).
var rclpyDomain atomic.Int32

// rclpyPeer is a Go ROS context and the environment of an rclpy process on
// Fast DDS that reach each other in the loopback-only namespace.
type rclpyPeer struct {
	ctx *ros.Context
	py  string
	env []string
}

func newRclpyPeer(t *testing.T, modules ...string) *rclpyPeer {
	t.Helper()
	netns.Require(t)
	py := peers.Python(t, append([]string{"rclpy"}, modules...)...)
	d := 200 + int(rclpyDomain.Add(1)-1)%30
	c, err := ros.Open(context.Background(), ros.WithMiddleware(ros.DDS(dds.Config{Range: dds.RangeSubnet, Getenv: func(string) string { return "" }})),
		ros.WithDomainID(d), ros.WithLogger(slog.New(slog.DiscardHandler)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return &rclpyPeer{ctx: c, py: py, env: []string{"RMW_IMPLEMENTATION=rmw_fastrtps_cpp", "FASTDDS_BUILTIN_TRANSPORTS=UDPv4",
		"ROS_DOMAIN_ID=" + strconv.Itoa(d), "ROS_AUTOMATIC_DISCOVERY_RANGE=SUBNET"}}
}

// pyProc is a running testdata/rclpy_bag.py.
type pyProc struct {
	t      *testing.T
	stdin  io.WriteCloser
	events chan map[string]any
}

func (p *rclpyPeer) start(t *testing.T, args ...string) *pyProc {
	t.Helper()
	cmd := exec.Command(p.py, append([]string{filepath.Join("testdata", "rclpy_bag.py")}, args...)...)
	cmd.Env = append(os.Environ(), p.env...)
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
	proc := &pyProc{t: t, stdin: stdin, events: make(chan map[string]any, 4096)}
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer close(proc.events)
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			var ev map[string]any
			if json.Unmarshal(sc.Bytes(), &ev) == nil {
				proc.events <- ev
			}
		}
	}()
	t.Cleanup(func() {
		_ = stdin.Close()
		timer := time.AfterFunc(10*time.Second, func() { _ = cmd.Process.Kill() })
		defer timer.Stop()
		<-done
		_ = cmd.Wait()
	})
	proc.next("ready", 30*time.Second)
	return proc
}

func (p *pyProc) next(ev string, d time.Duration) map[string]any {
	p.t.Helper()
	timeout := time.After(d)
	for {
		select {
		case e, ok := <-p.events:
			if !ok {
				p.t.Fatalf("rclpy_bag.py ended before %q", ev)
			}
			if e["ev"] == ev {
				return e
			}
		case <-timeout:
			p.t.Fatalf("no %q from rclpy_bag.py in %v", ev, d)
		}
	}
}

func uniquePrefix() string {
	var id [4]byte
	_, _ = rand.Read(id[:])
	return "/bag_" + hex.EncodeToString(id[:])
}

// TestPlayToRclpy plays a bag (20 Hz chatter over 3 s, and a latched
// message) to an rclpy node on Fast DDS: it receives every message in
// order, at the recorded pace (the span from its first to its last
// message within 5% of the bag's), and the latched message through a
// TRANSIENT_LOCAL subscription it makes after the message was played.
func TestPlayToRclpy(t *testing.T) {
	peer := newRclpyPeer(t, "std_msgs")
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	prefix := uniquePrefix()
	// The bag: the latched message first, then 61 chatter messages 50 ms
	// apart.
	path := filepath.Join(t.TempDir(), "play")
	w, err := bag.Create(path, bag.WriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	hash := std_msgs.String{}.TypeHash()
	latchedQoS := bag.QoSFromROS(ros.QoSTransientLocal(1))
	for _, tp := range []bag.Topic{
		{Name: prefix + "/latched", Type: "std_msgs/msg/String", TypeHash: hash, OfferedQoS: []bag.QoS{latchedQoS}},
		{Name: prefix + "/chatter", Type: "std_msgs/msg/String", TypeHash: hash, OfferedQoS: []bag.QoS{bag.QoSFromROS(ros.QoSDefault)}},
	} {
		if err := w.AddTopic(tp); err != nil {
			t.Fatal(err)
		}
	}
	enc := func(s string) []byte {
		b, _ := (&std_msgs.String{Data: s}).AppendCDR(nil)
		return b
	}
	if err := w.Write(prefix+"/latched", t0, t0, 1, enc("latched")); err != nil {
		t.Fatal(err)
	}
	const n = 61
	for i := range n {
		at := t0.Add(100*time.Millisecond + time.Duration(i)*50*time.Millisecond)
		if err := w.Write(prefix+"/chatter", at, at, uint32(i), enc(strconv.Itoa(i))); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	r, err := bag.Open(path, bag.ReaderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()

	py := peer.start(t, "listen", prefix)
	node, err := peer.ctx.NewNode("bag_player")
	if err != nil {
		t.Fatal(err)
	}
	// Wait until the graph shows rclpy's subscription, then give the
	// player's publishers time to match it.
	if _, err := node.Graph().WaitFor(ctx, func(g *ros.GraphSnapshot) bool { return len(g.Subscriptions(prefix+"/chatter")) > 0 }); err != nil {
		t.Fatal(err)
	}
	type result struct {
		st  bag.PlayStats
		err error
	}
	played := make(chan result, 1)
	go func() {
		st, err := bag.Play(ctx, node, r, bag.PlayOptions{WaitSubscriptions: []string{prefix + "/chatter"}, Delay: 200 * time.Millisecond,
			Logger: slog.New(slog.DiscardHandler)})
		played <- result{st, err}
	}()
	var first, last float64
	var recv []float64 // rclpy's receive times, ns
	gotLatched := false
	for i := 0; i < n; {
		e := py.next("msg", 10*time.Second)
		if e["topic"] == prefix+"/latched" {
			if e["data"] != "latched" || gotLatched {
				t.Fatalf("latched: %v", e)
			}
			gotLatched = true
			continue
		}
		if e["topic"] != prefix+"/chatter" || e["data"] != strconv.Itoa(i) {
			t.Fatalf("message %d: %v", i, e)
		}
		tm, _ := e["t"].(float64)
		if i == 0 {
			first = tm
			// The latched message was played 100 ms before: a
			// TRANSIENT_LOCAL subscription made now still gets it.
			fmt.Fprintln(py.stdin, "late")
		}
		last = tm
		recv = append(recv, tm)
		i++
	}
	res := <-played
	if res.err != nil {
		t.Fatal(res.err)
	}
	if !gotLatched {
		e := py.next("msg", 10*time.Second)
		if e["topic"] != prefix+"/latched" || e["data"] != "latched" {
			t.Fatalf("latched: %v", e)
		}
	}
	// The pace over the whole run: the least-squares slope of rclpy's
	// receive times against the bag's (one late message moves it little).
	var sx, sy, sxx, sxy float64
	for i, y := range recv {
		x := float64(i) * 50e6
		sx, sy, sxx, sxy = sx+x, sy+y, sxx+x*x, sxy+x*y
	}
	k := float64(len(recv))
	slope := (k*sxy - sx*sy) / (k*sxx - sx*sx)
	span := time.Duration(last - first)
	want := time.Duration(n-1) * 50 * time.Millisecond
	if slope < 0.95 || slope > 1.05 {
		t.Errorf("rclpy received %d messages at %.3f times the bag's pace (first to last: %v for the bag's %v)", n, slope, span, want)
	}
	t.Logf("pace %.4f", slope)
	t.Logf("pace: rclpy received the bag's %v in %v; the player published it in %v", want, span, res.st.Elapsed)
}

// TestRecordRclpy records an rclpy talker on Fast DDS: its latched message
// (the recorder subscribes TRANSIENT_LOCAL, as the publisher offers it)
// and every chatter message, with the publishers' QoS in the bag.
func TestRecordRclpy(t *testing.T) {
	peer := newRclpyPeer(t, "std_msgs")
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	prefix := uniquePrefix()
	node, err := peer.ctx.NewNode("bag_recorder")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "rec")
	w, err := bag.Create(path, bag.WriterOptions{Compression: bag.CompressionZstd})
	if err != nil {
		t.Fatal(err)
	}
	rec, err := bag.Record(ctx, node, w, bag.RecordOptions{Regex: regexp.MustCompile(regexp.QuoteMeta(prefix) + "/.*")})
	if err != nil {
		t.Fatal(err)
	}
	const n = 50
	py := peer.start(t, "talk", prefix, strconv.Itoa(n), "50")
	py.next("sent", 60*time.Second)
	waitFor(t, ctx, func() bool { return rec.Stats().Written == n+1 }, "the latched message and every chatter message")
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	r, err := bag.Open(path, bag.ReaderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	i := 0
	for m, err := range r.Messages(bag.ReadOptions{Topics: []string{prefix + "/chatter"}}) {
		if err != nil {
			t.Fatal(err)
		}
		s, err := bag.Decode[std_msgs.String](m)
		if err != nil || s.Data != strconv.Itoa(i) || m.Published.IsZero() || m.Published.After(m.Received) {
			t.Fatalf("message %d: %q %v (published %v, received %v)", i, s.Data, err, m.Published, m.Received)
		}
		i++
	}
	if i != n {
		t.Fatalf("%d chatter messages", i)
	}
	ti, _ := r.Topic(prefix + "/latched")
	if ti.MessageCount != 1 || len(ti.OfferedQoS) != 1 || ti.OfferedQoS[0].Durability != 1 || ti.OfferedQoS[0].Reliability != 1 {
		t.Fatalf("latched topic: %+v", ti)
	}
	if enc, schema := r.Schema(prefix + "/chatter"); enc != "ros2msg" || string(schema) != "string data\n" {
		t.Errorf("schema %q %q", enc, schema)
	}
}

// TestSimTimeFollowsPlayedClock plays a bag with /clock at 100 Hz: a Go
// node with use_sim_time reads the bag's time from it.
func TestSimTimeFollowsPlayedClock(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	net := ros.NewMemoryNetwork()
	msgs := sampleMessages(t, 100) // one second of bag time
	path := writeBag(t, t.TempDir(), bag.WriterOptions{}, msgs)
	r, err := bag.Open(path, bag.ReaderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	sim := newNode(t, openMem(t, net), "sim", ros.WithArgs([]string{"--ros-args", "-p", "use_sim_time:=true"}))
	clock := sim.Clock()
	player := newNode(t, openMem(t, net), "player")
	var seen []time.Time
	done := make(chan error, 1)
	go func() {
		_, err := bag.Play(ctx, player, r, bag.PlayOptions{ClockHz: 100, Topics: []string{"/chatter"}})
		done <- err
	}()
	waitFor(t, ctx, func() bool { return !clock.Now().Before(t0) }, "the bag's time on /clock")
	rate, err := clock.NewRate(20) // ticks on the bag's clock
	if err != nil {
		t.Fatal(err)
	}
	defer rate.Close()
	for tick := range rate.ListenReliable(ctx, afor.QueueSize(0)) {
		seen = append(seen, tick)
		if len(seen) == 10 {
			break
		}
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	end := msgs[len(msgs)-1].t
	for _, s := range seen {
		if s.Before(t0) || s.After(end) {
			t.Fatalf("sim time %v outside the bag's %v to %v", s, t0, end)
		}
	}
	if !seen[len(seen)-1].After(seen[0]) {
		t.Fatalf("sim time did not advance: %v", seen)
	}
}
