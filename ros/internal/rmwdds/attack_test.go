package rmwdds

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"sync"
	"testing"
	"time"

	"github.com/afor-go/afor/internal/netns"
	"github.com/afor-go/afor/ros/internal/rmw"
	"github.com/afor-go/afor/transport/dds"
)

// TestAttackDiscoveryInfoFlood (issue 25): a participant publishes
// thousands of ros_discovery_info samples, each for a new GID (and then
// some with thousands of nodes), at a high rate, beside a legitimate
// stream. The graph never holds the fake nodes, the stream loses nothing,
// and nothing of the participant is left once it is gone.
func TestAttackDiscoveryInfoFlood(t *testing.T) {
	netns.Require(t)
	victim, _ := sessionPair(t)
	d := victim.Participant().DomainID()
	cfg := dds.Config{DomainID: d, ExactDomain: true, Range: dds.RangeLocalhost, Getenv: func(string) string { return "" }}
	attacker, err := dds.NewParticipant(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer attacker.Close()
	legit, err := dds.NewParticipant(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer legit.Close()

	// The legitimate stream: 600 samples at 300/s.
	topic := dds.Topic{Name: "rt/legit", TypeName: stringType.DDSName}
	lw, err := dds.NewWriter(legit, topic, dds.QoS{Reliability: dds.Reliable, History: dds.KeepAll, MaxBlocking: 30 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var got []uint64
	lr, err := dds.NewReaderFunc(victim.Participant(), topic, dds.QoS{Reliability: dds.Reliable, History: dds.KeepAll}, func(s dds.Sample) {
		mu.Lock()
		got = append(got, binary.LittleEndian.Uint64(s.Payload[4:]))
		mu.Unlock()
	})
	if err != nil {
		t.Fatal(err)
	}
	defer lr.Close()
	iw, err := dds.NewWriter(attacker, DiscoveryInfoTopic(), DiscoveryInfoWriterQoS())
	if err != nil {
		t.Fatal(err)
	}
	ctx := waitCtx(t)
	if err := lw.WaitMatched(ctx, 1); err != nil {
		t.Fatal(err)
	}
	if err := iw.WaitMatched(ctx, 1); err != nil {
		t.Fatal(err)
	}
	const n = 600
	done := make(chan error, 1)
	go func() {
		buf := make([]byte, 12)
		copy(buf, []byte{0, 1, 0, 0})
		for i := range n {
			binary.LittleEndian.PutUint64(buf[4:], uint64(i))
			if err := lw.Write(context.Background(), buf); err != nil {
				done <- err
				return
			}
			time.Sleep(3 * time.Millisecond)
		}
		done <- nil
	}()
	// The flood: a new GID per sample, then this participant's own GID
	// with more nodes than allowed.
	var buf []byte
	for i := range 3000 {
		var g dds.GUID
		_, _ = rand.Read(g[:])
		info := ParticipantInfo{GUID: g, Nodes: []NodeEntities{{Namespace: "/", Name: "fake"}}}
		if i%10 == 9 {
			info.GUID = attacker.GUID()
			info.Nodes = make([]NodeEntities, MaxNodesPerParticipant+1)
			for j := range info.Nodes {
				info.Nodes[j] = NodeEntities{Namespace: "/", Name: "many"}
			}
		}
		buf, _ = info.AppendCDR(buf[:0])
		if err := iw.Write(context.Background(), buf); err != nil {
			t.Fatal(err)
		}
		if i%10 == 0 {
			time.Sleep(time.Millisecond)
		}
	}
	// Then a legitimate sample of the attacker: one node.
	buf, _ = (&ParticipantInfo{GUID: attacker.GUID(), Nodes: []NodeEntities{{Namespace: "/", Name: "last"}}}).AppendCDR(buf[:0])
	if err := iw.Write(context.Background(), buf); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	waitGraph(t, victim, func(g *rmw.Graph) bool {
		for _, nd := range g.Nodes {
			if nd.Name == "last" {
				return true
			}
		}
		return false
	})
	for {
		mu.Lock()
		k := len(got)
		mu.Unlock()
		if k >= n {
			break
		}
		select {
		case <-ctx.Done():
			t.Fatalf("legit stream: %d of %d received", k, n)
		case <-time.After(10 * time.Millisecond):
		}
	}
	for i, v := range got {
		if v != uint64(i) {
			t.Fatalf("legit stream: sample %d is %d", i, v)
		}
	}
	st := victim.Stats()
	t.Logf("refused %d ros_discovery_info samples", st.RefusedDiscoveryInfo)
	if st.RefusedDiscoveryInfo == 0 {
		t.Error("no sample refused")
	}
	g := waitGraph(t, victim, func(*rmw.Graph) bool { return true })
	for _, nd := range g.Nodes {
		if nd.Name == "fake" || nd.Name == "many" {
			t.Fatalf("graph holds node %v", nd)
		}
	}
	// Gone with its participant.
	attacker.Close()
	waitGraph(t, victim, func(g *rmw.Graph) bool {
		for _, nd := range g.Nodes {
			if nd.Name == "last" {
				return false
			}
		}
		return true
	})
	victim.mu.Lock()
	kept := len(victim.cache.infos)
	victim.mu.Unlock()
	if kept > 2 { // this session's and the other's of sessionPair
		t.Errorf("%d participants' ros_discovery_info kept, want 2", kept)
	}
}
