package rmwzenoh

import (
	"bytes"
	"cmp"
	"context"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/afor-go/afor/ros/internal/rmw"
	"github.com/afor-go/afor/transport/zenoh"
)

// TRANSIENT_LOCAL follows the protocol of zenoh-ext's advanced publisher
// and subscriber, as rmw_zenoh uses them, in its "uhlc" form (the form of
// a publisher without sample-miss detection): the publisher keeps its last
// depth samples and answers history queries on <key>/@adv/pub/<zid>/uhlc/_
// with them, announced by a liveliness token on the same key; samples carry
// no SourceInfo but strictly increasing HLC timestamps. A late-joining
// subscriber queries <key>/@adv/**?_max=<depth>;_anyke, then each publisher
// token that appears later, and removes duplicates by publisher GID and
// sequence number (from the rmw attachment).

const (
	// historyTimeout bounds a late joiner's history query (rmw_zenoh sets
	// none); live samples are held back until the first one ends.
	historyTimeout = 10 * time.Second
	// maxHeldSamples bounds the live samples held back, and the replies
	// collected, while a history query is in flight.
	maxHeldSamples = 1 << 16
	// maxPublishers bounds the publishers whose last sequence number a
	// late joiner remembers; beyond it, it forgets them all (a duplicate
	// may then be delivered).
	maxPublishers = 1 << 12
)

// advPubKey is the key of a publisher's cache queryable and token.
func advPubKey(data, zid string) string { return data + "/@adv/pub/" + zid + "/uhlc/_" }

// historySelector is a late joiner's query for the history under key.
func historySelector(key string, depth int) string {
	return key + "?_max=" + strconv.Itoa(depth) + ";_anyke"
}

// maxSamples reads _max from query parameters (0: no limit).
func maxSamples(params string) (n int, sn bool) {
	for p := range strings.SplitSeq(params, ";") {
		k, v, _ := strings.Cut(p, "=")
		switch k {
		case "_max":
			if m, err := strconv.Atoi(v); err == nil && m > 0 {
				n = m
			}
		case "_sn":
			sn = true
		}
	}
	return n, sn
}

// cachedSample is a publication kept for late joiners.
type cachedSample struct {
	payload, attachment []byte
	ts                  zenoh.Timestamp
}

// pubCache is a transient-local publisher's history and the queryable and
// token that offer it.
type pubCache struct {
	key   string // the data key, on which replies go
	depth int
	qa    *zenoh.Queryable
	tok   *zenoh.Token

	mu      sync.Mutex
	samples []cachedSample // oldest first, at most depth
}

// newPubCache declares the cache queryable and its token.
func newPubCache(s *Session, key string, depth int) (*pubCache, error) {
	c := &pubCache{key: key, depth: depth}
	adv := advPubKey(key, s.zid)
	var err error
	if c.qa, err = s.z.DeclareQueryable(adv, c.answer); err != nil {
		return nil, err
	}
	if c.tok, err = s.z.DeclareToken(adv); err != nil {
		_ = c.qa.Undeclare()
		return nil, err
	}
	return c, nil
}

// store keeps a copy of one publication, dropping the oldest beyond depth.
func (c *pubCache) store(payload, attachment []byte, ts zenoh.Timestamp) {
	smp := cachedSample{payload: bytes.Clone(payload), attachment: attachment, ts: ts}
	c.mu.Lock()
	if len(c.samples) == c.depth {
		copy(c.samples, c.samples[1:])
		c.samples[len(c.samples)-1] = smp
	} else {
		c.samples = append(c.samples, smp)
	}
	c.mu.Unlock()
}

// answer replies to a history query with the newest _max samples, on the
// data key, with their timestamps and attachments.
func (c *pubCache) answer(q *zenoh.Query) {
	defer q.Finish()
	n, bySN := maxSamples(q.Parameters)
	if bySN || !q.AcceptsAnyKey() {
		return // recovery by sequence number needs SourceInfo, not sent in this form
	}
	c.mu.Lock()
	samples := c.samples
	if n > 0 && len(samples) > n {
		samples = samples[len(samples)-n:]
	}
	samples = slices.Clone(samples)
	c.mu.Unlock()
	ctx, cancel := context.WithDeadline(context.Background(), q.Deadline())
	defer cancel()
	for _, smp := range samples {
		if err := q.ReplyAnyKey(ctx, c.key, smp.payload, zenoh.WithAttachment(smp.attachment), zenoh.WithTimestamp(smp.ts)); err != nil {
			return
		}
	}
}

// close withdraws the token and the queryable.
func (c *pubCache) close() {
	_ = c.tok.Undeclare()
	_ = c.qa.Undeclare()
}

// heldSample is a sample waiting for delivery by a late joiner.
type heldSample struct {
	payload []byte
	a       attachment
}

