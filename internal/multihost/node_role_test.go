//go:build linux

package multihost_test

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/afor-go/afor"
	"github.com/afor-go/afor/ros"
	"github.com/afor-go/afor/ros/msgs/builtin_interfaces"
	"github.com/afor-go/afor/ros/msgs/sensor_msgs"
	"github.com/afor-go/afor/ros/msgs/std_msgs"
	"github.com/afor-go/afor/ros/msgs/std_srvs"
	"github.com/afor-go/afor/ros/msgs/test_msgs"
	"github.com/afor-go/afor/transport/zenoh"
)

// The node role is a ROS 2 node in Go that the tests drive with the same
// JSON commands as testdata/rclpy_node.py, one per line on its standard
// input, each run in a goroutine of its own; it answers with events on
// its standard output. Flags: -name, -mw dds|zenoh, and for Zenoh -mode
// peer|client, -connect and -listen (comma-separated endpoints), -scout
// (multicast scouting). The domain, discovery range and static peers
// come from ROS_DOMAIN_ID, ROS_AUTOMATIC_DISCOVERY_RANGE and
// ROS_STATIC_PEERS, as for any ROS 2 node.
//
// Every message is a sensor_msgs/Image whose header carries the time it
// was published and its sequence number (frame_id), and whose data is
// the payload. Commands (ids name the answers):
//
//	{"op":"pub","id":I,"topic":T,"qos":Q,"n":N,"hz":H,"size":S,"subs":K}
//	    waits until K subscriptions are matched, publishes N messages at H
//	    per second (N < 0: until stopped) -> {"ev":"pubdone","id":I,"n":N}
//	{"op":"stop","id":I}        ends publication I
//	{"op":"sub","topic":T,"qos":Q}
//	    -> {"ev":"recv","topic":T,"seq":N,"lat":ns,"size":S} per message
//	{"op":"serve","service":S}  a std_srvs/SetBool server
//	{"op":"call","id":I,"service":S,"n":N}
//	    -> {"ev":"called","id":I,"ok":K,"rtt":[ns...]}
//	{"op":"action_server","action":A}   a test_msgs/Fibonacci server
//	{"op":"goal","id":I,"action":A,"order":N}
//	    -> {"ev":"result","id":I,"status":S,"sequence":[...],"feedback":K}
//	{"op":"graph","id":I,"nodes":[...],"topics":[...],"services":[...]}
//	    waits until the graph has them all -> {"ev":"graph","id":I,"nodes":[...]}
//
// Q is {"reliable":bool,"depth":D (0: keep all),"transient_local":bool}.
// It starts with {"ev":"ready"}; errors are {"ev":"error","error":...}.
func nodeRole(args []string) int {
	fs := flag.NewFlagSet("node", flag.ContinueOnError)
	name := fs.String("name", "go_node", "node name")
	mw := fs.String("mw", "dds", "middleware: dds or zenoh")
	mode := fs.String("mode", "peer", "Zenoh mode: peer or client")
	connect := fs.String("connect", "", "Zenoh endpoints to connect to, comma-separated")
	listen := fs.String("listen", "", "Zenoh endpoints to listen on, comma-separated")
	scout := fs.Bool("scout", false, "Zenoh multicast scouting")
	debug := fs.Bool("debug", false, "log at debug level on stderr")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	out := newEmitter(os.Stdout)
	level := slog.LevelWarn
	if *debug {
		level = slog.LevelDebug
	}
	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level}))
	opts := []ros.Option{ros.WithLogger(logger)}
	switch *mw {
	case "dds":
	case "zenoh":
		cfg := zenoh.Config{Mode: zenoh.ModePeer, Connect: splitList(*connect), Listen: splitList(*listen), Logger: logger}
		if *mode == "client" {
			cfg.Mode = zenoh.ModeClient
		}
		if *scout {
			cfg.Scouting = zenoh.ScoutingConfig{Multicast: true}
		}
		opts = append(opts, ros.WithMiddleware(ros.Zenoh(cfg)))
	default:
		out.errorf("unknown middleware %q", *mw)
		return 2
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	node, err := ros.NewNode(ctx, *name, opts...)
	if err != nil {
		out.errorf("node: %v", err)
		return 1
	}
	n := &goNode{node: node, out: out, ctx: ctx, pubs: map[string]*ros.Publisher[sensor_msgs.Image, *sensor_msgs.Image]{},
		stops: map[string]context.CancelFunc{}}
	out.emit(map[string]any{"ev": "ready", "t": time.Now().UnixNano()})
	var wg sync.WaitGroup
	sc := bufio.NewScanner(os.Stdin)
	for sc.Scan() {
		var c command
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			out.errorf("command %q: %v", sc.Text(), err)
			continue
		}
		if c.Op == "stop" {
			n.stop(c.ID)
			continue
		}
		wg.Go(func() {
			if err := n.run(c); err != nil && ctx.Err() == nil {
				out.errorf("%s %s: %v", c.Op, c.ID, err)
			}
		})
	}
	cancel()
	node.Close()
	wg.Wait()
	return 0
}

