// Command service runs a request/reply service whose server answers later,
// from another goroutine, on the in-memory bus.
//
//	go run ./examples/service
package main

import (
	"context"
	"errors"
	"fmt"
	"log"
	"sync"
	"time"

	"github.com/afor-go/afor"
	"github.com/afor-go/afor/transport/mem"
)

// AddTwoInts is the request of the service.
type AddTwoInts struct{ A, B int64 }

func main() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := run(ctx); err != nil {
		log.Fatal(err)
	}
}

func run(ctx context.Context) error {
	bus := mem.NewBus()
	defer bus.Close()

	server, err := mem.NewServer[AddTwoInts, int64](bus, "add_two_ints")
	if err != nil {
		return err
	}
	go serve(ctx, server)

	client, err := mem.NewClient[AddTwoInts, int64](bus, "add_two_ints")
	if err != nil {
		return err
	}
	if err := client.WaitForServer(ctx); err != nil {
		return err
	}

	// Concurrent calls; the server answers them in its own time.
	var wg sync.WaitGroup
	for i := range int64(3) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sum, err := client.Call(ctx, AddTwoInts{A: i, B: 10})
			fmt.Printf("%d + 10 = %d (err: %v)\n", i, sum, err)
		}()
	}
	wg.Wait()

	_, err = client.Call(ctx, AddTwoInts{A: -1})
	fmt.Println("negative request:", err)
	return nil
}

// serve answers each request after a delay, from a goroutine of its own.
func serve(ctx context.Context, server *afor.Server[AddTwoInts, int64]) {
	for req := range server.ListenReliable(ctx) {
		go func() {
			if req.Request.A < 0 {
				_ = req.Fail(errors.New("negative numbers are not allowed"))
				return
			}
			time.Sleep(time.Duration(3-req.Request.A) * 20 * time.Millisecond)
			_ = req.Respond(req.Request.A + req.Request.B)
		}()
	}
}
