package rmwdds

import (
	"context"
	"sync"
	"time"

	"github.com/afor-go/afor/ros/internal/rmw"
	"github.com/afor-go/afor/transport/dds"
)

// vendorAfor is transport/dds's vendor id (its internal rtps.VendorAfor).
var vendorAfor = [2]byte{0x01, 0xaf}

// topicFor returns the DDS topic and QoS of a ROS topic.
func topicFor(name string, t rmw.Type, q rmw.QoS) (dds.Topic, dds.QoS, error) {
	topic, err := TopicName(name)
	if err != nil {
		return dds.Topic{}, dds.QoS{}, err
	}
	if t.DDSName == "" {
		return dds.Topic{}, dds.QoS{}, errorf(ErrInvalid, "type %q without DDS name", t.Name)
	}
	dq, err := DDSQoS(q, t.Hash)
	if err != nil {
		return dds.Topic{}, dds.QoS{}, err
	}
	return dds.Topic{Name: topic, TypeName: t.DDSName}, dq, nil
}

// publisher is an rmw.Publisher: a DDS writer.
type publisher struct {
	n    *node
	w    *dds.Writer
	once sync.Once
	qw   qosWatch // incompatible QoS events (qosevent.go)
}

// CreatePublisher creates a DDS writer on "rt/<topic>".
func (n *node) CreatePublisher(topic string, t rmw.Type, q rmw.QoS) (rmw.Publisher, error) {
	dt, dq, err := topicFor(topic, t, q)
	if err != nil {
		return nil, err
	}
	w, err := dds.NewWriter(n.s.p, dt, dq)
	if err != nil {
		return nil, err
	}
	p := &publisher{n: n, w: w}
	if err := n.register(p, localEndpoint{w.GUID(), dt, dq}); err != nil {
		_ = w.Close()
		return nil, err
	}
	return p, nil
}

// Publish writes payload; the writer copies what it keeps.
func (p *publisher) Publish(ctx context.Context, payload []byte) error {
	return p.w.Write(ctx, payload)
}

var _ rmw.BufferPublisher = (*publisher)(nil)

// PublishBuffer writes payload, which the writer's history may keep
// (rmw.BufferPublisher), and returns the buffer the writer hands back.
func (p *publisher) PublishBuffer(ctx context.Context, payload []byte) ([]byte, error) {
	return p.w.WriteBuffer(ctx, payload)
}

// GID returns the writer's GUID.
func (p *publisher) GID() rmw.GID { return GIDOf(p.w.GUID()) }

// Matched returns how many readers the writer is matched with (rmw.Matcher).
func (p *publisher) Matched() int { return p.w.Status().Matched }

// WaitMatched waits until the writer is matched with n readers
// (rmw.Matcher).
func (p *publisher) WaitMatched(ctx context.Context, n int) error { return p.w.WaitMatched(ctx, n) }

// WaitAcknowledged waits until the writer's reliable readers acknowledged
// everything written (rmw.AckWaiter).
func (p *publisher) WaitAcknowledged(ctx context.Context) error { return p.w.WaitAcknowledged(ctx) }

// Close closes the writer.
func (p *publisher) Close() error {
	p.once.Do(func() {
		_ = p.w.Close()
		p.qw.wait()
		p.n.unregister(p, p.w.GUID())
	})
	return nil
}

// subscription is an rmw.Subscription: a DDS reader.
type subscription struct {
	n    *node
	r    *dds.Reader
	once sync.Once
	qw   qosWatch // incompatible QoS events (qosevent.go)
}

// CreateSubscription creates a DDS reader on "rt/<topic>" whose samples
// go to deliver, on the participant's receive goroutine.
func (n *node) CreateSubscription(topic string, t rmw.Type, q rmw.QoS, deliver func(rmw.Message)) (rmw.Subscription, error) {
	dt, dq, err := topicFor(topic, t, q)
	if err != nil {
		return nil, err
	}
	r, err := dds.NewReaderFunc(n.s.p, dt, dq, func(smp dds.Sample) {
		// The payload belongs to the receiver (a copy of the DATA, or the
		// buffer its DATA_FRAGs were reassembled in): it is handed over.
		deliver(rmw.Message{Payload: smp.Payload, Info: messageInfo(smp), Stable: true})
	})
	if err != nil {
		return nil, err
	}
	sub := &subscription{n: n, r: r}
	if err := n.register(sub, localEndpoint{r.GUID(), dt, dq}); err != nil {
		_ = r.Close()
		return nil, err
	}
	return sub, nil
}

// messageInfo is the rmw info of a received sample.
func messageInfo(smp dds.Sample) rmw.MessageInfo {
	return rmw.MessageInfo{
		PublisherGID: GIDOf(smp.Writer),
		Sequence:     smp.SN,
		SourceTime:   smp.SourceTime,
		ReceivedTime: time.Now(),
	}
}

// GID returns the reader's GUID.
func (s *subscription) GID() rmw.GID { return GIDOf(s.r.GUID()) }

// Close closes the reader.
func (s *subscription) Close() error {
	s.once.Do(func() {
		_ = s.r.Close()
		s.qw.wait()
		s.n.unregister(s, s.r.GUID())
	})
	return nil
}