// command is one line of the node role's (and rclpy_node.py's) input.
type command struct {
	Op       string   `json:"op"`
	ID       string   `json:"id"`
	Topic    string   `json:"topic"`
	QoS      qosSpec  `json:"qos"`
	N        int      `json:"n"`
	Hz       float64  `json:"hz"`
	Size     int      `json:"size"`
	Subs     int      `json:"subs"`
	Service  string   `json:"service"`
	Action   string   `json:"action"`
	Order    int32    `json:"order"`
	Nodes    []string `json:"nodes"`
	Topics   []string `json:"topics"`
	Services []string `json:"services"`
}

// qosSpec is a QoS in commands.
type qosSpec struct {
	Reliable       bool `json:"reliable"`
	Depth          int  `json:"depth"`
	TransientLocal bool `json:"transient_local"`
}

func (q qosSpec) ros() ros.QoS {
	p := ros.QoSKeepAll()
	if q.Depth > 0 {
		p = ros.QoSKeepLast(q.Depth)
	}
	if !q.Reliable {
		p = p.WithReliability(ros.BestEffort)
	}
	if q.TransientLocal {
		p = p.WithDurability(ros.TransientLocal)
	}
	return p
}

// goNode is the state of the node role.
type goNode struct {
	node *ros.Node
	out  *emitter
	ctx  context.Context

	mu    sync.Mutex
	pubs  map[string]*ros.Publisher[sensor_msgs.Image, *sensor_msgs.Image]
	stops map[string]context.CancelFunc
}

func (n *goNode) stop(id string) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if s := n.stops[id]; s != nil {
		s()
	}
}

func (n *goNode) run(c command) error {
	switch c.Op {
	case "pub":
		return n.publish(c)
	case "sub":
		return n.subscribe(c)
	case "serve":
		return n.serve(c)
	case "call":
		return n.call(c)
	case "action_server":
		return n.actionServer(c)
	case "goal":
		return n.goal(c)
	case "graph":
		return n.graph(c)
	}
	return fmt.Errorf("unknown op")
}

func (n *goNode) publish(c command) error {
	n.mu.Lock()
	pub := n.pubs[c.Topic]
	if pub == nil {
		var err error
		if pub, err = ros.NewPublisher[sensor_msgs.Image](n.node, c.Topic, c.QoS.ros()); err != nil {
			n.mu.Unlock()
			return err
		}
		n.pubs[c.Topic] = pub
	}
	ctx, cancel := context.WithCancel(n.ctx)
	defer cancel()
	if c.ID != "" {
		n.stops[c.ID] = cancel
	}
	n.mu.Unlock()
	if c.Subs > 0 {
		// Matched, not only in the graph: a message published before the
		// writer matches a volatile subscription is not for it.
		if err := pub.WaitForSubscriptions(ctx, c.Subs); err != nil {
			return err
		}
	}
	var period time.Duration
	if c.Hz > 0 {
		period = time.Duration(float64(time.Second) / c.Hz)
	}
	start := time.Now()
	data := make([]byte, c.Size)
	sent := 0
	for i := 0; c.N < 0 || i < c.N; i++ {
		if period > 0 {
			select {
			case <-time.After(time.Until(start.Add(time.Duration(i) * period))):
			case <-ctx.Done():
			}
		}
		if ctx.Err() != nil {
			break
		}
		now := time.Now()
		msg := sensor_msgs.Image{
			Header: std_msgs.Header{Stamp: builtin_interfaces.Time{Sec: int32(now.Unix()), Nanosec: uint32(now.Nanosecond())}, FrameID: strconv.Itoa(i)},
			Width:  uint32(c.Size), Height: 1, Encoding: "mono8", Step: uint32(c.Size), Data: data,
		}
		if err := pub.Publish(ctx, &msg); err != nil {
			if ctx.Err() != nil {
				break
			}
			return err
		}
		sent++
	}
	n.out.emit(map[string]any{"ev": "pubdone", "id": c.ID, "n": sent, "elapsed": time.Since(start).Nanoseconds()})
	return nil
}

func (n *goNode) subscribe(c command) error {
	q := c.QoS.ros()
	sub, err := ros.Subscribe[sensor_msgs.Image](n.node, c.Topic, q)
	if err != nil {
		return err
	}
	for m := range sub.ListenReliable(n.ctx, afor.QueueSize(0)) {
		now := time.Now()
		sent := time.Unix(int64(m.Header.Stamp.Sec), int64(m.Header.Stamp.Nanosec))
		seq, _ := strconv.Atoi(m.Header.FrameID)
		n.out.emit(map[string]any{"ev": "recv", "topic": c.Topic, "seq": seq, "lat": now.Sub(sent).Nanoseconds(), "size": len(m.Data), "t": now.UnixNano()})
	}
	return nil
}