// lateJoiner is a transient-local subscription's history state: it
// delivers history and live samples once each, in order per publisher.
type lateJoiner struct {
	s       *Session
	key     string
	depth   int
	deliver func(rmw.Message)
	ctx     context.Context
	cancel  context.CancelFunc
	lsub    *zenoh.LivelinessSubscriber

	mu      sync.Mutex
	last    map[rmw.GID]int64 // last sequence number delivered per publisher
	ready   bool              // the first history query ended
	held    []heldSample      // live samples that came before
	queried map[string]bool   // publisher tokens queried
}

// newLateJoiner prepares the history state of a transient-local
// subscription on key; start sends the queries, and live samples go
// through live.
func newLateJoiner(s *Session, key string, depth int, deliver func(rmw.Message)) *lateJoiner {
	lj := &lateJoiner{s: s, key: key, depth: depth, deliver: deliver,
		last: make(map[rmw.GID]int64), queried: make(map[string]bool)}
	lj.ctx, lj.cancel = context.WithCancel(context.Background())
	return lj
}

// start sends the first history query and follows the publishers' tokens
// to query those that appear later. The subscriber on the data key must be
// declared already.
func (lj *lateJoiner) start() error {
	s := lj.s
	if err := lj.query(lj.key+"/@adv/**", true); err != nil {
		lj.cancel()
		return err
	}
	var err error
	lj.lsub, err = s.z.DeclareLivelinessSubscriber(lj.key+"/@adv/pub/**", func(smp zenoh.Sample) {
		if smp.Kind != zenoh.KindPut {
			lj.mu.Lock()
			delete(lj.queried, smp.KeyExpr)
			lj.mu.Unlock()
			return
		}
		lj.mu.Lock()
		seen := lj.queried[smp.KeyExpr]
		lj.queried[smp.KeyExpr] = true
		lj.mu.Unlock()
		if !seen {
			_ = lj.query(smp.KeyExpr, false)
		}
	}, zenoh.WithHistory())
	if err != nil {
		lj.cancel()
		return err
	}
	return nil
}

// query asks for the history under key; first marks the first query, whose
// end releases the held live samples.
func (lj *lateJoiner) query(key string, first bool) error {
	var replies []heldSample // guarded by the query's lock
	_, err := lj.s.z.GetFunc(lj.ctx, historySelector(key, lj.depth), func(r zenoh.Reply) {
		if r.Err != nil || len(replies) >= maxHeldSamples {
			return
		}
		a, err := parseAttachment(r.Sample.Attachment)
		if err != nil {
			lj.s.droppedSamples.Add(1)
			return
		}
		replies = append(replies, heldSample{payload: r.Sample.Payload, a: a})
	}, func(bool) {
		slices.SortStableFunc(replies, func(x, y heldSample) int {
			return cmp.Or(cmp.Compare(x.a.SourceTime, y.a.SourceTime), cmp.Compare(x.a.Seq, y.a.Seq))
		})
		lj.mu.Lock()
		defer lj.mu.Unlock()
		for _, h := range replies {
			lj.deliverLocked(h)
		}
		if first {
			lj.ready = true
			for _, h := range lj.held {
				lj.deliverLocked(h)
			}
			lj.held = nil
		}
	}, zenoh.WithTarget(zenoh.TargetAll), zenoh.WithConsolidation(zenoh.ConsolidationNone), zenoh.WithTimeout(historyTimeout))
	return err
}

// live takes a live sample: held until the first history query ended,
// delivered once otherwise.
func (lj *lateJoiner) live(payload []byte, a attachment) {
	lj.mu.Lock()
	defer lj.mu.Unlock()
	if !lj.ready {
		if len(lj.held) < maxHeldSamples {
			lj.held = append(lj.held, heldSample{payload: payload, a: a})
		} else {
			lj.s.droppedSamples.Add(1)
		}
		return
	}
	lj.deliverLocked(heldSample{payload: payload, a: a})
}

// deliverLocked delivers h unless its publisher's sequence number shows it
// was delivered already.
func (lj *lateJoiner) deliverLocked(h heldSample) {
	if h.a.Seq <= lj.last[h.a.GID] || lj.ctx.Err() != nil {
		return
	}
	if _, known := lj.last[h.a.GID]; !known && len(lj.last) >= maxPublishers {
		clear(lj.last)
	}
	lj.last[h.a.GID] = h.a.Seq
	lj.deliver(rmw.Message{Payload: h.payload, Info: h.a.info(), Stable: samplesStable})
}

// close stops the queries and the liveliness subscriber.
func (lj *lateJoiner) close() {
	lj.cancel()
	if lj.lsub != nil {
		_ = lj.lsub.Undeclare()
	}
}
