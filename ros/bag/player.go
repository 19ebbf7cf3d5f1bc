package bag

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"regexp"
	"slices"
	"time"

	"github.com/afor-go/afor/ros"
	"github.com/afor-go/afor/ros/msgs/builtin_interfaces"
	"github.com/afor-go/afor/ros/msgs/rosgraph_msgs"
)

// PlayOptions configure [Play], after `ros2 bag play`'s flags.
type PlayOptions struct {
	// Rate multiplies the playback speed: 2 plays twice as fast. 0 means 1.
	Rate float64
	// Loop plays the bag again and again until ctx ends.
	Loop bool
	// StartOffset starts playing this far into the bag.
	StartOffset time.Duration
	// Duration stops playing after this much of the bag; 0 plays it all.
	Duration time.Duration
	// Delay waits this long (wall time) after creating the publishers
	// before the first message, so that subscriptions can match them.
	Delay time.Duration
	// WaitSubscriptions lists topics whose publishers must reach a
	// subscription before the first message (within ctx): a test's
	// subscriber then misses nothing.
	WaitSubscriptions []string
	// ClockHz publishes /clock (rosgraph_msgs/Clock) at this rate with the
	// bag's time, so that nodes with use_sim_time follow it; 0 publishes
	// none.
	ClockHz float64
	// Topics, Regex and Exclude select the topics played (by default,
	// all).
	Topics  []string
	Regex   *regexp.Regexp
	Exclude *regexp.Regexp
	// QoS overrides the profile a topic is published with; by default it
	// is adapted from the recorded publishers' ([PlaybackQoS]).
	QoS map[string]ros.QoS
	// Remap publishes a topic under another name.
	Remap map[string]string
	// Logger receives the player's messages; nil uses the node's.
	Logger *slog.Logger
}

// PlayStats counts what a playback published.
type PlayStats struct {
	Published uint64        // messages published
	Failed    uint64        // messages that failed to publish
	Loops     int           // times the bag was played through
	Elapsed   time.Duration // wall time from the first message to the last
	BagTime   time.Duration // bag time from the first message to the last
}

// lastAckWait bounds how long Play waits, at the end, for its publishers'
// subscriptions to acknowledge the last messages.
const lastAckWait = 2 * time.Second

// Play publishes the bag's messages through node, as `ros2 bag play`
// does: each topic with the QoS its recorded publishers offered (a
// TRANSIENT_LOCAL topic stays latched for late subscriptions), each
// message when its receive time comes, relative to the first message
// played, at o.Rate times the recorded pace (the schedule is kept over the
// whole run: a late message does not delay the ones after it). It returns
// when the bag (or the selected part) has been played, or when ctx ends,
// with ctx's error. The publishers are closed on return.
func Play(ctx context.Context, node *ros.Node, r *Reader, o PlayOptions) (PlayStats, error) {
	var st PlayStats
	if o.Rate == 0 {
		o.Rate = 1
	}
	if o.Rate < 0 {
		return st, fmt.Errorf("bag: play: negative rate %v", o.Rate)
	}
	log := o.Logger
	if log == nil {
		log = node.Logger()
	}
	var topics []string
	pubs := map[string]*ros.RawPublisher{}
	defer func() {
		// The last messages reach their subscriptions before the
		// publishers go (a reader that lost one asks it again).
		if ctx.Err() == nil {
			wctx, cancel := context.WithTimeout(ctx, lastAckWait)
			for _, p := range pubs {
				_ = p.WaitForAllAcked(wctx)
			}
			cancel()
		}
		for _, p := range pubs {
			_ = p.Close()
		}
	}()
	for _, ti := range r.Topics() {
		if !playable(ti.Name, o) {
			continue
		}
		if ti.Type == "" {
			log.Warn("bag: play: topic without a type (no schema): not played", "topic", ti.Name)
			continue
		}
		hash := ti.TypeHash
		if hash == "" {
			if t, err := r.Type(ti.Name, nil); err == nil {
				hash = t.Hash()
			}
		}
		q, ok := o.QoS[ti.Name]
		if !ok {
			q = PlaybackQoS(ti.OfferedQoS)
		}
		name := ti.Name
		if to, ok := o.Remap[name]; ok {
			name = to
		}
		p, err := ros.NewRawPublisher(node, name, ros.RawType{Name: ti.Type, Hash: hash}, q)
		if err != nil {
			return st, fmt.Errorf("bag: play %s: %w", ti.Name, err)
		}
		pubs[ti.Name] = p
		topics = append(topics, ti.Name)
		log.Debug("bag: playing", "topic", ti.Name, "as", name, "type", ti.Type, "qos", q.String())
	}
	if len(topics) == 0 {
		return st, fmt.Errorf("bag: play: no topic of %s selected", r.Path())
	}
	var clock *ros.Publisher[rosgraph_msgs.Clock, *rosgraph_msgs.Clock]
	if o.ClockHz > 0 {
		var err error
		if clock, err = ros.NewPublisher[rosgraph_msgs.Clock](node, "/clock", ros.QoSKeepLast(1)); err != nil {
			return st, err
		}
		defer clock.Close()
	}
	for _, topic := range o.WaitSubscriptions {
		p, ok := pubs[topic]
		if !ok {
			return st, fmt.Errorf("bag: play: cannot wait for subscriptions of %s: not played", topic)
		}
		if err := p.WaitForSubscriptions(ctx, 1); err != nil {
			return st, fmt.Errorf("bag: play: waiting for a subscription of %s: %w", topic, err)
		}
	}
	if o.Delay > 0 {
		if err := sleepCtx(ctx, o.Delay); err != nil {
			return st, err
		}
	}
	meta := r.Metadata()
	begin := meta.StartingTime.Add(o.StartOffset)
	var end time.Time
	if o.Duration > 0 {
		end = begin.Add(o.Duration)
	}
	for {
		if err := playOnce(ctx, r, pubs, clock, o, topics, begin, end, &st, log); err != nil {
			return st, err
		}
		st.Loops++
		if !o.Loop {
			return st, nil
		}
	}
}

