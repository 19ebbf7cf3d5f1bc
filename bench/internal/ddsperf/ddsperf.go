// Package ddsperf is a Go implementation of Cyclone DDS's ddsperf tool on
// the pure-Go DDS (transport/dds), as far as the bench needs it: its ping,
// pong, pub and sub modes on ddsperf's default topics (the keyed KeyedSeq
// type, reliable), speaking ddsperf's own protocol, so that a Go ping runs
// against a Cyclone "ddsperf pong", a Cyclone "ddsperf ping" against a Go
// pong, and the same for pub/sub, in the same process layout as
// Cyclone↔Cyclone. It prints ddsperf's statistics lines, so that the same
// parser reads both.
//
// The protocol, as ddsperf has it:
//
//   - Every ddsperf participant announces USER_DATA "DDSPerf:R:PID:HOST"
//     ([UserData]); the others take it for a ddsperf process and create,
//     for it, a pong writer in the partition named after its GUID
//     ([Partition]), in which it reads its pongs. Every process has a ping
//     reader and writer and a pong reader, whatever its modes.
//   - The lowest bit of a sample's source timestamp (in nanoseconds) marks a
//     ping: a pinger writes a ping at time t|1; a ponger writes the sample
//     back on its pong writer for the pinger's participant with the same
//     timestamp (|1). The pinger records (now−t)/2 and, once every ponger
//     it knows has answered the current ping, sends the next one from the
//     callback that received the last pong; a ping unanswered for a second
//     is sent again.
//   - A publisher writes the data topic as fast as its reliable KEEP_ALL
//     writer lets it, sequence numbers counting up from 0, key 0; a
//     subscriber counts what arrives and what is missing per writer.
//
// Not implemented: ddsperf's other topic types, several keys, rates,
// bursts, pings embedded in the data stream, waitsets and polling, CPU
// statistics and the success criteria (-Q).
package ddsperf

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/afor-go/afor/transport/dds"
)

// Config is what to run.
type Config struct {
	// Ping sends pings of Size bytes and reports the latency (half the
	// round trip) to every ponger once a second. Every process but a
	// pinger answers pings (see endpoints).
	Ping bool
	// Pub publishes Size-byte samples on the data topic as fast as it can.
	Pub bool
	// Sub subscribes to the data topic and reports the rate once a second.
	Sub bool
	// Size is the sample size as ddsperf counts it (FixedSize plus the
	// baggage); smaller values mean FixedSize.
	Size int
	// Duration ends the run after this long; zero runs until ctx ends.
	Duration time.Duration
	// Participant configures the DDS participant (its UserData is
	// replaced by ddsperf's).
	Participant dds.Config
	// Out receives the statistics lines (default os.Stdout).
	Out io.Writer
}

// pingQoS is the QoS of the ping and pong endpoints: reliable KEEP_LAST 1.
func pingQoS() dds.QoS {
	return dds.QoS{Reliability: dds.Reliable, History: dds.KeepLast, Depth: 1}
}

// dataQoS is the QoS of the data endpoints: reliable KEEP_ALL, the writer
// blocking for room (a timeout is retried, as ddsperf's publisher does).
func dataQoS() dds.QoS {
	return dds.QoS{Reliability: dds.Reliable, History: dds.KeepAll, MaxSamples: 10000, MaxBlocking: time.Second}
}

// runner is one run's state.
type runner struct {
	cfg   Config
	p     *dds.Participant
	out   io.Writer
	pid   int
	start time.Time
	ctx   context.Context

	mu      sync.Mutex
	peers   map[dds.GUID]Peer        // ddsperf participants by GUID
	pongWr  map[dds.GUID]*dds.Writer // pong writer per remote participant
	expect  int                      // pongs expected per ping
	pingMu  sync.Mutex               // guards pingBuf
	pingWr  *dds.Writer
	pingBuf []byte
	curSeq  uint32
	seen    int
	pingAt  time.Time
	lat     map[dds.GUID]*latency // by pong writer's participant
	subs    map[dds.GUID]*subStat // by data writer
	fail    error                 // the first write error
}

