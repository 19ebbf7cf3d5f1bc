package scenario

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/afor-go/afor/internal/peers"
	"github.com/afor-go/afor/transport/zenoh"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	if handled, err := RunChild(); handled { // the remote side of zenoh-proc
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	goleak.VerifyTestMain(m)
}

func TestMsgRoundTrip(t *testing.T) {
	for _, size := range []int{0, HeaderSize, 17, 4096} {
		in := Msg{Seq: 1<<63 + 5, Stamp: -42}
		b := AppendMsg([]byte("x"), in, size)
		if want := 1 + max(size, HeaderSize); len(b) != want {
			t.Fatalf("size %d: encoded %d bytes, want %d", size, len(b), want)
		}
		out, err := Codec{Size: size}.Decode(b[1:])
		if err != nil || out.Seq != in.Seq || out.Stamp != in.Stamp || out.Body != nil {
			t.Fatalf("size %d: decoded %+v, %v; want %+v", size, out, err, in)
		}
	}
	if _, err := DecodeMsg(make([]byte, HeaderSize-1)); !errors.Is(err, ErrShortMessage) {
		t.Fatalf("short message: %v, want ErrShortMessage", err)
	}
}

func FuzzDecodeMsg(f *testing.F) {
	f.Add([]byte{})
	f.Add(make([]byte, HeaderSize-1))
	f.Add(AppendMsg(nil, Msg{Seq: 7, Stamp: 9}, 64))
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := DecodeMsg(b)
		if len(b) < HeaderSize {
			if !errors.Is(err, ErrShortMessage) {
				t.Fatalf("%d bytes: err %v", len(b), err)
			}
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		again := AppendMsg(nil, m, len(b))
		if string(again[:HeaderSize]) != string(b[:HeaderSize]) {
			t.Fatalf("header not preserved: %x vs %x", again[:HeaderSize], b[:HeaderSize])
		}
	})
}

func TestQuantile(t *testing.T) {
	var s []time.Duration
	for i := 1; i <= 1000; i++ {
		s = append(s, time.Duration(1001-i))
	}
	l := Summarize(s)
	want := Latency{Min: 1, Mean: 500, P50: 500, P90: 900, P99: 990, P999: 999, Max: 1000}
	if *l != want {
		t.Fatalf("got %+v, want %+v", *l, want)
	}
	if Summarize(nil) != nil || Quantile(nil, 0.5) != 0 {
		t.Fatal("empty input must give nothing")
	}
	if got := Quantile([]time.Duration{3}, 0.999); got != 3 {
		t.Fatalf("one sample: %v", got)
	}
}

func TestEcho(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for _, tr := range testTransports(t, "echo") {
		for _, mode := range []Mode{ModeAfor, ModeNative} {
			t.Run(tr.Name+"/"+string(mode), func(t *testing.T) {
				e, err := NewEcho(ctx, tr, mode, 100)
				if err != nil {
					t.Fatal(err)
				}
				for range 200 {
					if err := e.RoundTrip(ctx); err != nil {
						e.Close()
						t.Fatal(err)
					}
				}
				if e.seq != 400 {
					t.Errorf("seq %d after 200 round trips", e.seq)
				}
				if err := e.Close(); err != nil {
					t.Fatal(err)
				}
			})
		}
	}
	for _, f := range Floors() {
		t.Run("floor/"+string(f), func(t *testing.T) {
			r := RunEchoFloor(ctx, f, EchoConfig{Size: 64, Duration: 20 * time.Millisecond, Warmup: 10})
			if r.Error != "" || r.Ops < 2 || r.NsPerOp <= 0 {
				t.Fatalf("%+v", r)
			}
		})
	}
}

func TestEchoBadMode(t *testing.T) {
	if _, err := NewEcho(context.Background(), Mem(), ModeFloor, 16); !errors.Is(err, ErrBadConfig) {
		t.Fatalf("err %v, want ErrBadConfig", err)
	}
}