func playable(topic string, o PlayOptions) bool {
	if o.Exclude != nil && fullMatch(o.Exclude, topic) {
		return false
	}
	if len(o.Topics) == 0 && o.Regex == nil {
		return true
	}
	return slices.Contains(o.Topics, topic) || (o.Regex != nil && fullMatch(o.Regex, topic))
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// playOnce plays the bag from begin to end (zero: the end) once.
func playOnce(ctx context.Context, r *Reader, pubs map[string]*ros.RawPublisher, clock *ros.Publisher[rosgraph_msgs.Clock, *rosgraph_msgs.Clock],
	o PlayOptions, topics []string, begin, end time.Time, st *PlayStats, log *slog.Logger) error {
	var wallStart time.Time
	var bagStart time.Time
	var bagNow func() time.Time
	clockCtx, stopClock := context.WithCancel(ctx)
	clockDone := make(chan struct{})
	close(clockDone)
	defer func() {
		stopClock()
		<-clockDone
	}()
	// at returns the wall time at which a bag time is due.
	at := func(t time.Time) time.Time {
		return wallStart.Add(time.Duration(float64(t.Sub(bagStart)) / o.Rate))
	}
	var failed bool
	for m, err := range r.Messages(ReadOptions{Topics: topics, Start: begin, End: end}) {
		if err != nil {
			log.Warn("bag: play: damaged bag", "err", err)
			continue
		}
		if wallStart.IsZero() {
			wallStart, bagStart = time.Now(), m.Received
			bagNow = func() time.Time {
				return bagStart.Add(time.Duration(float64(time.Since(wallStart)) * o.Rate))
			}
			if clock != nil {
				clockDone = make(chan struct{})
				go publishClock(clockCtx, clock, o.ClockHz, bagNow, clockDone)
			}
		}
		if d := time.Until(at(m.Received)); d > 0 {
			if err := sleepCtx(ctx, d); err != nil {
				return err
			}
		} else if err := ctx.Err(); err != nil {
			return err
		}
		if err := pubs[m.Topic].Publish(ctx, m.Data); err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			st.Failed++
			if !failed {
				failed = true
				log.Warn("bag: play: publish failed", "topic", m.Topic, "err", err)
			}
			continue
		}
		st.Published++
		st.Elapsed = time.Since(wallStart)
		st.BagTime = m.Received.Sub(bagStart)
	}
	if st.Failed > 0 {
		return fmt.Errorf("%w: %d messages", ErrPublish, st.Failed)
	}
	return nil
}

// ErrPublish is matched by the error of [Play] when messages could not be
// published.
var ErrPublish = errors.New("bag: play: publish failed")

// publishClock publishes the bag's time on /clock at hz until ctx ends.
func publishClock(ctx context.Context, pub *ros.Publisher[rosgraph_msgs.Clock, *rosgraph_msgs.Clock], hz float64, now func() time.Time, done chan struct{}) {
	defer close(done)
	tick := time.NewTicker(time.Duration(float64(time.Second) / hz))
	defer tick.Stop()
	for {
		t := now()
		_ = pub.Publish(ctx, &rosgraph_msgs.Clock{Clock: builtin_interfaces.Time{Sec: int32(t.Unix()), Nanosec: uint32(t.Nanosecond())}})
		select {
		case <-tick.C:
		case <-ctx.Done():
			return
		}
	}
}
