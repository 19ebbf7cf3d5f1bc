package rmwzenoh

import (
	"bufio"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os/exec"
	"testing"
	"time"

	"github.com/afor-go/afor/internal/peers"
	"github.com/afor-go/afor/ros/internal/rmw"
	"github.com/afor-go/afor/transport/zenoh"
)

// advEvent is one JSON line of testdata/zenoh_adv.py.
type advEvent struct {
	Ev         string `json:"ev"`
	Payload    string `json:"payload"`
	Attachment string `json:"attachment"`
}

// pyScript is a running Python driver of testdata/.
type pyScript struct {
	t      *testing.T
	stdin  io.WriteCloser
	events chan advEvent
	exited chan struct{}
}

// startScript runs testdata/script with args on the reference Python and
// waits for its {"ev": "ready"}. It stops with the test.
func startScript(t *testing.T, script string, args ...string) *pyScript {
	t.Helper()
	py := peers.Python(t, "zenoh")
	cmd := exec.Command(py, append([]string{"testdata/" + script}, args...)...)
	p := &pyScript{t: t, events: make(chan advEvent, 256), exited: make(chan struct{})}
	var err error
	if p.stdin, err = cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		defer close(p.exited)
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			var ev advEvent
			if json.Unmarshal(sc.Bytes(), &ev) == nil && ev.Ev != "" {
				p.events <- ev
			}
		}
		_, _ = io.Copy(io.Discard, stdout)
	}()
	t.Cleanup(func() {
		_ = p.stdin.Close()
		select {
		case <-p.exited:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			<-p.exited
		}
		_ = cmd.Wait()
	})
	if ev := p.next(); ev.Ev != "ready" {
		t.Fatalf("first event %+v", ev)
	}
	return p
}

// next returns the next event.
func (p *pyScript) next() advEvent {
	p.t.Helper()
	select {
	case ev := <-p.events:
		return ev
	case <-p.exited:
		p.t.Fatal("Python driver exited")
	case <-time.After(20 * time.Second):
		p.t.Fatal("no event from the Python driver")
	}
	return advEvent{}
}

func (p *pyScript) send(cmd map[string]any) {
	b, _ := json.Marshal(cmd)
	if _, err := p.stdin.Write(append(b, '\n')); err != nil {
		p.t.Fatal(err)
	}
}

// A Go transient-local publisher's history reaches a late zenoh-ext
// AdvancedSubscriber configured as rmw_zenoh configures it, once per
// sample, followed by live samples.
func TestInteropAdvancedSubscriberGetsGoHistory(t *testing.T) {
	ctx := testCtx(t)
	s, err := Open(ctx, Config{Zenoh: zenoh.Config{Listen: []string{"tcp/127.0.0.1:0"}}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	pub, err := mustNode(t, s, "/", "latched_pub").CreatePublisher("/latched", stringType, rmw.QoS{Depth: 5, Durability: rmw.DurabilityTransientLocal})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		if err := pub.Publish(ctx, fmt.Appendf(nil, "go %d", i)); err != nil {
			t.Fatal(err)
		}
	}
	key := dataKey(0, "/latched", ddsString, hashString)
	py := startScript(t, "zenoh_adv.py", "sub", "--connect", s.ListenAddrs()[0], "--key", key, "--depth", "5")
	for i := range 3 {
		ev := py.next()
		if ev.Ev != "sample" || ev.Payload != fmt.Sprintf("go %d", i) {
			t.Fatalf("history sample %d: %+v", i, ev)
		}
		att, err := hex.DecodeString(ev.Attachment)
		if err != nil {
			t.Fatal(err)
		}
		a, err := parseAttachment(att)
		if err != nil || a.Seq != int64(i+1) || a.GID != pub.GID() {
			t.Fatalf("history sample %d attachment %+v, %v", i, a, err)
		}
	}
	if err := pub.(*publisher).pub.WaitMatching(ctx); err != nil {
		t.Fatal(err)
	}
	if err := pub.Publish(ctx, []byte("go live")); err != nil {
		t.Fatal(err)
	}
	if ev := py.next(); ev.Payload != "go live" {
		t.Fatalf("live sample: %+v (a duplicate?)", ev)
	}
}

// A zenoh-ext AdvancedPublisher's history (as rmw_zenoh's transient-local
// publishers offer it, with SourceInfo and heartbeats) reaches a late Go
// transient-local subscription, once per sample, followed by live samples.
func TestInteropGoLateJoinerGetsAdvancedPublisherHistory(t *testing.T) {
	ctx := testCtx(t)
	s, err := Open(ctx, Config{Zenoh: zenoh.Config{Listen: []string{"tcp/127.0.0.1:0"}}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	key := dataKey(0, "/latched", ddsString, hashString)
	py := startScript(t, "zenoh_adv.py", "pub", "--connect", s.ListenAddrs()[0], "--key", key, "--depth", "2", "--count", "3")
	// Wait for the publisher's @adv token, so that the first history query
	// reaches its cache (the token is declared after the cache queryable).
	tokens, err := zenoh.SubscribeLiveliness(s.z, key+"/@adv/pub/**")
	if err != nil {
		t.Fatal(err)
	}
	defer tokens.Close()
	if _, err := tokens.WaitForValue(ctx); err != nil {
		t.Fatal(err)
	}
	deliver, got := collect()
	sub, err := mustNode(t, s, "/", "latched_sub").CreateSubscription("/latched", stringType, rmw.QoS{Depth: 5, Durability: rmw.DurabilityTransientLocal}, deliver)
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Close()
	ms := expect(t, ctx, got, "adv 1", "adv 2")
	if ms[0].Info.Sequence != 2 || ms[1].Info.Sequence != 3 {
		t.Fatalf("history info %+v %+v", ms[0].Info, ms[1].Info)
	}
	// Live: the Python publisher learns of the Go subscriber by itself;
	// put until one arrives, then check nothing was duplicated.
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for i := 0; ; i++ {
		py.send(map[string]any{"op": "put", "payload": fmt.Sprintf("live %d", i)})
		select {
		case m := <-got:
			if want := fmt.Sprintf("live %d", i); string(m.Payload) != want {
				// An earlier live sample may arrive late: it must be the
				// next one in sequence, never a copy.
				if m.Info.Sequence <= 3 {
					t.Fatalf("duplicate %q seq %d", m.Payload, m.Info.Sequence)
				}
			}
			return
		case <-tick.C:
		case <-ctx.Done():
			t.Fatal("no live sample")
		}
	}
}