// Run runs cfg until ctx ends or cfg.Duration has passed.
func Run(ctx context.Context, cfg Config) error {
	if cfg.Duration > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, cfg.Duration)
		defer cancel()
	}
	cfg.Size = max(cfg.Size, FixedSize)
	if cfg.Size > MaxSize {
		return fmt.Errorf("%w: size %d above %d", ErrUsage, cfg.Size, MaxSize)
	}
	r := &runner{cfg: cfg, out: cfg.Out, pid: os.Getpid(), start: time.Now(), ctx: ctx,
		peers: map[dds.GUID]Peer{}, pongWr: map[dds.GUID]*dds.Writer{},
		lat: map[dds.GUID]*latency{}, subs: map[dds.GUID]*subStat{}}
	if r.out == nil {
		r.out = os.Stdout
	}
	host, _ := os.Hostname()
	pc := cfg.Participant
	pc.UserData = UserData(cfg.Sub, r.pid, host)
	if pc.Logger == nil {
		pc.Logger = slog.New(slog.DiscardHandler)
	}
	p, err := dds.NewParticipant(ctx, pc)
	if err != nil {
		return err
	}
	defer p.Close()
	r.p = p
	if err := r.endpoints(); err != nil {
		return err
	}
	stop := p.WatchDiscovery(r.discovered)
	defer stop()
	var wg sync.WaitGroup
	if cfg.Pub {
		w, err := dds.NewWriter(p, topic(TopicData), dataQoS())
		if err != nil {
			return err
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			r.publish(ctx, w)
		}()
	}
	r.loop(ctx)
	wg.Wait()
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.fail
}

// endpoints creates what every ddsperf process has: a ping reader and
// writer, a pong reader in its own partition, and a data reader when it
// subscribes.
func (r *runner) endpoints() error {
	w, err := dds.NewWriter(r.p, topic(TopicPing), pingQoS())
	if err != nil {
		return err
	}
	r.pingWr = w
	r.pingBuf = AppendSample(nil, 0, 0, r.cfg.Size)
	// A pinger has no ping reader: the Go DDS would deliver its own pings
	// to it (ddsperf ignores the endpoints of its own participant), work
	// the Cyclone pinger does not do. A Cyclone peer then reports once
	// that it "failed to match" this participant's ping reader.
	if !r.cfg.Ping {
		if _, err := dds.NewReaderLoan(r.p, topic(TopicPing), pingQoS(), r.onPing); err != nil {
			return err
		}
	}
	pq := dataQoS()
	pq.Partition = []string{Partition(r.p.GUID())}
	if _, err := dds.NewReaderLoan(r.p, topic(TopicPong), pq, r.onPong); err != nil {
		return err
	}
	if r.cfg.Sub {
		if _, err := dds.NewReaderLoan(r.p, topic(TopicData), dataQoS(), r.onData); err != nil {
			return err
		}
	}
	return nil
}

// discovered creates a pong writer for every new ddsperf participant.
func (r *runner) discovered(ev dds.DiscoveryEvent) {
	if ev.Kind != dds.ParticipantFound {
		return
	}
	peer, err := ParseUserData(ev.Participant.UserData)
	if err != nil {
		return
	}
	g := ev.Participant.GUID
	r.mu.Lock()
	_, known := r.peers[g]
	r.peers[g] = peer
	r.mu.Unlock()
	if known {
		return
	}
	q := pingQoS()
	q.Partition = []string{Partition(g)}
	w, err := dds.NewWriter(r.p, topic(TopicPong), q)
	if err != nil {
		r.failed(err)
		return
	}
	r.mu.Lock()
	r.pongWr[g] = w
	r.expect++
	r.mu.Unlock()
}

