package mcap

import (
	"bytes"
	"fmt"
	"io"
	"testing"
)

// benchPayloads are 1000 messages of 256 bytes (IMU-sized and up), half
// of them zeros (compressible).
func benchPayloads() [][]byte {
	var out [][]byte
	for i := range 1000 {
		p := make([]byte, 256)
		for k := range p[:128] {
			p[k] = byte(i * k)
		}
		out = append(out, p)
	}
	return out
}

// BenchmarkWrite writes 1000 messages per iteration to one writer (chunks
// of 768 KiB, their message indexes, the summary at the end); the "copy"
// row is the floor: appending the same payloads to a buffer.
func BenchmarkWrite(b *testing.B) {
	payloads := benchPayloads()
	b.Run("copy", func(b *testing.B) {
		b.SetBytes(256 * 1000)
		var buf []byte
		for range b.N {
			buf = buf[:0]
			for _, p := range payloads {
				buf = append(buf, p...)
			}
		}
	})
	for _, c := range []Compression{CompressionNone, CompressionZstd, CompressionLZ4} {
		b.Run(fmt.Sprintf("chunks %q", c), func(b *testing.B) {
			b.SetBytes(256 * 1000)
			b.ReportAllocs()
			w, _ := NewWriter(io.Discard, WriterOptions{Compression: c})
			s, _ := w.AddSchema("x", "ros2msg", nil)
			ch, _ := w.AddChannel(s, "/imu", "cdr", nil)
			t := uint64(0)
			for range b.N {
				for _, p := range payloads {
					t++
					_ = w.WriteMessage(Message{ChannelID: ch, LogTime: t, PublishTime: t, Data: p})
				}
			}
			_ = w.Close()
		})
	}
}

// BenchmarkRead reads 1000 messages per iteration from a file in memory.
func BenchmarkRead(b *testing.B) {
	payloads := benchPayloads()
	for _, c := range []Compression{CompressionNone, CompressionZstd, CompressionLZ4} {
		var buf bytes.Buffer
		w, _ := NewWriter(&buf, WriterOptions{Compression: c})
		s, _ := w.AddSchema("x", "ros2msg", nil)
		ch, _ := w.AddChannel(s, "/imu", "cdr", nil)
		for i, p := range payloads {
			_ = w.WriteMessage(Message{ChannelID: ch, LogTime: uint64(i), PublishTime: uint64(i), Data: p})
		}
		_ = w.Close()
		file := buf.Bytes()
		b.Run(fmt.Sprintf("chunks %q", c), func(b *testing.B) {
			b.SetBytes(256 * 1000)
			for range b.N {
				r, err := Open(bytes.NewReader(file), int64(len(file)), Limits{})
				if err != nil {
					b.Fatal(err)
				}
				n := 0
				for _, err := range r.Messages(ReadOptions{}) {
					if err != nil {
						b.Fatal(err)
					}
					n++
				}
				if n != 1000 {
					b.Fatal(n)
				}
			}
		})
	}
}
