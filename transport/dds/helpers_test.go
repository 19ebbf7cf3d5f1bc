package dds

import (
	"context"
	"github.com/afor-go/afor"
	"io"
	"log/slog"
	"os"
	"sync/atomic"
	"testing"
	"time"
)

// testDomain hands out a distinct domain per participant group, so that
// tests in the same namespace (or, outside it, on the same host) never see
// each other. They are 12 to 99 (the examples use 7, 8 and 11): the ports
// of domains above 101 lie in Linux's ephemeral range, where a socket bound
// to port 0 (a participant's acknowledgment or multicast sending socket) can
// take a port another participant then fails to bind, as ROS 2's docs warn.
var testDomain atomic.Int32

func nextDomain() int { return 12 + int(testDomain.Add(1))%88 }

func noEnv(string) string { return "" }

func testLogger() *slog.Logger {
	if os.Getenv("DDS_TEST_LOG") != "" {
		return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	return slog.New(slog.NewTextHandler(io.Discard, nil))
}

// newTestParticipant starts a participant closed at the end of the test.
func newTestParticipant(t testing.TB, cfg Config) *Participant {
	t.Helper()
	if cfg.Getenv == nil {
		cfg.Getenv = noEnv
	}
	if cfg.Logger == nil {
		cfg.Logger = testLogger()
	}
	p, err := NewParticipant(t.Context(), cfg)
	if err != nil {
		t.Fatalf("NewParticipant: %v", err)
	}
	t.Cleanup(func() { p.Close() })
	return p
}

// localhostPair starts two participants of a fresh domain that find each
// other by unicast on 127.0.0.1 (the LOCALHOST range), no multicast.
func localhostPair(t testing.TB) (*Participant, *Participant) {
	d := nextDomain()
	a := newTestParticipant(t, Config{DomainID: d, Range: RangeLocalhost})
	b := newTestParticipant(t, Config{DomainID: d, Range: RangeLocalhost})
	return a, b
}

// waitCtx bounds one exchange. The bound is generous on purpose: on a
// loaded 2-core machine discovery plus 200 reliable samples to a peer
// that prints a line per sample took over 10 s once (every sample
// arrived); it bounds a hang, it does not measure speed.
func waitCtx(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), 45*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// cdrString encodes s as a CDR_LE std_msgs/String payload.
func cdrString(s string) []byte {
	n := len(s) + 1
	b := []byte{0, 1, 0, 0, byte(n), byte(n >> 8), byte(n >> 16), byte(n >> 24)}
	b = append(b, s...)
	return append(b, 0)
}

// cdrStringDecode decodes a payload made by cdrString (or by a peer).
func cdrStringDecode(b []byte) (string, bool) {
	if len(b) < 8 {
		return "", false
	}
	n := int(b[4]) | int(b[5])<<8 | int(b[6])<<16 | int(b[7])<<24
	if n < 1 || 8+n > len(b) {
		return "", false
	}
	return string(b[8 : 8+n-1]), true
}

// stringCodec is an afor.Codec of strings as CDR std_msgs/String.
type stringCodec struct{}

func (stringCodec) Append(dst []byte, s string) ([]byte, error) {
	return append(dst, cdrString(s)...), nil
}

func (stringCodec) Decode(b []byte) (string, error) {
	s, ok := cdrStringDecode(b)
	if !ok {
		return "", io.ErrUnexpectedEOF
	}
	return s, nil
}

var chatter = Topic{Name: "rt/chatter", TypeName: "std_msgs::msg::dds_::String_"}

func contextWithTimeout(ctx context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, d)
}

var testTime = time.Date(2026, 1, 2, 3, 4, 5, 6, time.UTC)

// streamKeepAll writes n copies of payload from a KEEP_ALL writer on a to
// a matched reader on b and waits until the reader's loop has taken them
// all.
func streamKeepAll(t *testing.T, ctx context.Context, a, b *Participant, payload []byte, n int) {
	t.Helper()
	r, w := matchedPair(t, ctx, a, b, QoS{History: KeepAll}, afor.WithDefaultQueueSize(0))
	l := r.Sub().Listener(ctx, afor.Fresh(), afor.QueueSize(0))
	defer l.Stop()
	for range n {
		if err := w.Write(ctx, payload); err != nil {
			t.Fatal(err)
		}
	}
	for i := range n {
		if _, err := l.Next(ctx); err != nil {
			t.Fatalf("sample %d: %v", i, err)
		}
	}
}

// matchedPair creates a reader of chatter on b and a writer on a, both
// with q, closed at the test's end, and waits until each matched the
// other.
func matchedPair(t testing.TB, ctx context.Context, a, b *Participant, q QoS, opts ...afor.Option) (*Reader, *Writer) {
	t.Helper()
	r, err := NewReader(b, chatter, q, opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	w, err := NewWriter(a, chatter, q)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	if err := w.WaitMatched(ctx, 1); err != nil {
		t.Fatal(err)
	}
	if err := r.WaitMatched(ctx, 1); err != nil {
		t.Fatal(err)
	}
	return r, w
}