func TestThroughputLosesNothing(t *testing.T) {
	ctx := context.Background()
	for _, tr := range testTransports(t, "throughput") {
		for _, mode := range []Mode{ModeAfor, ModeNative} {
			t.Run(tr.Name+"/"+string(mode), func(t *testing.T) {
				r := RunThroughput(ctx, tr, mode, ThroughputConfig{Size: 1000, Duration: 30 * time.Millisecond, Window: 8, Warmup: 20})
				if r.Error != "" || r.Dropped != 0 || r.Failed != 0 || r.Ops == 0 {
					t.Fatalf("%+v", r)
				}
				if r.Sent != r.Ops+20 {
					t.Errorf("sent %d, measured %d + warm-up 20", r.Sent, r.Ops)
				}
				if r.BytesPerSec != r.Rate*1000 {
					t.Errorf("bytes/s %v, rate %v", r.BytesPerSec, r.Rate)
				}
			})
		}
	}
	for _, f := range Floors() {
		t.Run("floor/"+string(f), func(t *testing.T) {
			r := RunThroughputFloor(ctx, f, ThroughputConfig{Size: 70000, Duration: 20 * time.Millisecond})
			if f == FloorUDP {
				if r.Skipped == "" {
					t.Fatal("udp throughput must be skipped")
				}
				return
			}
			if r.Error != "" || r.Dropped != 0 || r.Failed != 0 || r.Ops == 0 {
				t.Fatalf("%+v", r)
			}
		})
	}
}

func TestLatency(t *testing.T) {
	ctx := context.Background()
	cfg := LatencyConfig{Size: 64, Period: 500 * time.Microsecond, Count: 40, Warmup: 5}
	for _, tr := range testTransports(t, "latency") {
		for _, mode := range []Mode{ModeAfor, ModeNative} {
			t.Run(tr.Name+"/"+string(mode), func(t *testing.T) {
				r := RunLatency(ctx, tr, mode, cfg) // unbounded queue: nothing may drop
				if r.Error != "" || r.Dropped != 0 || r.Failed != 0 {
					t.Fatalf("%+v", r)
				}
				if r.Ops != 40 || len(r.Samples) != 40 || r.Sent != 45 || r.Latency == nil {
					t.Fatalf("ops %d samples %d sent %d", r.Ops, len(r.Samples), r.Sent)
				}
				if l := r.Latency; l.Min <= 0 || l.P50 < l.Min || l.P99 < l.P50 || l.Max < l.P999 {
					t.Fatalf("inconsistent %+v", l)
				}
			})
		}
	}
	for _, f := range []Floor{FloorChan, FloorTCP, FloorTCPProc} {
		t.Run("floor/"+string(f), func(t *testing.T) {
			r := RunLatencyFloor(ctx, f, cfg)
			if r.Error != "" || r.Dropped != 0 || r.Failed != 0 || r.Ops != 40 || len(r.Samples) != 40 {
				t.Fatalf("%+v", r)
			}
			// tcp-proc's latencies are measured by the child and carried
			// back in its acknowledgements: they must be real durations.
			if l := r.Latency; l == nil || l.Min <= 0 || l.Max > 10*time.Second || l.P50 < l.Min || l.Max < l.P999 {
				t.Fatalf("inconsistent %+v", l)
			}
		})
	}
	r := RunLatency(ctx, Mem(), ModeAfor, LatencyConfig{Period: time.Millisecond})
	if r.Error == "" {
		t.Fatal("count 0 must fail")
	}
}

