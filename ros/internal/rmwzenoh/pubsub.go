package rmwzenoh

import (
	"context"
	"sync/atomic"
	"time"

	"github.com/afor-go/afor/ros/internal/rmw"
	"github.com/afor-go/afor/transport/zenoh"
)

// publisher is an rmw.Publisher: a Zenoh publisher on the topic's data key
// whose samples carry rmw_zenoh's attachment and an HLC timestamp.
type publisher struct {
	entityBase
	pub    *zenoh.Publisher
	cache  *pubCache // transient local only
	seq    atomic.Int64
	closed atomic.Bool
}

var _ rmw.Publisher = (*publisher)(nil)

func newPublisher(n *node, topic string, t rmw.Type, q rmw.QoS) (*publisher, error) {
	if err := checkEntity(topic, t); err != nil {
		return nil, err
	}
	q, err := adaptQoS(q)
	if err != nil {
		return nil, err
	}
	e, tok := n.newEntity(kindPublisher, topic, t.DDSName, t.Hash, q)
	key := dataKey(n.s.domain, topic, t.DDSName, t.Hash)
	zp, err := n.s.z.DeclarePublisher(key, publisherQoS(q)...)
	if err != nil {
		return nil, err
	}
	p := &publisher{entityBase: e, pub: zp}
	if q.Durability == rmw.DurabilityTransientLocal {
		if p.cache, err = newPubCache(n.s, key, q.Depth); err != nil {
			_ = zp.Undeclare()
			return nil, err
		}
	}
	if err := n.add(&p.entityBase, p, tok); err != nil {
		return nil, err
	}
	return p, nil
}

// publisherQoS returns the Zenoh QoS rmw_zenoh gives a publisher with the
// (adapted) ROS QoS q: congestion control BLOCK for RELIABLE with
// KEEP_ALL, so that no message is lost to a slow subscriber, DROP
// otherwise; priority Data and express off in every case.
func publisherQoS(q rmw.QoS) []zenoh.PutOption {
	if q.History == rmw.HistoryKeepAll && q.Reliability == rmw.ReliabilityReliable {
		return []zenoh.PutOption{zenoh.WithCongestionControl(zenoh.CongestionBlock)}
	}
	return nil
}

// Publish sends payload with the next sequence number (from 1), the
// source time and the publisher's GID in the attachment.
func (p *publisher) Publish(ctx context.Context, payload []byte) error {
	if p.closed.Load() {
		return ErrClosed
	}
	now := time.Now()
	att := appendAttachment(make([]byte, 0, attachmentSize),
		attachment{Seq: p.seq.Add(1), SourceTime: now.UnixNano(), GID: p.gid})
	ts := p.n.s.timestamp(now)
	if p.cache != nil {
		p.cache.store(payload, att, ts)
	}
	return p.pub.Put(ctx, payload, zenoh.WithAttachment(att), zenoh.WithTimestamp(ts))
}

// Close withdraws the token and the Zenoh publisher.
func (p *publisher) Close() error {
	if err := p.close(); err != nil {
		return err
	}
	p.n.remove(p)
	return nil
}

func (p *publisher) close() error {
	if p.closed.Swap(true) {
		return nil
	}
	p.undeclareToken()
	if p.cache != nil {
		p.cache.close()
	}
	_ = p.pub.Undeclare()
	return nil
}

// samplesStable says whether the payloads of the samples, and of the
// replies, that transport/zenoh hands to a handler may be kept and aliased:
// its Sample documentation says that they are the handler's own, never
// reused by the session (a large sample's is the buffer it was reassembled
// in). It makes the delivered rmw.Message Stable, so that package ros
// decodes large messages without copying them; if the transport ever
// recycles a sample's buffer after its handler returns, it must become
// false. TestLargeKeptMessagesStayIntact in package ros checks it.
const samplesStable = true

// subscription is an rmw.Subscription: a Zenoh subscriber on the topic's
// data key that drops samples without a valid attachment.
type subscription struct {
	entityBase
	sub    *zenoh.Subscriber
	late   *lateJoiner // transient local only
	closed atomic.Bool
}

var _ rmw.Subscription = (*subscription)(nil)

func newSubscription(n *node, topic string, t rmw.Type, q rmw.QoS, deliver func(rmw.Message)) (*subscription, error) {
	if err := checkEntity(topic, t); err != nil {
		return nil, err
	}
	if deliver == nil {
		return nil, errorf(ErrInvalid, "nil deliver function")
	}
	q, err := adaptQoS(q)
	if err != nil {
		return nil, err
	}
	e, tok := n.newEntity(kindSubscription, topic, t.DDSName, t.Hash, q)
	s := &subscription{entityBase: e}
	sess := n.s
	key := dataKey(sess.domain, topic, t.DDSName, t.Hash)
	if q.Durability == rmw.DurabilityTransientLocal {
		s.late = newLateJoiner(sess, key, q.Depth, deliver)
	}
	s.sub, err = sess.z.DeclareSubscriber(key, func(smp zenoh.Sample) {
		if smp.Kind != zenoh.KindPut || s.closed.Load() {
			return
		}
		a, err := parseAttachment(smp.Attachment)
		if err != nil {
			sess.droppedSamples.Add(1)
			sess.log.Debug("rmw_zenoh: sample dropped", "key", smp.KeyExpr, "err", err)
			return
		}
		if s.late != nil {
			s.late.live(smp.Payload, a)
			return
		}
		deliver(rmw.Message{Payload: smp.Payload, Info: a.info(), Stable: samplesStable})
	})
	if err != nil {
		return nil, err
	}
	if s.late != nil {
		if err := s.late.start(); err != nil {
			_ = s.sub.Undeclare()
			return nil, err
		}
	}
	if err := n.add(&s.entityBase, s, tok); err != nil {
		return nil, err
	}
	return s, nil
}

// info turns an attachment into the message info of what it came with.
func (a attachment) info() rmw.MessageInfo {
	return rmw.MessageInfo{PublisherGID: a.GID, Sequence: a.Seq, SourceTime: time.Unix(0, a.SourceTime), ReceivedTime: time.Now()}
}

// Close withdraws the token and the Zenoh subscriber.
func (s *subscription) Close() error {
	_ = s.close()
	s.n.remove(s)
	return nil
}

func (s *subscription) close() error {
	if s.closed.Swap(true) {
		return nil
	}
	s.undeclareToken()
	_ = s.sub.Undeclare()
	if s.late != nil {
		s.late.close()
	}
	return nil
}

// checkEntity checks a topic or service name and its type.
func checkEntity(name string, t rmw.Type) error {
	if err := checkName("name", name); err != nil {
		return err
	}
	if name[0] != '/' {
		return errorf(ErrInvalid, "name %q is not fully qualified", name)
	}
	return checkType(t)
}
