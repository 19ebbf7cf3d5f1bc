package topictest

import (
	"testing"
	"testing/synctest"
	"time"

	"github.com/afor-go/afor/afortest"
	"github.com/afor-go/afor/transport/mem"
)

func TestDoublerDoubles(t *testing.T) {
	synctest.Test(t, func(t *testing.T) { // fake time: instant and deterministic
		bus := mem.NewBus()
		defer bus.Close()
		out, err := mem.Subscribe[int](bus, "out")
		if err != nil {
			t.Fatal(err)
		}
		go Doubler(t.Context(), bus)
		synctest.Wait() // the node has subscribed

		rec := afortest.Record(t, out) // arm before publishing
		for i := 1; i <= 3; i++ {
			mem.Publish(bus, "in", i)
		}
		got := rec.Collect(3, time.Second)
		for i, v := range got {
			if v != 2*(i+1) {
				t.Fatalf("out = %v, want [2 4 6]", got)
			}
		}
		mem.Publish(bus, "other", 5)
		rec.ExpectNone(100 * time.Millisecond)
	})
}
