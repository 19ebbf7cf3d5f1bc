package zenoh

import "testing"

// A Rust subscriber reads the QoS a Go publisher sets: priority,
// congestion control and express, as Rust Zenoh's Sample reports them.
func TestInteropQoSGoToPython(t *testing.T) {
	s := openT(t, Config{Listen: []string{"tcp/127.0.0.1:0"}})
	py := startPy(t, "--mode", "peer", "--connect", s.ListenAddrs()[0])
	py.do(map[string]any{"op": "sub", "key": "qos/**"})
	ctx := testCtx(t)
	for _, tc := range []struct {
		opts []PutOption
		want string
	}{
		{nil, "DATA/DROP/-"},
		{[]PutOption{WithCongestionControl(CongestionBlock)}, "DATA/BLOCK/-"},
		{[]PutOption{WithPriority(PriorityRealTime), WithExpress(true)}, "REAL_TIME/DROP/express"},
		{[]PutOption{WithPriority(PriorityBackground), WithCongestionControl(CongestionBlock), WithExpress(true)}, "BACKGROUND/BLOCK/express"},
	} {
		p, err := s.DeclarePublisher("qos/x", tc.opts...)
		if err != nil {
			t.Fatal(err)
		}
		if err := p.WaitMatching(ctx); err != nil {
			t.Fatal(err)
		}
		if err := p.Put(ctx, []byte(tc.want)); err != nil {
			t.Fatal(err)
		}
		if ev := py.sample(); ev.Payload != tc.want || ev.QoS != tc.want {
			t.Errorf("python got %q with QoS %q, want %q", ev.Payload, ev.QoS, tc.want)
		}
	}
}
