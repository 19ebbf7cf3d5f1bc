package ros

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/afor-go/afor/ros/msgs/std_msgs"
)

// qosLogRecorder is a slog.Handler keeping the messages logged at warning
// level and above.
type qosLogRecorder struct {
	mu   sync.Mutex
	msgs []string
}

func (r *qosLogRecorder) Enabled(_ context.Context, l slog.Level) bool { return l >= slog.LevelWarn }
func (r *qosLogRecorder) Handle(_ context.Context, rec slog.Record) error {
	r.mu.Lock()
	r.msgs = append(r.msgs, rec.Message)
	r.mu.Unlock()
	return nil
}
func (r *qosLogRecorder) WithAttrs([]slog.Attr) slog.Handler { return r }
func (r *qosLogRecorder) WithGroup(string) slog.Handler      { return r }

func (r *qosLogRecorder) has(msg string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Contains(r.msgs, msg)
}

// TestIncompatibleQoSInteropRclpy: against rclpy on Fast DDS, a Go
// TRANSIENT_LOCAL subscription of a VOLATILE rclpy publisher, a Go RELIABLE
// subscription of a BEST_EFFORT rclpy publisher, and a Go BEST_EFFORT
// publisher to a RELIABLE rclpy subscription are each reported on the Go
// side (Node.OnIncompatibleQoS and rcl's warning line, naming the policy)
// and on rclpy's, and exchange nothing.
func TestIncompatibleQoSInteropRclpy(t *testing.T) {
	peer := rclpyMiddleware(t, "std_msgs")
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	logs := &qosLogRecorder{}
	c, err := Open(ctx, WithMiddleware(peer.mw), WithDomainID(peer.domain), WithLogger(slog.New(logs)))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	n, err := c.NewNode("go_qos")
	if err != nil {
		t.Fatal(err)
	}
	events := make(chan IncompatibleQoSEvent, 64)
	remove := n.OnIncompatibleQoS(func(e IncompatibleQoSEvent) {
		select {
		case events <- e:
		default:
		}
	})
	defer remove()
	var id [4]byte
	_, _ = rand.Read(id[:])
	prefix := "/qos_" + hex.EncodeToString(id[:])

	volatileSub, err := Subscribe[std_msgs.String](n, prefix+"/volatile", QoSTransientLocal(10))
	if err != nil {
		t.Fatal(err)
	}
	defer volatileSub.Close()
	reliableSub, err := Subscribe[std_msgs.String](n, prefix+"/best_effort", QoSDefault)
	if err != nil {
		t.Fatal(err)
	}
	defer reliableSub.Close()
	pub, err := NewPublisher[std_msgs.String](n, prefix+"/reliable_sub", QoSDefault.WithReliability(BestEffort))
	if err != nil {
		t.Fatal(err)
	}
	defer pub.Close()
	py := startPyScript(t, peer, "rclpy_qos.py", prefix)

	want := map[string]IncompatibleQoSEvent{
		prefix + "/volatile":     {Topic: prefix + "/volatile", Kind: KindSubscription, LastPolicy: "DURABILITY"},
		prefix + "/best_effort":  {Topic: prefix + "/best_effort", Kind: KindSubscription, LastPolicy: "RELIABILITY"},
		prefix + "/reliable_sub": {Topic: prefix + "/reliable_sub", Kind: KindPublisher, LastPolicy: "RELIABILITY"},
	}
	got := map[string]IncompatibleQoSEvent{}
	for len(got) < len(want) {
		select {
		case e := <-events:
			got[e.Topic] = e
		case <-ctx.Done():
			t.Fatalf("incompatible QoS events: got %+v, want %+v", got, want)
		}
	}
	for topic, w := range want {
		g := got[topic]
		if g.Kind != w.Kind || g.LastPolicy != w.LastPolicy || g.TotalCount < 1 || g.TotalCountChange < 1 {
			t.Errorf("%s: event %+v, want kind %v policy %s", topic, g, w.Kind, w.LastPolicy)
		}
		if !logs.has(g.String()) {
			t.Errorf("%s: no warning %q logged; logged %q", topic, g.String(), logs.msgs)
		}
	}
	wantLine := "New publisher discovered on topic '" + prefix + "/volatile', offering incompatible QoS. " +
		"No messages will be received from it. Last incompatible policy: DURABILITY"
	if !logs.has(wantLine) {
		t.Errorf("no warning %q", wantLine)
	}
	wantLine = "New subscription discovered on topic '" + prefix + "/reliable_sub', requesting incompatible QoS. " +
		"No messages will be sent to it. Last incompatible policy: RELIABILITY"
	if !logs.has(wantLine) {
		t.Errorf("no warning %q", wantLine)
	}

	// rclpy reports the same pairs on its endpoints.
	pyWant := map[string][2]string{
		prefix + "/volatile":     {"publisher", "DURABILITY"},
		prefix + "/best_effort":  {"publisher", "RELIABILITY"},
		prefix + "/reliable_sub": {"subscription", "RELIABILITY"},
	}
	pyGot := map[string][2]string{}
	for len(pyGot) < len(pyWant) {
		e := py.next("incompatible")
		topic, _ := e["topic"].(string)
		kind, _ := e["kind"].(string)
		policy, _ := e["policy"].(string)
		pyGot[topic] = [2]string{kind, strings.ToUpper(policy)}
	}
	for topic, w := range pyWant {
		if pyGot[topic] != w {
			t.Errorf("rclpy's event on %s: %v, want %v", topic, pyGot[topic], w)
		}
	}

	// Nothing crosses an incompatible pair: rclpy has been publishing on
	// both of its topics every 100 ms since it started.
	if v, ok := volatileSub.Value(); ok {
		t.Errorf("the TRANSIENT_LOCAL subscription received %q from a VOLATILE publisher", v.Data)
	}
	if v, ok := reliableSub.Value(); ok {
		t.Errorf("the RELIABLE subscription received %q from a BEST_EFFORT publisher", v.Data)
	}
}
