package msgsync_test

import (
	"context"
	"fmt"
	"time"

	"github.com/afor-go/afor"
	"github.com/afor-go/afor/msgsync"
)

// Image and Scan stand for a camera's and a laser's messages.
type Image struct {
	Stamp time.Time
	Frame int
}

type Scan struct {
	Stamp  time.Time
	Ranges []float32
}

// A 30 Hz camera and a 10 Hz laser, neither on time: the approximate
// synchronizer pairs each scan with the image closest to it.
func ExampleApproximate() {
	images, scans := afor.NewSub[Image](), afor.NewSub[Scan]()
	sync := msgsync.Approximate(
		msgsync.In(images, func(m Image) time.Time { return m.Stamp }),
		msgsync.In(scans, func(m Scan) time.Time { return m.Stamp }),
		msgsync.QueueSize(10),
	)
	defer sync.Close()
	// Register before the messages flow: a listener sees what follows.
	pairs := sync.Listener(context.Background())

	t0 := time.Unix(1_700_000_000, 0)
	ms := func(n int) time.Time { return t0.Add(time.Duration(n) * time.Millisecond) }
	for f := range 10 { // images every 33 ms, 2 ms late
		images.Input(Image{Stamp: ms(33*f + 2), Frame: f})
		if f%3 == 0 { // a scan every 100 ms
			scans.Input(Scan{Stamp: ms(100 * f / 3)})
		}
	}

	for range 3 {
		p, _ := pairs.Next(context.Background())
		fmt.Printf("frame %d with scan at %v\n", p.A.Frame, p.B.Stamp.Sub(t0))
	}
	// Frame 9 and the scan at 300 ms wait for a later message, which
	// could make a closer pair.
	st := sync.Stats()
	fmt.Println("images dropped:", st.Dropped[0], "waiting:", st.Pending)
	// Output:
	// frame 0 with scan at 0s
	// frame 3 with scan at 100ms
	// frame 6 with scan at 200ms
	// images dropped: 6 waiting: [1 1]
}

// Exact pairs messages that carry the same stamp, such as an image and its
// camera info.
func ExampleExact() {
	type Info struct{ Stamp time.Time }
	images, infos := afor.NewSub[Image](), afor.NewSub[Info]()
	sync := msgsync.Exact(
		msgsync.In(images, func(m Image) time.Time { return m.Stamp }),
		msgsync.In(infos, func(m Info) time.Time { return m.Stamp }),
	)
	defer sync.Close()
	sync.OnInput(func(p msgsync.Pair[Image, Info]) { fmt.Println("frame", p.A.Frame) })

	t0 := time.Unix(1_700_000_000, 0)
	images.Input(Image{Stamp: t0, Frame: 0})
	images.Input(Image{Stamp: t0.Add(time.Second), Frame: 1}) // its info is lost
	images.Input(Image{Stamp: t0.Add(2 * time.Second), Frame: 2})
	infos.Input(Info{Stamp: t0})
	infos.Input(Info{Stamp: t0.Add(2 * time.Second)})
	fmt.Println("incomplete sets dropped:", sync.Stats().DroppedSets)
	// Output:
	// frame 0
	// frame 2
	// incomplete sets dropped: 1
}

// A cache answers "what did the laser see just before this image?".
func ExampleCache() {
	scans := afor.NewSub[Scan]()
	cache := msgsync.NewCache(msgsync.In(scans, func(m Scan) time.Time { return m.Stamp }), 50)
	defer cache.Close()

	t0 := time.Unix(1_700_000_000, 0)
	for k := range 5 {
		scans.Input(Scan{Stamp: t0.Add(time.Duration(k) * 100 * time.Millisecond)})
	}
	at := t0.Add(250 * time.Millisecond)
	before, _ := cache.Before(at)
	after, _ := cache.After(at)
	fmt.Println(before.Stamp.Sub(t0), after.Stamp.Sub(t0))
	fmt.Println(len(cache.Interval(t0, at)), "scans up to", at.Sub(t0))

	// Wait for the first scan at or after 500 ms.
	go scans.Input(Scan{Stamp: t0.Add(500 * time.Millisecond)})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	s, err := cache.WaitFor(ctx, t0.Add(500*time.Millisecond))
	fmt.Println(s.Stamp.Sub(t0), err)
	// Output:
	// 200ms 300ms
	// 3 scans up to 250ms
	// 500ms <nil>
}
