package ros_test

import (
	"context"
	"testing"
	"time"

	"github.com/afor-go/afor/ros"
)

// memNode returns a node on net, closed with the test.
func memNode(t testing.TB, net *ros.MemoryNetwork, name string, opts ...ros.Option) *ros.Node {
	t.Helper()
	opts = append([]ros.Option{ros.WithMiddleware(ros.Memory(net))}, opts...)
	n, err := ros.NewNode(context.Background(), name, opts...)
	if err != nil {
		t.Fatalf("NewNode(%q): %v", name, err)
	}
	t.Cleanup(func() { _ = n.Close() })
	return n
}

func testCtx(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	t.Cleanup(cancel)
	return ctx
}
