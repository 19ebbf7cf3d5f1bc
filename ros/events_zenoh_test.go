package ros_test

import (
	"bufio"
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/afor-go/afor"
	"github.com/afor-go/afor/ros"
	"github.com/afor-go/afor/ros/msgs/std_msgs"
	"github.com/afor-go/afor/transport/zenoh"
)

// envEventsHelper makes TestZenohEventsHelper a publisher process for
// TestEventsZenohPublisherDies: it names the Zenoh endpoint to connect
// to.
const envEventsHelper = "AFOR_ROS_EVENTS_HELPER"

// TestZenohEventsHelper is not a test: run by TestEventsZenohPublisherDies
// in a process of its own, it publishes on /beat every 20 ms over Zenoh
// until it is killed.
func TestZenohEventsHelper(t *testing.T) {
	ep := os.Getenv(envEventsHelper)
	if ep == "" {
		t.Skip("a helper process of TestEventsZenohPublisherDies")
	}
	ctx := context.Background()
	node, err := ros.NewNode(ctx, "beat", ros.WithMiddleware(ros.Zenoh(zenoh.Config{Connect: []string{ep}})),
		ros.WithLogger(slog.New(slog.DiscardHandler)))
	if err != nil {
		t.Fatal(err)
	}
	pub, err := ros.NewPublisher[std_msgs.String](node, "/beat", ros.QoSDefault.WithDeadline(100*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	fmt.Println("ready")
	for i := 0; ; i++ {
		if err := pub.Publish(ctx, &std_msgs.String{Data: fmt.Sprint(i)}); err != nil {
			t.Fatal(err)
		}
		time.Sleep(20 * time.Millisecond) // the publisher's own rate
	}
}

// Over Zenoh between Go nodes: a subscription with a 100 ms deadline
// reports a missed deadline when its publisher's process dies, and the
// publisher not alive (its liveliness token goes with its session).
func TestEventsZenohPublisherDies(t *testing.T) {
	ctx := testCtx(t)
	c, err := ros.Open(ctx, ros.WithMiddleware(ros.Zenoh(zenoh.Config{Listen: []string{"tcp/127.0.0.1:0"}})),
		ros.WithLogger(slog.New(slog.DiscardHandler)))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	node, err := c.NewNode("listener")
	if err != nil {
		t.Fatal(err)
	}
	sub, err := ros.Subscribe[std_msgs.String](node, "/beat", ros.QoSDefault.WithDeadline(100*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	ev, _ := ros.SubscriptionEventsOf(node, sub)
	alive := ev.LivelinessChanged.Listener(ctx, afor.QueueSize(0))
	missed := ev.DeadlineMissed.Listener(ctx, afor.QueueSize(0))

	cmd := exec.Command(os.Args[0], "-test.run=^TestZenohEventsHelper$")
	cmd.Env = append(os.Environ(), envEventsHelper+"="+listenAddr(t, c))
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	sc := bufio.NewScanner(out)
	if !sc.Scan() || strings.TrimSpace(sc.Text()) != "ready" {
		t.Fatalf("helper: %q", sc.Text())
	}
	go func() { // the rest of its output
		for sc.Scan() {
		}
	}()
	for {
		a, err := alive.Next(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if a.AliveCount == 1 {
			break
		}
	}
	for range 5 {
		if _, err := sub.WaitForNext(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if missed.Len() != 0 {
		t.Errorf("%d deadlines missed while the publisher runs at 50 Hz", missed.Len())
	}
	_ = cmd.Process.Kill()
	m, err := missed.Next(ctx)
	if err != nil || m.TotalCount != 1 || m.TotalCountChange != 1 || m.Topic != "/beat" {
		t.Errorf("missed deadline: %+v %v", m, err)
	}
	a, err := alive.Next(ctx)
	if err != nil || a.AliveCount != 0 || a.AliveCountChange != -1 {
		t.Errorf("liveliness after the publisher died: %+v %v", a, err)
	}
}

// listenAddr returns an endpoint where context c's Zenoh session listens.
func listenAddr(t *testing.T, c *ros.Context) string {
	t.Helper()
	addrs := c.ListenAddrs()
	if len(addrs) == 0 {
		t.Fatal("no listen address")
	}
	return addrs[0]
}
