package afor_test

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/afor-go/afor"
)

func ExampleSub_ArmNext() {
	ctx := context.Background()
	sub := afor.NewSub[string]()
	defer sub.Close()

	w := sub.ArmNext(ctx) // registered now
	sub.Input("first")    // a transport would do this
	sub.Input("second")
	v, _ := w.Wait(ctx)
	fmt.Println(v)
	// Output: first
}

func ExampleSub_ListenReliable() {
	ctx := context.Background()
	sub := afor.NewSub[int]()
	seq := sub.ListenReliable(ctx) // registered now: nothing is missed
	for i := range 3 {
		sub.Input(i)
	}
	sub.Close() // the loop drains what is queued, then ends
	for v := range seq {
		fmt.Println(v)
	}
	// Output:
	// 0
	// 1
	// 2
}

func ExampleMap() {
	raw := afor.NewSub[string]()
	nums := afor.Map(raw, strconv.Atoi)
	w := nums.ArmNext(context.Background())
	raw.Input("42")
	v, _ := w.Wait(context.Background())
	fmt.Println(v + 1)
	// Output: 43
}

func ExampleNewRate() {
	ctx := context.Background()
	rate, err := afor.NewRate(100) // 100 Hz, never drifts
	if err != nil {
		panic(err)
	}
	defer rate.Close()
	n := 0
	for range rate.ListenReliable(ctx) {
		if n++; n == 10 {
			break
		}
	}
	fmt.Println(n, rate.Period())
	// Output: 10 10ms
}

func ExampleSoftWaitFor() {
	sub := afor.NewSub[int]()
	defer sub.Close()
	_, err := afor.SoftWaitFor(context.Background(), 10*time.Millisecond, sub.WaitForNext)
	fmt.Println(errors.Is(err, afor.ErrSoftTimeout))
	// Output: true
}

func ExampleNewServer() {
	ctx := context.Background()
	server := afor.NewServer[int, int]()
	defer server.Close()
	go func() {
		for req := range server.ListenReliable(ctx) {
			go req.Respond(req.Request * 2) // answer later, from anywhere
		}
	}()
	// A transport turns a client call into a Responder and feeds the server.
	reply := make(chan int, 1)
	server.Input(afor.NewResponder(21, func(res int, err error) error {
		reply <- res
		return nil
	}))
	fmt.Println(<-reply)
	// Output: 42
}
