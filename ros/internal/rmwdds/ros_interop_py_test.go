package rmwdds_test

import (
	"bufio"
	"context"
	"encoding/json"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/afor-go/afor/internal/netns"
	"github.com/afor-go/afor/internal/peers"
	"github.com/afor-go/afor/ros"
	"github.com/afor-go/afor/ros/msgs/std_srvs"
	"github.com/afor-go/afor/transport/dds"
)

// TestInteropRclpyNodeAPI runs package ros's node API on ros.DDS next to
// the rclpy node of testdata/rclpy_service_peer.py on Fast DDS: a Go
// client waits for rclpy's server (WaitForServer) and calls it, and a Go
// server answers rclpy's client later, from another goroutine.
func TestInteropRclpyNodeAPI(t *testing.T) {
	netns.Require(t)
	py := peers.Python(t, "rclpy", "std_srvs.srv", "std_msgs.msg")
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	const d = 149 // the internal tests take 150 to 199

	node, err := ros.NewNode(ctx, "gonode", ros.WithDomainID(d), ros.WithLogger(slog.New(slog.DiscardHandler)),
		ros.WithMiddleware(ros.DDS(dds.Config{Range: dds.RangeSubnet, Getenv: func(string) string { return "" }})))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = node.Close() })
	srv, err := ros.NewServer(node, "/go_set", std_srvs.SetBool{})
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		for r := range srv.ListenReliable(ctx) {
			go func() { // a deferred answer, from another goroutine
				_ = r.Respond(std_srvs.SetBoolResponse{Success: r.Request.Data, Message: "go " + strconv.FormatBool(r.Request.Data)})
			}()
		}
	}()
	cli, err := ros.NewClient(node, "/py_set", std_srvs.SetBool{})
	if err != nil {
		t.Fatal(err)
	}

	cmd := exec.CommandContext(ctx, py, filepath.Join("testdata", "rclpy_service_peer.py"))
	cmd.Env = append(os.Environ(), "RMW_IMPLEMENTATION=rmw_fastrtps_cpp", "FASTDDS_BUILTIN_TRANSPORTS=UDPv4",
		"ROS_DOMAIN_ID="+strconv.Itoa(d), "ROS_AUTOMATIC_DISCOVERY_RANGE=SUBNET")
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	responses := make(chan string, 16)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			var ev struct {
				Ev      string `json:"ev"`
				Success bool   `json:"success"`
				Message string `json:"message"`
			}
			if json.Unmarshal(sc.Bytes(), &ev) == nil && ev.Ev == "response" && ev.Success {
				select {
				case responses <- ev.Message:
				default:
				}
			}
		}
	}()
	t.Cleanup(func() {
		_ = stdin.Close()
		wg.Wait()
		_ = cmd.Wait()
	})

	if err := cli.WaitForServer(ctx); err != nil {
		t.Fatal(err)
	}
	res, err := cli.Call(ctx, std_srvs.SetBoolRequest{Data: true})
	if err != nil || !res.Success || res.Message != "py True" {
		t.Fatalf("Call to rclpy = %+v, %v", res, err)
	}
	select {
	case m := <-responses:
		if m != "go true" {
			t.Errorf("rclpy client got %q", m)
		}
	case <-ctx.Done():
		t.Fatal("the rclpy client got no response from the Go server")
	}
}
