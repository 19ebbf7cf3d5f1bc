// Command rate runs a loop at a fixed rate that never drifts, and shows the
// two ways to consume ticks when an iteration is slow: ListenReliable runs
// the body for every tick (catching up), Listen for the latest tick only.
//
//	go run ./examples/rate
package main

import (
	"context"
	"fmt"
	"iter"
	"log"
	"time"

	"github.com/afor-go/afor"
)

func main() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	for _, reliable := range []bool{true, false} {
		if err := loop(ctx, reliable); err != nil {
			log.Fatal(err)
		}
	}
}

func loop(ctx context.Context, reliable bool) error {
	start := time.Now()
	rate, err := afor.NewRate(50) // a 20 ms period
	if err != nil {
		return err
	}
	defer rate.Close()
	ticks, name := iter.Seq[time.Time](rate.Listen(ctx)), "Listen (latest tick)"
	if reliable {
		ticks, name = rate.ListenReliable(ctx), "ListenReliable (every tick)"
	}
	fmt.Println(name)
	i := 0
	for tick := range ticks {
		i++
		fmt.Printf("  tick for %3d ms, run at %3d ms\n",
			tick.Sub(start).Milliseconds(), time.Since(start).Milliseconds())
		if i == 3 {
			time.Sleep(70 * time.Millisecond) // a slow iteration
		}
		if i == 7 {
			break
		}
	}
	return nil
}
