// Package scenario holds the measurements of the afor benchmark harness
// (the bench command): echo, latency, throughput and request/reply, each run
// over a pluggable [Transport] in two modes, [ModeAfor] (an afor.Sub consumed
// by its iterators) and [ModeNative] (the transport's own callback, no afor),
// next to floor rows ([Floor]: a raw Go channel, TCP and UDP loopback, and
// TCP to a child process) and the Python afor's own echo ([RunEchoPython]).
//
// Every scenario is a small session object with one operation (a round trip,
// a message sent, a call), so that the same code is timed by the bench
// command and by go test -bench in this package (for benchstat).
package scenario

import (
	"cmp"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"time"
)

// Mode says how a scenario consumes a transport.
type Mode string

// The modes of a result row.
const (
	// ModeAfor consumes messages with an afor.Sub: ListenReliable loops,
	// Listener.Next, Server/Client.
	ModeAfor Mode = "afor"
	// ModeNative consumes messages with the transport's own callback,
	// without afor (for the in-memory bus, an OnInput callback).
	ModeNative Mode = "native"
	// ModeFloor is a raw primitive under every transport: a Go channel, or
	// a TCP or UDP loopback socket (for TCP, also to a child process).
	ModeFloor Mode = "floor"
	// ModePython is the Python afor (asyncio-for-robotics) on uvloop.
	ModePython Mode = "python"
)

// Errors reported by scenarios.
var (
	// ErrUnsupported reports a scenario or mode that a transport lacks.
	ErrUnsupported = errors.New("scenario: unsupported by this transport")
	// ErrShortMessage reports a payload shorter than [HeaderSize].
	ErrShortMessage = errors.New("scenario: message shorter than its header")
	// ErrUnexpected reports a message that is not the one expected (a lost,
	// duplicated or reordered message).
	ErrUnexpected = errors.New("scenario: unexpected message")
	// ErrBadConfig reports an invalid configuration.
	ErrBadConfig = errors.New("scenario: bad configuration")
)

// HeaderSize is the size of a message's header on the wire: a
// little-endian uint64 sequence number and an int64 time stamp. Smaller
// sizes are raised to it.
const HeaderSize = 16

// Msg is the message of every scenario. Over byte transports it is encoded
// as its header followed by zero padding up to the configured size; in
// memory Body is a shared read-only slice of that padding.
type Msg struct {
	Seq   uint64 // sequence number, or the hop counter in echo
	Stamp int64  // send time in ns on the scenario's clock (latency)
	Body  []byte // padding; nil when decoded from bytes
}

// AppendMsg appends m's wire form to dst: its header and zero padding up to
// size bytes in all (at least HeaderSize).
func AppendMsg(dst []byte, m Msg, size int) []byte {
	dst = binary.LittleEndian.AppendUint64(dst, m.Seq)
	dst = binary.LittleEndian.AppendUint64(dst, uint64(m.Stamp))
	for range max(size, HeaderSize) - HeaderSize {
		dst = append(dst, 0)
	}
	return dst
}

// putHeader overwrites the header at the start of b (len(b) >= HeaderSize).
func putHeader(b []byte, m Msg) {
	binary.LittleEndian.PutUint64(b, m.Seq)
	binary.LittleEndian.PutUint64(b[8:], uint64(m.Stamp))
}

// DecodeMsg reads a message's header from b and ignores the padding; the
// returned Msg does not keep b.
func DecodeMsg(b []byte) (Msg, error) {
	if len(b) < HeaderSize {
		return Msg{}, fmt.Errorf("%w: %d bytes", ErrShortMessage, len(b))
	}
	return Msg{
		Seq:   binary.LittleEndian.Uint64(b),
		Stamp: int64(binary.LittleEndian.Uint64(b[8:])),
	}, nil
}

// Codec is the afor.Codec of [Msg] for byte transports, padding every
// message to Size bytes.
type Codec struct{ Size int }

// Append appends m's wire form to dst.
func (c Codec) Append(dst []byte, m Msg) ([]byte, error) { return AppendMsg(dst, m, c.Size), nil }

// Decode reads a message's header.
func (Codec) Decode(b []byte) (Msg, error) { return DecodeMsg(b) }

// clock stamps messages with the time since its start (monotonic), shared
// by the sender and the receiver of one process.
type clock struct{ start time.Time }

func newClock() clock { return clock{start: time.Now()} }

func (c clock) now() int64 { return int64(time.Since(c.start)) }

