package ros_test

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/afor-go/afor"
	"github.com/afor-go/afor/ros"
	"github.com/afor-go/afor/ros/cdr"
	"github.com/afor-go/afor/ros/msgs/std_msgs"
	"github.com/afor-go/afor/ros/msgs/std_srvs"
)

func TestServiceDeferredAndFailed(t *testing.T) {
	net := ros.NewMemoryNetwork()
	srvNode := memNode(t, net, "server", ros.WithNamespace("/robot"))
	cliNode := memNode(t, net, "client")
	srv, err := ros.NewServer(srvNode, "~/set", std_srvs.SetBool{})
	if err != nil {
		t.Fatal(err)
	}
	ctx := testCtx(t)
	go func() {
		for r := range srv.ListenReliable(ctx) {
			go func() {
				if !r.Request.Data {
					_ = r.Fail(errors.New("refused"))
					return
				}
				_ = r.Respond(std_srvs.SetBoolResponse{Success: true, Message: "done"})
			}()
		}
	}()
	cli, err := ros.NewClient(cliNode, "/robot/server/set", std_srvs.SetBool{})
	if err != nil {
		t.Fatal(err)
	}
	if err := cli.WaitForServer(ctx); err != nil {
		t.Fatal(err)
	}
	res, err := cli.Call(ctx, std_srvs.SetBoolRequest{Data: true})
	if err != nil || !res.Success || res.Message != "done" {
		t.Fatalf("Call(true) = %+v, %v", res, err)
	}
	if _, err := cli.Call(ctx, std_srvs.SetBoolRequest{Data: false}); err == nil || !strings.Contains(err.Error(), "refused") {
		t.Fatalf("Call(false) error = %v, want the server's", err)
	}
	srv.Close()
	if _, err := cli.Call(ctx, std_srvs.SetBoolRequest{Data: true}); !errors.Is(err, afor.ErrNoServer) {
		t.Fatalf("Call after the server closed: %v, want ErrNoServer", err)
	}
}

func TestWaitForServerThenServerAppears(t *testing.T) {
	net := ros.NewMemoryNetwork()
	cli, err := ros.NewClient(memNode(t, net, "client"), "late", std_srvs.Trigger{})
	if err != nil {
		t.Fatal(err)
	}
	short, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
	defer cancel()
	if err := cli.WaitForServer(short); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("WaitForServer without server: %v", err)
	}
	ready := make(chan error, 1)
	go func() { ready <- cli.WaitForServer(testCtx(t)) }()
	if _, err := ros.NewServer(memNode(t, net, "server"), "late", std_srvs.Trigger{}); err != nil {
		t.Fatal(err)
	}
	if err := <-ready; err != nil {
		t.Fatal(err)
	}
}

// fakeSetBool is a SetBool whose requests encode as strings: a client
// that sends malformed requests.
type fakeSetBool struct{ std_srvs.SetBool }

func (fakeSetBool) RequestCodec() cdr.MessageCodec[fakeRequest, *fakeRequest] {
	return cdr.Codec[fakeRequest]()
}

type fakeRequest struct{ std_msgs.String }

func (*fakeRequest) TypeName() string    { return req().TypeName() }
func (*fakeRequest) DDSTypeName() string { return req().DDSTypeName() }
func (*fakeRequest) TypeHash() string    { return req().TypeHash() }

func req() cdr.Named { return &std_srvs.SetBoolRequest{} }

func TestMalformedRequest(t *testing.T) {
	net := ros.NewMemoryNetwork()
	n := memNode(t, net, "n", ros.WithLogger(slog.New(slog.DiscardHandler)))
	srv, err := ros.NewServer(n, "set", std_srvs.SetBool{})
	if err != nil {
		t.Fatal(err)
	}
	bad, err := ros.NewClient(n, "set", fakeSetBool{})
	if err != nil {
		t.Fatal(err)
	}
	ctx := testCtx(t)
	if _, err := bad.Call(ctx, fakeRequest{std_msgs.String{Data: "not a bool"}}); err == nil || !strings.Contains(err.Error(), "malformed request") {
		t.Fatalf("malformed request: %v", err)
	}
	if got := n.Stats().Malformed; got != 1 {
		t.Errorf("Malformed = %d, want 1", got)
	}
	if st := srv.Stats(); st.Inputs != 0 {
		t.Errorf("server got the malformed request: %+v", st)
	}
	// The server goes on.
	go func() {
		if r, err := srv.WaitForValue(ctx); err == nil {
			_ = r.Respond(std_srvs.SetBoolResponse{Success: r.Request.Data})
		}
	}()
	good, err := ros.NewClient(n, "set", std_srvs.SetBool{})
	if err != nil {
		t.Fatal(err)
	}
	if res, err := good.Call(ctx, std_srvs.SetBoolRequest{Data: true}); err != nil || !res.Success {
		t.Fatalf("good call after a malformed one: %+v, %v", res, err)
	}
}

func TestClientAfterNodeClose(t *testing.T) {
	net := ros.NewMemoryNetwork()
	n := memNode(t, net, "n")
	cli, err := ros.NewClient(n, "x", std_srvs.Empty{})
	if err != nil {
		t.Fatal(err)
	}
	_ = n.Close()
	if _, err := cli.Call(testCtx(t), std_srvs.EmptyRequest{}); !errors.Is(err, ros.ErrClosed) {
		t.Errorf("Call on a closed node: %v", err)
	}
	if err := cli.WaitForServer(testCtx(t)); !errors.Is(err, ros.ErrClosed) {
		t.Errorf("WaitForServer on a closed node: %v", err)
	}
	if _, err := ros.NewServer(n, "x", std_srvs.Empty{}); !errors.Is(err, ros.ErrClosed) {
		t.Errorf("NewServer on a closed node: %v", err)
	}
	for _, name := range []string{"", "1x", "x//y", "~y"} {
		if _, err := ros.NewServer(memNode(t, net, "m"), name, std_srvs.Empty{}); !errors.Is(err, ros.ErrInvalidName) {
			t.Errorf("NewServer(%q): %v", name, err)
		}
	}
}
