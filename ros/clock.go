package ros

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/afor-go/afor"
	"github.com/afor-go/afor/ros/msgs/rosgraph_msgs"
)

// QoSClock is the profile of rclpy's /clock subscription: keep last 1,
// best effort, volatile.
var QoSClock = QoS{History: KeepLast, Depth: 1, Reliability: BestEffort, Durability: Volatile}

// Clock is a node's ROS clock: the system clock, or, while the node's
// "use_sim_time" parameter is true, the time last received on /clock
// (rosgraph_msgs/msg/Clock), which starts at the zero of ROS time (the
// Unix epoch) until a first message comes. Its methods are safe for
// concurrent use.
type Clock struct {
	node *Node

	mu      sync.Mutex
	sim     bool
	simNow  time.Time
	jumpTo  time.Time     // the last time sim time went backwards to
	changed chan struct{} // closed and replaced on every change
	sub     *afor.Sub[rosgraph_msgs.Clock]
}

func newClock(n *Node) *Clock {
	return &Clock{node: n, simNow: time.Unix(0, 0).UTC(), changed: make(chan struct{})}
}

// Clock returns the node's ROS clock.
func (n *Node) Clock() *Clock { return n.clock }

// Now returns the clock's time.
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.sim {
		return c.simNow
	}
	return time.Now()
}

// IsSimTime reports whether the clock follows /clock.
func (c *Clock) IsSimTime() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.sim
}

// setSim switches to sim time (subscribing to /clock) or back.
func (c *Clock) setSim(on bool) error {
	c.mu.Lock()
	if c.sim == on {
		c.mu.Unlock()
		return nil
	}
	c.sim = on
	old := c.sub
	c.sub = nil
	c.notifyLocked()
	c.mu.Unlock()
	if old != nil {
		old.Close()
	}
	if !on {
		return nil
	}
	sub, err := Subscribe[rosgraph_msgs.Clock](c.node, "/clock", QoSClock, afor.WithName("ros clock:"+c.node.FullyQualifiedName()))
	if err != nil {
		return fmt.Errorf("ros: sim time: %w", err)
	}
	sub.OnInput(func(m rosgraph_msgs.Clock) { c.set(timeFromMsg(m.Clock)) })
	c.mu.Lock()
	if !c.sim { // switched off meanwhile
		c.mu.Unlock()
		sub.Close()
		return nil
	}
	c.sub = sub
	c.mu.Unlock()
	return nil
}

// set moves sim time to t.
func (c *Clock) set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.sim {
		return
	}
	if t.Before(c.simNow) {
		c.jumpTo = t
	}
	c.simNow = t
	c.notifyLocked()
}

func (c *Clock) notifyLocked() {
	close(c.changed)
	c.changed = make(chan struct{})
}

// Sleep waits until d has passed on the clock, or ctx is done.
func (c *Clock) Sleep(ctx context.Context, d time.Duration) error {
	return c.SleepUntil(ctx, c.Now().Add(d))
}

// SleepUntil waits until the clock reads t or later, or ctx is done (its
// error is returned). On sim time it wakes when a /clock message reaches
// t; switching between sim and system time mid-wait is followed.
func (c *Clock) SleepUntil(ctx context.Context, t time.Time) error {
	_, err := c.wait(ctx, t, time.Time{})
	return err
}

// wait is SleepUntil that also returns, with back true, when the clock
// reads before floor (sim time went backwards past the last tick).
func (c *Clock) wait(ctx context.Context, t, floor time.Time) (back bool, err error) {
	var timer *time.Timer
	defer func() {
		if timer != nil {
			timer.Stop()
		}
	}()
	for {
		c.mu.Lock()
		sim, changed := c.sim, c.changed
		now := c.simNow
		if !sim {
			now = time.Now()
		}
		c.mu.Unlock()
		if !now.Before(t) {
			return false, nil
		}
		if now.Before(floor) {
			return true, nil
		}
		var fire <-chan time.Time
		if !sim {
			if timer == nil {
				timer = time.NewTimer(t.Sub(now))
			} else {
				timer.Reset(t.Sub(now))
			}
			fire = timer.C
		}
		select {
		case <-ctx.Done():
			return false, ctx.Err()
		case <-changed:
		case <-fire:
		}
	}
}

// Rate is a [afor.Sub] of tick times on a node's [Clock] that never
// drifts: tick k is due at start + k*period by that clock and carries that
// time. On sim time it ticks as /clock advances: a jump over several
// periods delivers each tick passed, and a jump backwards past the last
// tick (a replay restarting) restarts the rate from the time it jumped to. One goroutine drives it
// until Close.
type Rate struct {
	*afor.Sub[time.Time]
	period time.Duration
}

// Period returns the time between ticks.
func (r *Rate) Period() time.Duration { return r.period }

// NewRate starts a rate of hz ticks per second on the clock. hz must be
// positive, finite and give a period of at least a nanosecond, else the
// error matches afor.ErrInvalidRate. The rate closes with the node.
//
//	rate, err := node.Clock().NewRate(10)
//	for range rate.ListenReliable(ctx) { step() }
func (c *Clock) NewRate(hz float64, opts ...afor.Option) (*Rate, error) {
	if !(hz > 0 && hz <= 1e9) {
		return nil, fmt.Errorf("%w: %v Hz (want a finite frequency in (0, 1e9])", afor.ErrInvalidRate, hz)
	}
	opts = append([]afor.Option{afor.WithName(fmt.Sprintf("ros rate %gHz", hz))}, opts...)
	r := &Rate{Sub: afor.NewSub[time.Time](opts...), period: time.Duration(float64(time.Second) / hz)}
	ctx, cancel := context.WithCancel(context.Background())
	untrack, err := c.node.track(func() error { r.Close(); return nil })
	if err != nil {
		cancel()
		r.CloseWithError(err)
		return nil, err
	}
	r.OnClose(func() {
		untrack()
		cancel()
	})
	go c.runRate(ctx, r, c.Now())
	return r, nil
}

func (c *Clock) runRate(ctx context.Context, r *Rate, start time.Time) {
	for k := int64(1); ; k++ {
		due := start.Add(time.Duration(k) * r.period)
		back, err := c.wait(ctx, due, due.Add(-r.period))
		if err != nil {
			return
		}
		if back { // time went backwards: restart from where it went
			c.mu.Lock()
			start, k = c.jumpTo, 0
			c.mu.Unlock()
			continue
		}
		if !r.Input(due) {
			return
		}
	}
}