func (n *goNode) serve(c command) error {
	srv, err := ros.NewServer(n.node, c.Service, std_srvs.SetBool{})
	if err != nil {
		return err
	}
	for r := range srv.ListenReliable(n.ctx) {
		_ = r.Respond(std_srvs.SetBoolResponse{Success: true, Message: fmt.Sprint("ok ", r.Request.Data)})
	}
	return nil
}

func (n *goNode) call(c command) error {
	cli, err := ros.NewClient(n.node, c.Service, std_srvs.SetBool{})
	if err != nil {
		return err
	}
	if err := cli.WaitForServer(n.ctx); err != nil {
		return err
	}
	var rtts []int64
	ok := 0
	for i := range max(c.N, 1) {
		ctx, cancel := context.WithTimeout(n.ctx, 10*time.Second)
		start := time.Now()
		res, err := cli.Call(ctx, std_srvs.SetBoolRequest{Data: i%2 == 0})
		cancel()
		if err != nil {
			n.out.errorf("call %s #%d: %v", c.ID, i, err)
			continue
		}
		rtts = append(rtts, time.Since(start).Nanoseconds())
		if res.Success && res.Message == fmt.Sprint("ok ", i%2 == 0) {
			ok++
		}
	}
	n.out.emit(map[string]any{"ev": "called", "id": c.ID, "ok": ok, "rtt": rtts})
	return nil
}

func (n *goNode) actionServer(c command) error {
	srv, err := ros.NewActionServer(n.node, c.Action, test_msgs.Fibonacci{})
	if err != nil {
		return err
	}
	for g := range srv.ListenReliable(n.ctx) {
		order := g.Goal.Order
		if order < 0 {
			_ = g.Reject()
			continue
		}
		if err := g.Accept(); err != nil {
			continue
		}
		go func() {
			_ = g.Execute()
			seq := []int32{0, 1}
			for i := int32(1); i < order; i++ {
				seq = append(seq, seq[i]+seq[i-1])
				_ = g.PublishFeedback(n.ctx, test_msgs.FibonacciFeedback{Sequence: slices.Clone(seq)})
				time.Sleep(10 * time.Millisecond)
			}
			_ = g.Succeed(test_msgs.FibonacciResult{Sequence: seq[:max(order+1, 1)]})
		}()
	}
	return nil
}

func (n *goNode) goal(c command) error {
	cl, err := ros.NewActionClient(n.node, c.Action, test_msgs.Fibonacci{})
	if err != nil {
		return err
	}
	defer cl.Close()
	if err := cl.WaitForServer(n.ctx); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(n.ctx, 30*time.Second)
	defer cancel()
	h, err := cl.SendGoal(ctx, test_msgs.FibonacciGoal{Order: c.Order})
	if err != nil {
		return err
	}
	feedback := 0
	for range h.Feedback().ListenReliable(ctx) {
		feedback++
	}
	st, res, err := h.Result(ctx)
	if err != nil {
		return err
	}
	n.out.emit(map[string]any{"ev": "result", "id": c.ID, "status": int(st), "sequence": res.Sequence, "feedback": feedback})
	return nil
}

func (n *goNode) graph(c command) error {
	g, err := n.node.Graph().WaitFor(n.ctx, func(g *ros.GraphSnapshot) bool {
		for _, want := range c.Nodes {
			if !g.HasNode(want) {
				return false
			}
		}
		topics, services := g.Topics(), g.Services()
		for _, t := range c.Topics {
			if _, ok := topics[t]; !ok {
				return false
			}
		}
		for _, s := range c.Services {
			if _, ok := services[s]; !ok {
				return false
			}
		}
		return true
	})
	if err != nil {
		return err
	}
	var nodes []string
	for _, ni := range g.Nodes {
		nodes = append(nodes, ni.FullyQualifiedName())
	}
	slices.Sort(nodes)
	n.out.emit(map[string]any{"ev": "graph", "id": c.ID, "nodes": nodes})
	return nil
}

// emitter writes events, one JSON line each, from any goroutine.
type emitter struct {
	mu sync.Mutex
	w  io.Writer
}

func newEmitter(w io.Writer) *emitter { return &emitter{w: w} }

func (e *emitter) emit(v map[string]any) {
	b, err := json.Marshal(v)
	if err != nil {
		b, _ = json.Marshal(map[string]any{"ev": "error", "error": err.Error()})
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	_, _ = e.w.Write(append(b, '\n'))
}

func (e *emitter) errorf(format string, args ...any) {
	e.emit(map[string]any{"ev": "error", "error": fmt.Sprintf(format, args...)})
}

func splitList(s string) []string {
	var out []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}
