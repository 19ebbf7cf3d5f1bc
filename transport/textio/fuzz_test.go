package textio

import (
	"bytes"
	"errors"
	"slices"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/afor-go/afor"
)

// FuzzFromReader feeds arbitrary bytes, in arbitrary read sizes, through
// FromReader with a small line limit and compares the lines with a plain
// split of the input.
func FuzzFromReader(f *testing.F) {
	f.Add([]byte("a\nb\r\nc"), uint8(4), false)
	f.Add([]byte(""), uint8(1), true)
	f.Add([]byte("\n\n\n"), uint8(1), false)
	f.Add([]byte("12345\n123456\n"), uint8(5), true)
	f.Add([]byte("abc\r\r\n\x00\xff\n"), uint8(3), false)
	f.Add(bytes.Repeat([]byte("x"), 300), uint8(255), true)
	f.Fuzz(func(t *testing.T, data []byte, max uint8, oneByte bool) {
		limit := int(max%64) + 1
		// The reference: split after '\n', drop the empty tail, stop at
		// the first line longer than the limit.
		var want []string
		wantErr := false
		for _, raw := range strings.SplitAfter(string(data), "\n") {
			if raw == "" {
				continue
			}
			if len(strings.TrimSuffix(raw, "\n")) > limit {
				wantErr = true
				break
			}
			want = append(want, strings.TrimRight(raw, "\r\n"))
		}

		src := iotest.HalfReader(bytes.NewReader(data))
		if oneByte {
			src = iotest.OneByteReader(bytes.NewReader(data))
		}
		r, open := gate(src)
		sub := FromReader(r, WithMaxLineLength(limit))
		l := sub.Listener(t.Context(), afor.QueueSize(0))
		open()
		var got []string
		for v := range l.All() {
			got = append(got, v)
		}
		<-sub.Done()
		if !slices.Equal(got, want) {
			t.Fatalf("lines = %q, want %q", got, want)
		}
		if err := sub.Err(); wantErr != errors.Is(err, ErrLineTooLong) || !wantErr && err != nil {
			t.Fatalf("Err = %v, want line too long: %v", err, wantErr)
		}
	})
}