// onPing answers a ping on the pong writer for the pinger's participant,
// with the ping's source timestamp, its lowest bit set.
func (r *runner) onPing(s dds.Sample) {
	d, err := ParseSample(s.Payload)
	if err != nil {
		return
	}
	r.mu.Lock()
	w := r.pongWr[s.Writer.Participant()]
	r.mu.Unlock()
	if w == nil {
		return
	}
	ts := s.SourceTime
	if ts.Nanosecond()&1 == 0 {
		ts = ts.Add(1)
	}
	if err := w.WriteAt(r.ctx, s.Payload[:d.Len], ts); err != nil && !errors.Is(err, dds.ErrTimeout) {
		r.failed(err)
	}
}

// onPong records a pong and, when it is the last one expected for the
// current ping, sends the next ping.
func (r *runner) onPong(s dds.Sample) {
	now := time.Now()
	d, err := ParseSample(s.Payload)
	if err != nil || !r.cfg.Ping {
		return
	}
	isPing := s.SourceTime.Nanosecond()&1 == 1
	r.mu.Lock()
	pp := s.Writer.Participant()
	l := r.lat[pp]
	if l == nil {
		l = &latency{}
		r.lat[pp] = l
	}
	l.add(now.Sub(s.SourceTime) / 2)
	next := false
	if isPing && d.Seq == r.curSeq {
		r.seen++
		next = r.seen >= r.expect
	}
	var seq uint32
	if next {
		seq = r.nextPingLocked(now)
	}
	r.mu.Unlock()
	if next {
		r.sendPing(seq)
	}
}

// nextPingLocked starts a new ping and returns its sequence number (r.mu
// held).
func (r *runner) nextPingLocked(now time.Time) uint32 {
	r.curSeq++
	r.seen = 0
	r.pingAt = now
	return r.curSeq
}

// sendPing writes ping seq, timestamped now with the lowest bit set. It
// runs on the goroutine that received the last pong (or the one-second
// retry's), never both at once for one sequence number; the writer is
// KEEP_LAST 1 and never blocks.
func (r *runner) sendPing(seq uint32) {
	ts := time.Now()
	if ts.Nanosecond()&1 == 0 {
		ts = ts.Add(1)
	}
	r.pingMu.Lock()
	SetSeq(r.pingBuf, seq)
	err := r.pingWr.WriteAt(r.ctx, r.pingBuf, ts)
	r.pingMu.Unlock()
	if err != nil && !errors.Is(err, dds.ErrTimeout) {
		r.failed(err)
	}
}

// publish writes the data topic as fast as the writer takes it.
func (r *runner) publish(ctx context.Context, w *dds.Writer) {
	buf := AppendSample(nil, 0, 0, r.cfg.Size)
	for seq := uint32(0); ctx.Err() == nil; {
		SetSeq(buf, seq)
		ts := time.Now()
		if ts.Nanosecond()&1 == 1 {
			ts = ts.Add(-1)
		}
		err := w.WriteAt(ctx, buf, ts)
		switch {
		case err == nil:
			seq++
		case errors.Is(err, dds.ErrTimeout):
		case ctx.Err() != nil:
			return
		default:
			r.failed(err)
			return
		}
	}
}

// onData counts a data sample.
func (r *runner) onData(s dds.Sample) {
	d, err := ParseSample(s.Payload)
	if err != nil {
		return
	}
	r.mu.Lock()
	st := r.subs[s.Writer]
	if st == nil {
		st = &subStat{next: d.Seq}
		r.subs[s.Writer] = st
	}
	st.recv++
	st.bytes += uint64(d.Size)
	st.lost += uint64(d.Seq - st.next)
	st.next = d.Seq + 1
	st.size = d.Size
	r.mu.Unlock()
}

func (r *runner) failed(err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.fail == nil && r.ctx.Err() == nil {
		r.fail = err
	}
}

// retry is how long a ping may go unanswered before the next one is
// sent: a second, as ddsperf has it, but a tenth of that until the first
// pong (the pongers' writers for this participant may not match yet).
func (r *runner) retry() time.Duration {
	if len(r.lat) == 0 {
		return time.Second / 10
	}
	return time.Second
}