// Result is one row of a report.
type Result struct {
	Scenario  string `json:"scenario"`
	Transport string `json:"transport"`
	Mode      Mode   `json:"mode"`
	Size      int    `json:"size"`
	// Ops counts the operations measured: hops (echo), messages received
	// (latency, throughput), calls (request).
	Ops     int64         `json:"ops"`
	Elapsed time.Duration `json:"elapsed_ns"`
	// NsPerOp is the primary metric, lower is better: ns per hop (echo),
	// per message (throughput), per call (request), the median latency
	// (latency).
	NsPerOp     float64  `json:"ns_per_op"`
	Rate        float64  `json:"ops_per_s"`
	BytesPerSec float64  `json:"bytes_per_s,omitempty"`
	Latency     *Latency `json:"latency,omitempty"`
	Sent        int64    `json:"sent,omitempty"`
	Dropped     int64    `json:"dropped"`
	Late        int64    `json:"late"`
	Failed      int64    `json:"failed"`
	// CPU is the process's CPU time (user+system) over the measured
	// window, in % of one core; for python rows, the interpreter's.
	CPU float64 `json:"cpu_percent"`
	// Runs is how many times the row ran (-repeat): the row shown is the
	// run picked by [Combine], MinNsPerOp and MaxNsPerOp the spread, and
	// Sent, Dropped, Late and Failed add up all runs.
	Runs       int     `json:"runs,omitempty"`
	MinNsPerOp float64 `json:"min_ns_per_op,omitempty"`
	MaxNsPerOp float64 `json:"max_ns_per_op,omitempty"`
	// Error is the error that ended the row early, if any.
	Error string `json:"error,omitempty"`
	// Skipped says why the row did not run, if it did not.
	Skipped string `json:"skipped,omitempty"`
	// Note describes the row (what exactly was measured).
	Note string `json:"note,omitempty"`
	// Pipeline holds the robot pipeline scenario's per-node numbers; its
	// row's CPU is the nodes' total, its Latency and NsPerOp the IMU to
	// control latency.
	Pipeline *Pipeline `json:"pipeline,omitempty"`
	// Image holds the image scenario's numbers per side; its row's CPU is
	// both processes' total, its Latency and NsPerOp the one-way latency.
	Image *Image `json:"image,omitempty"`
	// Samples are the latencies of the latency scenario, for plots.
	Samples []time.Duration `json:"-"`
}

// Name returns "scenario/transport/mode/size".
func (r Result) Name() string {
	return fmt.Sprintf("%s/%s/%s/%dB", r.Scenario, r.Transport, r.Mode, r.Size)
}

// finish fills the derived metrics of a row that measured ops in elapsed.
func (r *Result) finish(ops int64, elapsed time.Duration, cpu time.Duration) {
	r.Ops, r.Elapsed = ops, elapsed
	if elapsed > 0 {
		r.Rate = float64(ops) / elapsed.Seconds()
		r.CPU = 100 * cpu.Seconds() / elapsed.Seconds()
	}
	if ops > 0 {
		r.NsPerOp = float64(elapsed.Nanoseconds()) / float64(ops)
	}
}

// Combine merges several runs of one row: it returns the run with the
// median NsPerOp (the lower middle one for an even count), or with the
// lowest when best is set, with the spread of all runs and the sums of
// their Sent, Dropped, Late and Failed counts. A run that failed or was
// skipped is returned as is, so that its error is seen.
func Combine(runs []Result, best bool) Result {
	if len(runs) == 0 {
		return Result{}
	}
	good := make([]Result, 0, len(runs))
	var sent, dropped, late, failed int64
	for _, r := range runs {
		if r.Error != "" || r.Skipped != "" || r.NsPerOp <= 0 {
			r.Runs = len(runs)
			return r
		}
		good = append(good, r)
		sent, dropped, late, failed = sent+r.Sent, dropped+r.Dropped, late+r.Late, failed+r.Failed
	}
	slices.SortFunc(good, func(a, b Result) int {
		if a.Pipeline != nil && b.Pipeline != nil { // the pipeline's metric is its CPU use
			return cmp.Compare(a.Pipeline.TotalCPU, b.Pipeline.TotalCPU)
		}
		return cmp.Compare(a.NsPerOp, b.NsPerOp)
	})
	m := good[(len(good)-1)/2]
	if best {
		m = good[0]
	}
	m.Runs, m.MinNsPerOp, m.MaxNsPerOp = len(runs), good[0].NsPerOp, good[len(good)-1].NsPerOp
	m.Sent, m.Dropped, m.Late, m.Failed = sent, dropped, late, failed
	return m
}