func TestRequest(t *testing.T) {
	ctx := context.Background()
	for _, tr := range testTransports(t, "request") {
		for _, mode := range []Mode{ModeAfor, ModeNative} {
			t.Run(tr.Name+"/"+string(mode), func(t *testing.T) {
				r := RunRequest(ctx, tr, mode, 100, 20*time.Millisecond, 5, nil)
				if tr.Name == "mem" && mode == ModeNative {
					if r.Skipped == "" {
						t.Fatalf("mem has no native request/reply, the row must be skipped: %+v", r)
					}
					return
				}
				if r.Skipped != "" || r.Error != "" || r.Ops == 0 || r.Failed != 0 || r.Size != 100 {
					t.Fatalf("%+v", r)
				}
			})
		}
	}
	if _, err := NewCalls(ctx, Mem(), ModeFloor, 16); !errors.Is(err, ErrBadConfig) {
		t.Fatalf("mode floor: %v, want ErrBadConfig", err)
	}
	for _, f := range Floors() {
		t.Run("floor/"+string(f), func(t *testing.T) {
			r := RunRequestFloor(ctx, f, 32, 20*time.Millisecond, 10, nil)
			if r.Error != "" || r.Ops == 0 || r.Scenario != "request" || r.Mode != ModeFloor {
				t.Fatalf("%+v", r)
			}
		})
	}
}

// TestRequestChecksReplies makes sure a native call fails unless exactly
// one good reply ends its query, and that a wrong answer fails the call.
func TestRequestChecksReplies(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s, err := zenoh.Open(ctx, zenoh.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, tc := range []struct {
		name    string
		handler func(q *zenoh.Query)
		want    error
	}{
		{"none", func(q *zenoh.Query) { q.Finish() }, ErrUnexpected},
		{"two", func(q *zenoh.Query) {
			defer q.Finish()
			b := AppendMsg(nil, Msg{Seq: 1}, 32)
			_ = q.Reply(ctx, q.KeyExpr, b)
			_ = q.Reply(ctx, q.KeyExpr, b)
		}, ErrUnexpected},
		{"short", func(q *zenoh.Query) {
			defer q.Finish()
			_ = q.Reply(ctx, q.KeyExpr, []byte("short"))
		}, ErrShortMessage},
		{"error", func(q *zenoh.Query) {
			defer q.Finish()
			_ = q.ReplyErr(ctx, []byte("no"))
		}, zenoh.ErrReplyError},
		{"wrong", func(q *zenoh.Query) {
			defer q.Finish()
			_ = q.Reply(ctx, q.KeyExpr, AppendMsg(nil, Msg{Seq: 7}, 32))
		}, ErrUnexpected},
	} {
		t.Run(tc.name, func(t *testing.T) {
			key := "afor_bench/test/" + tc.name
			qa, err := s.DeclareQueryable(key, tc.handler)
			if err != nil {
				t.Fatal(err)
			}
			defer qa.Undeclare()
			call, err := zenohQuerier(ctx, s, key, 32)
			if err != nil {
				t.Fatal(err)
			}
			c := &Calls{call: call}
			if err := c.Call(ctx); !errors.Is(err, tc.want) {
				t.Fatalf("err %v, want %v", err, tc.want)
			}
		})
	}
}

func TestPythonEcho(t *testing.T) {
	py := peers.Python(t, PythonModules()...)
	if err := CheckPython(context.Background(), py); err != nil {
		t.Fatal(err)
	}
	for _, mode := range []PythonMode{PythonInproc, PythonZenoh, PythonZenohProc} {
		r, rep := RunEchoPython(context.Background(), py, mode, 200*time.Millisecond, 50*time.Millisecond)
		if r.Error != "" || r.Ops <= 0 || rep == nil || rep.Afor == "" {
			t.Fatalf("%s: %+v %+v", mode, r, rep)
		}
	}
	if err := CheckPython(context.Background(), ""); !errors.Is(err, ErrUnsupported) {
		t.Fatalf("no interpreter: %v", err)
	}
}

func TestCombine(t *testing.T) {
	runs := []Result{
		{NsPerOp: 30, Sent: 1, Dropped: 1},
		{NsPerOp: 10, Sent: 2, Late: 2},
		{NsPerOp: 20, Sent: 3, Failed: 3},
	}
	m := Combine(runs, false)
	if m.NsPerOp != 20 || m.Runs != 3 || m.MinNsPerOp != 10 || m.MaxNsPerOp != 30 ||
		m.Sent != 6 || m.Dropped != 1 || m.Late != 2 || m.Failed != 3 {
		t.Fatalf("median: %+v", m)
	}
	if b := Combine(runs, true); b.NsPerOp != 10 || b.Sent != 6 {
		t.Fatalf("best: %+v", b)
	}
	bad := Combine(append(runs, Result{Error: "boom"}), false)
	if bad.Error != "boom" || bad.Runs != 4 {
		t.Fatalf("a failed run must show: %+v", bad)
	}
	if r := Combine(nil, false); r.Runs != 0 || r.Name() != "///0B" {
		t.Fatal("no runs")
	}
}

func TestChildFailureIsReported(t *testing.T) {
	_, err := startChild(context.Background(), childConfig{Role: "bogus"})
	if err == nil || !strings.Contains(err.Error(), `child role "bogus"`) {
		t.Fatalf("err %v: want the child's own error", err)
	}
	_, err = startChild(context.Background(), childConfig{Role: "bogus", Floor: true})
	if err == nil || !strings.Contains(err.Error(), `floor child role "bogus"`) {
		t.Fatalf("err %v: want the floor child's own error", err)
	}
	// A floor child that cannot reach its parent fails before it is ready.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	if _, err := startChild(context.Background(), childConfig{Role: roleEcho, Floor: true, Connect: addr, Size: 64}); err == nil {
		t.Fatal("a floor child without its parent must fail")
	}
	if handled, err := RunChild(); handled || err != nil {
		t.Fatalf("not a child: handled %v, err %v", handled, err)
	}
}

