package tf2

import (
	"context"
	"slices"
	"sync"

	"github.com/afor-go/afor/ros"
	"github.com/afor-go/afor/ros/msgs/geometry_msgs"
	"github.com/afor-go/afor/ros/msgs/tf2_msgs"
)

// Broadcaster publishes transforms that change on /tf, as tf2_ros's
// TransformBroadcaster (QoSListener: keep last 100, reliable, volatile).
type Broadcaster struct {
	mu  sync.Mutex
	pub *ros.Publisher[tf2_msgs.TFMessage, *tf2_msgs.TFMessage]
	msg tf2_msgs.TFMessage
}

// NewBroadcaster creates the /tf publisher on node (topic, if given,
// replaces /tf).
func NewBroadcaster(node *ros.Node, topic ...string) (*Broadcaster, error) {
	pub, err := ros.NewPublisher[tf2_msgs.TFMessage](node, firstOr(topic, TopicTF), QoSListener)
	if err != nil {
		return nil, err
	}
	return &Broadcaster{pub: pub}, nil
}

func firstOr(s []string, def string) string {
	if len(s) > 0 && s[0] != "" {
		return s[0]
	}
	return def
}

// SendTransform publishes the transforms in one TFMessage.
func (b *Broadcaster) SendTransform(ctx context.Context, ts ...geometry_msgs.TransformStamped) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.msg.Transforms = append(b.msg.Transforms[:0], ts...)
	err := b.pub.Publish(ctx, &b.msg)
	clear(b.msg.Transforms) // keep no strings of the caller
	return err
}

// Close removes the publisher.
func (b *Broadcaster) Close() error { return b.pub.Close() }

// StaticBroadcaster publishes transforms that do not change on /tf_static,
// as tf2_ros's StaticTransformBroadcaster: it keeps every transform it was
// given, one per child frame (a new one replaces the old of its child
// frame), and publishes the whole set each time, transient local with a
// history of one (QoSStaticBroadcaster), so that a listener that joins
// later gets the set.
type StaticBroadcaster struct {
	mu  sync.Mutex
	pub *ros.Publisher[tf2_msgs.TFMessage, *tf2_msgs.TFMessage]
	set tf2_msgs.TFMessage
}

// NewStaticBroadcaster creates the /tf_static publisher on node (topic, if
// given, replaces /tf_static).
func NewStaticBroadcaster(node *ros.Node, topic ...string) (*StaticBroadcaster, error) {
	pub, err := ros.NewPublisher[tf2_msgs.TFMessage](node, firstOr(topic, TopicTFStatic), QoSStaticBroadcaster)
	if err != nil {
		return nil, err
	}
	return &StaticBroadcaster{pub: pub}, nil
}

// SendTransform adds the transforms to the set (replacing those of the
// same child frames) and publishes the set.
func (b *StaticBroadcaster) SendTransform(ctx context.Context, ts ...geometry_msgs.TransformStamped) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, t := range ts {
		if i := slices.IndexFunc(b.set.Transforms, func(o geometry_msgs.TransformStamped) bool { return o.ChildFrameID == t.ChildFrameID }); i >= 0 {
			b.set.Transforms[i] = t
		} else {
			b.set.Transforms = append(b.set.Transforms, t)
		}
	}
	return b.pub.Publish(ctx, &b.set)
}

// Transforms returns a copy of the set the broadcaster publishes.
func (b *StaticBroadcaster) Transforms() []geometry_msgs.TransformStamped {
	b.mu.Lock()
	defer b.mu.Unlock()
	return slices.Clone(b.set.Transforms)
}

// Close removes the publisher.
func (b *StaticBroadcaster) Close() error { return b.pub.Close() }