// loop prints the statistics once a second (and once more when ctx ends)
// and sends a new ping when the current one went unanswered, until ctx
// ends.
func (r *runner) loop(ctx context.Context) {
	t := time.NewTicker(time.Second / 10)
	defer t.Stop()
	last := time.Now()
	for {
		select {
		case <-ctx.Done():
			if now := time.Now(); now.Sub(last) >= time.Second/2 {
				r.print(now, now.Sub(last))
			}
			return
		case now := <-t.C:
			if now.Sub(last) >= time.Second-time.Second/20 {
				r.print(now, now.Sub(last))
				last = now
			}
			if r.cfg.Ping {
				r.mu.Lock()
				again := r.expect > 0 && now.Sub(r.pingAt) >= r.retry()
				var seq uint32
				if again {
					seq = r.nextPingLocked(now)
				}
				r.mu.Unlock()
				if again {
					r.sendPing(seq)
				}
			}
		}
	}
}

// print writes one second's statistics as ddsperf does.
func (r *runner) print(now time.Time, dt time.Duration) {
	prefix := fmt.Sprintf("[%d] %.3f ", r.pid, now.Sub(r.start).Seconds())
	var lines []string
	r.mu.Lock()
	if r.cfg.Sub {
		var tot, lost, delta, dlost, dbytes uint64
		size := 0
		for _, st := range r.subs {
			tot += st.recv
			lost += st.lost
			delta += st.recv - st.prevRecv
			dlost += st.lost - st.prevLost
			dbytes += st.bytes - st.prevBytes
			st.prevRecv, st.prevLost, st.prevBytes = st.recv, st.lost, st.bytes
			size = st.size
		}
		if delta > 0 {
			rate := float64(delta) / dt.Seconds() / 1e3
			mbps := float64(dbytes) * 8 / dt.Seconds() / 1e6
			lines = append(lines, fmt.Sprintf("%s size %d total %d lost %d delta %d lost %d rate %.2f kS/s %.2f Mb/s (%.2f kS/s %.2f Mb/s)",
				prefix, size, tot, lost, delta, dlost, rate, mbps, rate, mbps))
		}
	}
	for g, l := range r.lat {
		if len(l.raw) == 0 {
			continue
		}
		who := g.String()
		if p, ok := r.peers[g]; ok {
			who = p.Host + ":" + strconv.Itoa(p.PID)
		}
		lines = append(lines, prefix+" "+who+" "+l.line(r.cfg.Size))
		l.raw = l.raw[:0]
	}
	r.mu.Unlock()
	if len(lines) > 0 {
		fmt.Fprintln(r.out, strings.Join(lines, "\n"))
	}
}

// subStat counts the data from one writer.
type subStat struct {
	next                          uint32
	recv, lost, bytes             uint64
	prevRecv, prevLost, prevBytes uint64
	size                          int
}

// maxRaw bounds the latencies kept per second (as ddsperf's 20000).
const maxRaw = 20000

// latency collects one second of latencies from one ponger.
type latency struct {
	raw []time.Duration
	sum time.Duration
	n   int
}

func (l *latency) add(d time.Duration) {
	if len(l.raw) < maxRaw {
		l.raw = append(l.raw, d)
	}
	l.sum += d
	l.n++
}

// line formats and resets the statistics, as ddsperf prints them.
func (l *latency) line(size int) string {
	slices.Sort(l.raw)
	n := len(l.raw)
	at := func(k int) float64 { return us(l.raw[n-(n+k-1)/k]) }
	s := fmt.Sprintf("size %d mean %.3fus min %.3fus 50%% %.3fus 90%% %.3fus 99%% %.3fus max %.3fus cnt %d",
		size, us(l.sum/time.Duration(l.n)), us(l.raw[0]), at(2), at(10), at(100), us(l.raw[n-1]), l.n)
	l.sum, l.n = 0, 0
	return s
}

func us(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e3 }
