package ros

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/afor-go/afor/ros/internal/rmwzenoh"
	"github.com/afor-go/afor/transport/zenoh"
)

// zenohPair opens two contexts on rmw_zenoh, the second connected to the
// first over TCP loopback, both closed with the test.
func zenohPair(t *testing.T) (*Context, *Context) { return zenohPairB(t) }

func zenohPairB(t testing.TB) (*Context, *Context) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	quiet := WithLogger(slog.New(slog.DiscardHandler))
	a, err := Open(ctx, WithMiddleware(Zenoh(zenoh.Config{Listen: []string{"tcp/127.0.0.1:0"}})), quiet)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = a.Close() })
	addrs := a.sess.(*rmwzenoh.Session).ListenAddrs()
	if len(addrs) == 0 {
		t.Fatal("no listen address")
	}
	b, err := Open(ctx, WithMiddleware(Zenoh(zenoh.Config{Connect: addrs[:1]})), quiet)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = b.Close() })
	return a, b
}

func newTestNode(t *testing.T, c *Context, name string) *Node {
	t.Helper()
	n, err := c.NewNode(name)
	if err != nil {
		t.Fatal(err)
	}
	return n
}
