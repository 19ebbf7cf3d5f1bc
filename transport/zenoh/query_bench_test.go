package zenoh

import (
	"context"
	"testing"

	"github.com/afor-go/afor"
)

// BenchmarkReqRep measures a query round trip between two sessions over
// TCP loopback, with a benchSize payload each way; compare it with
// BenchmarkPingPong/raw-tcp.
func BenchmarkReqRep(b *testing.B) {
	payload := make([]byte, benchSize)
	b.Run("get", func(b *testing.B) {
		a := openT(b, Config{Listen: []string{"tcp/127.0.0.1:0"}})
		c := openT(b, Config{Connect: a.ListenAddrs()})
		ctx := context.Background()
		qa, err := a.DeclareQueryable("bench/q", func(q *Query) {
			_ = q.ReplyAndFinish(ctx, "bench/q", q.Payload)
		})
		if err != nil {
			b.Fatal(err)
		}
		defer qa.Undeclare()
		waitQ(b, c, "bench/q")
		b.ReportAllocs()
		b.SetBytes(benchSize)
		for b.Loop() {
			replies, err := c.Get(ctx, "bench/q", WithQueryPayload(payload), WithConsolidation(ConsolidationNone))
			if err != nil {
				b.Fatal(err)
			}
			n := 0
			for range replies {
				n++
			}
			if n != 1 {
				b.Fatalf("%d replies", n)
			}
		}
	})
	b.Run("afor-call", func(b *testing.B) {
		a := openT(b, Config{Listen: []string{"tcp/127.0.0.1:0"}})
		c := openT(b, Config{Connect: a.ListenAddrs()})
		ctx := context.Background()
		srv, err := NewServer(a, "bench/svc", afor.BytesCodec{}, afor.BytesCodec{})
		if err != nil {
			b.Fatal(err)
		}
		defer srv.Close()
		srv.OnInput(func(r *afor.Responder[[]byte, []byte]) { _ = r.Respond(r.Request) })
		cli, err := NewClient(c, "bench/svc", afor.BytesCodec{}, afor.BytesCodec{})
		if err != nil {
			b.Fatal(err)
		}
		if err := cli.WaitForServer(testCtx(b)); err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		b.SetBytes(benchSize)
		for b.Loop() {
			if _, err := cli.Call(ctx, payload); err != nil {
				b.Fatal(err)
			}
		}
	})
}
