package idl_test

import (
	"crypto/sha256"
	"io/fs"
	"strings"
	"testing"

	"github.com/afor-go/afor/ros/idl"
	"github.com/afor-go/afor/ros/interfaces"
)

// The benchmarks pair each operation with the primitive under it, so that
// their ratio can be read from one run:
//
//	BenchmarkParseCameraInfo / BenchmarkSplitLinesCameraInfo
//	BenchmarkTypeHashUncached / BenchmarkSHA256TypeDescription

func cameraInfo(b *testing.B) []byte {
	src, err := fs.ReadFile(interfaces.FS(), "sensor_msgs/msg/CameraInfo.msg")
	if err != nil {
		b.Fatal(err)
	}
	return src
}

func BenchmarkParseCameraInfo(b *testing.B) {
	src := cameraInfo(b)
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := idl.ParseMessage("sensor_msgs", "CameraInfo", src); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSplitLinesCameraInfo is the floor of parsing: copying the text
// into a string and splitting it into lines.
func BenchmarkSplitLinesCameraInfo(b *testing.B) {
	src := cameraInfo(b)
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	for b.Loop() {
		if len(strings.Split(string(src), "\n")) == 0 {
			b.Fatal("no lines")
		}
	}
}

func BenchmarkLoadAllShipped(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := interfaces.Registry(); err != nil {
			b.Fatal(err)
		}
	}
}

const hashBenchType = "sensor_msgs/msg/CameraInfo"

// BenchmarkTypeHashUncached builds the type description of CameraInfo (4
// referenced types) and hashes it.
func BenchmarkTypeHashUncached(b *testing.B) {
	r, err := interfaces.Registry()
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		j, err := r.TypeDescriptionJSON(hashBenchType)
		if err != nil {
			b.Fatal(err)
		}
		_ = sha256.Sum256(j)
	}
}

// BenchmarkSHA256TypeDescription is the floor of hashing: SHA-256 of the
// same description, already serialized.
func BenchmarkSHA256TypeDescription(b *testing.B) {
	r, err := interfaces.Registry()
	if err != nil {
		b.Fatal(err)
	}
	j, err := r.TypeDescriptionJSON(hashBenchType)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(j)))
	b.ReportAllocs()
	for b.Loop() {
		_ = sha256.Sum256(j)
	}
}

func BenchmarkTypeHashCached(b *testing.B) {
	r, err := interfaces.Registry()
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := r.TypeHash(hashBenchType); err != nil {
			b.Fatal(err)
		}
	}
}