// testTransports returns the transports that run scenario sc, in tests
// only those the bench runs by default (the explicit ones run in the
// bench's TestSmokeLinks), in benchmarks all; the transports that start
// the Rust stack only when the Python package is installed (outside CI,
// else the test fails).
func testTransports(tb testing.TB, sc string) []Transport {
	_, isTest := tb.(*testing.T)
	var out []Transport
	for _, tr := range Transports() {
		if tr.Explicit && isTest || len(tr.Scenarios) > 0 && !slices.Contains(tr.Scenarios, sc) {
			continue
		}
		if tr.NeedsPython {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			err := CheckPythonModules(ctx, peers.PythonPath(), RouterModules()...)
			cancel()
			if err != nil {
				if os.Getenv("CI") != "" {
					tb.Errorf("%s: %v", tr.Name, err)
				} else {
					tb.Logf("%s left out: %v", tr.Name, err)
				}
				continue
			}
		}
		out = append(out, tr)
	}
	return out
}

// TestRequestAllocs checks that the harness adds no allocation per call
// to what the transport allocates: a native call (harness querier and
// queryable) allocates no more than the bare Session.Get answered by a
// bare queryable, and an afor call through Calls no more than Client.Call.
func TestRequestAllocs(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s, err := zenoh.Open(ctx, zenoh.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	const size = 64
	p := zenohPeer(s, "afor_bench/allocs/", size)
	stop, err := RequestResponder(p, ModeNative, size)
	if err != nil {
		t.Fatal(err)
	}
	call, err := p.Querier(ctx, reqKey)
	if err != nil {
		t.Fatal(err)
	}
	c := &Calls{call: call}
	harness := testing.AllocsPerRun(200, func() {
		if err := c.Call(ctx); err != nil {
			t.Fatal(err)
		}
	})
	reply := AppendMsg(nil, Msg{Seq: 1}, size)
	qa, err := s.DeclareQueryable("afor_bench/allocs/bare", func(q *zenoh.Query) {
		_ = q.Reply(ctx, q.KeyExpr, reply)
		q.Finish()
	})
	if err != nil {
		t.Fatal(err)
	}
	defer qa.Undeclare()
	opts := []zenoh.GetOption{zenoh.WithQueryPayload(AppendMsg(nil, Msg{}, size)), zenoh.WithConsolidation(zenoh.ConsolidationNone)}
	bare := testing.AllocsPerRun(200, func() {
		replies, err := s.Get(ctx, "afor_bench/allocs/bare", opts...)
		if err != nil {
			t.Fatal(err)
		}
		for range replies {
		}
	})
	if harness > bare {
		t.Errorf("native call: %v allocations, the bare Get %v", harness, bare)
	}
	t.Logf("allocations per call: native %v, bare Get %v", harness, bare)
	if err := stop(); err != nil {
		t.Fatal(err)
	}

	stopAfor, err := RequestResponder(p, ModeAfor, size)
	if err != nil {
		t.Fatal(err)
	}
	defer stopAfor()
	cli, err := p.Client(reqKey)
	if err != nil {
		t.Fatal(err)
	}
	c = &Calls{call: cli.Call}
	harness = testing.AllocsPerRun(200, func() {
		if err := c.Call(ctx); err != nil {
			t.Fatal(err)
		}
	})
	var seq uint64
	bare = testing.AllocsPerRun(200, func() {
		if _, err := cli.Call(ctx, Msg{Seq: seq}); err != nil {
			t.Fatal(err)
		}
		seq++
	})
	if harness > bare {
		t.Errorf("afor call: %v allocations, the bare Client.Call %v", harness, bare)
	}
	t.Logf("allocations per call: afor %v, bare Client.Call %v", harness, bare)
}

// TestFloorAllocs checks that the tcp floors add no allocation per message:
// this process's side of the echo and of the acknowledged stream, and the
// tcp-proc child's loops (run here over a TCP pair, both ends counted).
func TestFloorAllocs(t *testing.T) {
	ctx := context.Background()
	for _, f := range []Floor{FloorTCP, FloorTCPProc} {
		e, err := NewEchoFloor(ctx, f, 64)
		if err != nil {
			t.Fatal(err)
		}
		echo := testing.AllocsPerRun(500, func() {
			if err := e.RoundTrip(ctx); err != nil {
				t.Fatal(err)
			}
		})
		if err := e.Close(); err != nil {
			t.Fatal(err)
		}
		s, err := NewFloorStream(ctx, f, StreamConfig{Size: 64, Window: 16})
		if err != nil {
			t.Fatal(err)
		}
		stream := testing.AllocsPerRun(2000, func() {
			if err := s.Send(ctx); err != nil {
				t.Fatal(err)
			}
		})
		err = s.Drain(ctx)
		if cerr := s.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			t.Fatal(err)
		}
		if echo != 0 || stream != 0 {
			t.Errorf("%s: %v allocations per round trip, %v per streamed message", f, echo, stream)
		}
	}

	a, b, closeAll, err := openTCP(ctx, 64)
	if err != nil {
		t.Fatal(err)
	}
	served := make(chan error, 1)
	go func() { served <- serveFloorEcho(b.(*streamPipe).conn, 64) }()
	var seq uint64
	echo := testing.AllocsPerRun(500, func() {
		if err := a.Send(Msg{Seq: seq}); err != nil {
			t.Fatal(err)
		}
		m, err := a.Recv()
		if err != nil || m.Seq != seq+1 {
			t.Fatalf("answer %+v, %v", m, err)
		}
		seq += 2
	})
	closeAll()
	if err := <-served; !closedConn(err) {
		t.Fatal(err)
	}

	a, b, closeAll, err = openTCP(ctx, 64)
	if err != nil {
		t.Fatal(err)
	}
	defer closeAll()
	go func() { served <- serveFloorSink(b.(*streamPipe).conn, 64, time.Now().UnixNano()) }()
	acks := &streamPipe{conn: a.(*streamPipe).conn, wbuf: AppendMsg(nil, Msg{}, 64), rbuf: make([]byte, HeaderSize)}
	seq = 0
	sink := testing.AllocsPerRun(500, func() {
		if err := acks.Send(Msg{Seq: seq}); err != nil {
			t.Fatal(err)
		}
		m, err := acks.Recv()
		if err != nil || m.Seq != seq || m.Stamp <= 0 {
			t.Fatalf("ack %+v, %v", m, err)
		}
		seq++
	})
	closeAll()
	if err := <-served; !closedConn(err) {
		t.Fatal(err)
	}
	if echo != 0 || sink != 0 {
		t.Errorf("tcp-proc child loops: %v allocations per answer, %v per acknowledgement", echo, sink)
	}
}
