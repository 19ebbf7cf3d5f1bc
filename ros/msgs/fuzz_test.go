package msgs_test

import (
	"bytes"
	"errors"
	"testing"

	"github.com/afor-go/afor/ros/cdr"
)

// fuzzTargets returns a fresh value of every generated message type.
func fuzzTargets() []cdr.Message {
	var ms []cdr.Message
	for _, n := range allTypes() {
		if m, ok := n.(cdr.Message); ok {
			ms = append(ms, m)
		}
	}
	return ms
}

// FuzzUnmarshal decodes arbitrary bytes into every generated message type. Decoding must
// fail with a cdr error or succeed; a value that decoded must encode, and
// decode again to the same bytes.
func FuzzUnmarshal(f *testing.F) {
	for _, m := range sampleMessages() {
		b, err := m.AppendCDR(nil)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte{0, 1, 0, 0, 0xff, 0xff, 0xff, 0xff})
	f.Add([]byte{0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 1, 0})
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, m := range fuzzTargets() {
			if err := m.UnmarshalCDR(data); err != nil {
				if !errors.Is(err, cdr.ErrTruncated) && !errors.Is(err, cdr.ErrInvalid) && !errors.Is(err, cdr.ErrBoundExceeded) {
					t.Fatalf("%s: unexpected error %v", m.TypeName(), err)
				}
				continue
			}
			b, err := m.AppendCDR(nil)
			if err != nil {
				t.Fatalf("%s: decoded value does not encode: %v", m.TypeName(), err)
			}
			if err := m.UnmarshalCDR(b); err != nil {
				t.Fatalf("%s: re-decode: %v", m.TypeName(), err)
			}
			b2, _ := m.AppendCDR(nil)
			if !bytes.Equal(b, b2) {
				t.Fatalf("%s: encoding not stable", m.TypeName())
			}
		}
	})
}
