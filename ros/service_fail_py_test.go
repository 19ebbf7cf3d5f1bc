package ros

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"log/slog"
	"testing"
	"time"

	"github.com/afor-go/afor/ros/msgs/std_srvs"
)

// failServiceName returns a service name of the test's own.
func failServiceName() string {
	var id [4]byte
	_, _ = rand.Read(id[:])
	return "/fail_" + hex.EncodeToString(id[:])
}

// TestServiceFailureGoServerRclpyClient: a Go server whose handler fails a
// request (Responder.Fail) sends rclpy nothing, since DDS services have no
// error reply: rclpy's call times out (its future stays pending until the
// client gives up), and the next request is answered as usual.
func TestServiceFailureGoServerRclpyClient(t *testing.T) {
	peer := rclpyMiddleware(t, "std_srvs")
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	c, err := Open(ctx, WithMiddleware(peer.mw), WithDomainID(peer.domain), WithLogger(slog.New(slog.DiscardHandler)))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	n, err := c.NewNode("go_fail_server")
	if err != nil {
		t.Fatal(err)
	}
	name := failServiceName()
	srv, err := NewServer(n, name, std_srvs.SetBool{})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	served := make(chan struct{})
	go func() {
		defer close(served)
		for r := range srv.ListenReliable(ctx) {
			go func() { // answered later, from another goroutine
				if !r.Request.Data {
					_ = r.Fail(errors.New("refused"))
					return
				}
				_ = r.Respond(std_srvs.SetBoolResponse{Success: true, Message: "go ok"})
			}()
		}
	}()
	py := startPyScript(t, peer, "rclpy_service_fail.py", "client", name)

	py.send(map[string]any{"op": "call", "data": false, "timeout": 2})
	if ev := py.next("timeout"); ev == nil {
		t.Fatal("rclpy got a reply to the failed request")
	}
	py.send(map[string]any{"op": "call", "data": true, "timeout": 20})
	ev := py.next("reply")
	if ev["success"] != true || ev["message"] != "go ok" {
		t.Errorf("rclpy's reply after the failed request: %v", ev)
	}
	cancel()
	<-served
}

// TestServiceFailureRclpyServerGoClient: an rclpy server whose callback
// raises sends no reply; the Go Call returns its ctx's error at the
// deadline, and the client stays usable: its next call is answered.
func TestServiceFailureRclpyServerGoClient(t *testing.T) {
	peer := rclpyMiddleware(t, "std_srvs")
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	c, err := Open(ctx, WithMiddleware(peer.mw), WithDomainID(peer.domain), WithLogger(slog.New(slog.DiscardHandler)))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	n, err := c.NewNode("go_fail_client")
	if err != nil {
		t.Fatal(err)
	}
	name := failServiceName()
	py := startPyScript(t, peer, "rclpy_service_fail.py", "server", name)
	cli, err := NewClient(n, name, std_srvs.SetBool{})
	if err != nil {
		t.Fatal(err)
	}
	if err := cli.WaitForServer(ctx); err != nil {
		t.Fatal(err)
	}
	callCtx, callCancel := context.WithTimeout(ctx, 2*time.Second)
	res, err := cli.Call(callCtx, std_srvs.SetBoolRequest{Data: false})
	callCancel()
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Call to a raising rclpy callback = %+v, %v; want the ctx's deadline", res, err)
	}
	py.next("raised")
	res, err = cli.Call(ctx, std_srvs.SetBoolRequest{Data: true})
	if err != nil || !res.Success || res.Message != "ok" {
		t.Fatalf("Call after the failed one = %+v, %v", res, err)
	}
}
