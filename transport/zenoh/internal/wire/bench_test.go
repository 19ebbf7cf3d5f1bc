package wire

import (
	"fmt"
	"testing"
)

var benchSizes = []int{8, 1024}

func benchPush(size int) *Push {
	return &Push{
		WireExpr: WireExpr{Scope: 1, Suffix: []byte("/robot/pose"), Mapping: MappingSender},
		Body:     &Put{Payload: make([]byte, size)},
	}
}

// BenchmarkPushPut measures a PUSH of a PUT inside a FRAME: encoding into a
// reused buffer, decoding with a Decoder, and both. BenchmarkCopyBaseline is
// the primitive underneath (copying the same batch), for ratios.
func BenchmarkPushPut(b *testing.B) {
	for _, size := range benchSizes {
		push := benchPush(size)
		batch, err := push.AppendBinary(AppendFrameHeader(nil, true, 1))
		if err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("encode/%dB", size), func(b *testing.B) {
			buf := make([]byte, 0, len(batch))
			b.SetBytes(int64(len(batch)))
			b.ReportAllocs()
			for b.Loop() {
				buf = AppendFrameHeader(buf[:0], true, 1)
				buf, _ = push.AppendBinary(buf)
			}
		})
		b.Run(fmt.Sprintf("decode/%dB", size), func(b *testing.B) {
			d := NewDecoder(Limits{})
			b.SetBytes(int64(len(batch)))
			b.ReportAllocs()
			for b.Loop() {
				d.Reset(batch)
				if _, err := d.Next(); err != nil {
					b.Fatal(err)
				}
				m, err := d.NextNetwork()
				if err != nil {
					b.Fatal(err)
				}
				if len(m.(*Push).Body.(*Put).Payload) != size {
					b.Fatal("bad payload")
				}
			}
		})
		b.Run(fmt.Sprintf("roundtrip/%dB", size), func(b *testing.B) {
			d := NewDecoder(Limits{})
			buf := make([]byte, 0, len(batch))
			b.SetBytes(int64(len(batch)))
			b.ReportAllocs()
			for b.Loop() {
				buf = AppendFrameHeader(buf[:0], true, 1)
				buf, _ = push.AppendBinary(buf)
				d.Reset(buf)
				d.Next()
				if _, err := d.NextNetwork(); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(fmt.Sprintf("decode-alloc/%dB", size), func(b *testing.B) {
			b.SetBytes(int64(len(batch)))
			b.ReportAllocs()
			for b.Loop() {
				if _, _, err := DecodeTransport(batch, Limits{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkCopyBaseline copies a batch of the same size into a reused
// buffer: the floor for any encoder that produces those bytes.
func BenchmarkCopyBaseline(b *testing.B) {
	for _, size := range benchSizes {
		batch, _ := benchPush(size).AppendBinary(AppendFrameHeader(nil, true, 1))
		b.Run(fmt.Sprintf("%dB", size), func(b *testing.B) {
			buf := make([]byte, 0, len(batch))
			b.SetBytes(int64(len(batch)))
			b.ReportAllocs()
			for b.Loop() {
				buf = append(buf[:0], batch...)
			}
			if len(buf) != len(batch) {
				b.Fatal("short copy")
			}
		})
	}
}
