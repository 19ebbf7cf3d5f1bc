package wire

import (
	"encoding/hex"
	"math"
	"testing"
	"time"
)

// TestRequestTimeoutSaturates decodes a REQUEST whose timeout extension is
// u64::MAX ms, as rmw_zenoh sends on its history queries and action
// get_result calls: it means "no timeout" and must not fail the message
// (which would cost the whole link).
func TestRequestTimeoutSaturates(t *testing.T) {
	for _, ms := range []uint64{math.MaxUint64, uint64(math.MaxInt64/int64(time.Millisecond)) + 1} {
		b := hx(t, "fc 01 00 01", `"a"`, "26")
		b = AppendZint(b, ms)
		b = append(b, hx(t, "23 02")...)
		m, n, err := DecodeNetwork(b, Limits{})
		if err != nil {
			t.Fatalf("timeout %d ms: %v (bytes %s)", ms, err, hex.EncodeToString(b))
		}
		if n != len(b) {
			t.Fatalf("consumed %d of %d bytes", n, len(b))
		}
		req, ok := m.(*Request)
		if !ok {
			t.Fatalf("decoded %T, want *Request", m)
		}
		if req.Timeout != time.Duration(math.MaxInt64) {
			t.Errorf("timeout %d ms decoded as %v, want the largest Duration", ms, req.Timeout)
		}
	}
}
