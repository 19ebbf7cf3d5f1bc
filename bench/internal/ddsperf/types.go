package ddsperf

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"strconv"

	"github.com/afor-go/afor/transport/dds"
)

// The topics of ddsperf's default topic type, KS: DDSPerf, then R
// (reliable) or U (best effort), then Data, Ping or Pong, then KS.
const (
	TopicData = "DDSPerfRDataKS"
	TopicPing = "DDSPerfRPingKS"
	TopicPong = "DDSPerfRPongKS"
	// TypeName is the IDL type of the three topics:
	//
	//	@final struct KeyedSeq {
	//	  unsigned long seq;
	//	  @key unsigned long keyval;
	//	  sequence<octet> baggage;
	//	};
	TypeName = "KeyedSeq"
)

// topic returns the keyed DDS topic name of type [TypeName].
func topic(name string) dds.Topic { return dds.Topic{Name: name, TypeName: TypeName, Keyed: true} }

// FixedSize is the size ddsperf counts for a KeyedSeq besides its baggage
// (seq, keyval and the sequence's length). A sample of "size S" carries
// S-FixedSize bytes of baggage.
const FixedSize = 12

// MaxSize bounds the size of a sample this package builds or accepts.
const MaxSize = 64 << 20

// Errors.
var (
	// ErrBadSample reports a KeyedSeq payload that does not decode.
	ErrBadSample = errors.New("ddsperf: bad KeyedSeq sample")
	// ErrBadUserData reports participant USER_DATA that is not ddsperf's.
	ErrBadUserData = errors.New("ddsperf: not ddsperf's user data")
	// ErrUsage reports bad arguments.
	ErrUsage = errors.New("ddsperf: usage")
)

// encapsulation header of the samples this package writes: plain CDR,
// little endian (XCDR1; KeyedSeq is @final, so XCDR2 would be the same
// bytes under another header).
var encapLE = [4]byte{0x00, 0x01, 0x00, 0x00}

// Sample is a decoded KeyedSeq, its baggage left out.
type Sample struct {
	Seq, KeyVal uint32
	// Size is the sample's size as ddsperf counts it: FixedSize plus the
	// baggage.
	Size int
	// Len is the length of the serialized sample, encapsulation header
	// included, without trailing padding.
	Len int
}

// AppendSample appends a serialized KeyedSeq of size bytes (ddsperf's
// "size": at least FixedSize) with its encapsulation header to dst, the
// baggage filled with 0xee as ddsperf does.
func AppendSample(dst []byte, seq, keyval uint32, size int) []byte {
	size = max(size, FixedSize)
	n := size - FixedSize
	dst = append(dst, encapLE[:]...)
	dst = binary.LittleEndian.AppendUint32(dst, seq)
	dst = binary.LittleEndian.AppendUint32(dst, keyval)
	dst = binary.LittleEndian.AppendUint32(dst, uint32(n))
	start := len(dst)
	dst = append(dst, make([]byte, n)...)
	for i := range dst[start:] {
		dst[start+i] = 0xee
	}
	return dst
}

// SetSeq overwrites the sequence number of a sample built by AppendSample.
func SetSeq(b []byte, seq uint32) { binary.LittleEndian.PutUint32(b[4:], seq) }

// ParseSample decodes a serialized KeyedSeq (CDR or XCDR2 plain, either
// byte order; trailing padding allowed).
func ParseSample(b []byte) (Sample, error) {
	if len(b) < 4+FixedSize {
		return Sample{}, fmt.Errorf("%w: %d bytes", ErrBadSample, len(b))
	}
	var bo binary.ByteOrder
	switch {
	case b[0] == 0 && (b[1] == 0x01 || b[1] == 0x07):
		bo = binary.LittleEndian
	case b[0] == 0 && (b[1] == 0x00 || b[1] == 0x06):
		bo = binary.BigEndian
	default:
		return Sample{}, fmt.Errorf("%w: encapsulation %#02x%02x", ErrBadSample, b[0], b[1])
	}
	body := b[4:]
	n := bo.Uint32(body[8:])
	if uint64(n) > uint64(len(body)-FixedSize) || n > MaxSize {
		return Sample{}, fmt.Errorf("%w: baggage of %d bytes in %d", ErrBadSample, n, len(body))
	}
	return Sample{Seq: bo.Uint32(body), KeyVal: bo.Uint32(body[4:]), Size: FixedSize + int(n), Len: 4 + FixedSize + int(n)}, nil
}

// userDataMagic starts the USER_DATA of every ddsperf participant.
const userDataMagic = "DDSPerf:"

// UserData is the participant USER_DATA by which ddsperf processes find
// each other: "DDSPerf:R:PID:HOST" (no terminating NUL), R being 1 when
// the participant subscribes to the data topic.
func UserData(hasReader bool, pid int, host string) []byte {
	r := "0"
	if hasReader {
		r = "1"
	}
	return []byte(userDataMagic + r + ":" + strconv.Itoa(pid) + ":" + host)
}

// Peer is a ddsperf participant as its USER_DATA describes it.
type Peer struct {
	HasReader bool
	PID       int
	Host      string
}

// ParseUserData decodes ddsperf's participant USER_DATA.
func ParseUserData(b []byte) (Peer, error) {
	rest, ok := bytes.CutPrefix(b, []byte(userDataMagic))
	if !ok {
		return Peer{}, ErrBadUserData
	}
	r, rest, ok1 := bytes.Cut(rest, []byte(":"))
	pid, host, ok2 := bytes.Cut(rest, []byte(":"))
	if !ok1 || !ok2 {
		return Peer{}, ErrBadUserData
	}
	hr, err1 := strconv.Atoi(string(r))
	p, err2 := strconv.Atoi(string(pid))
	if err1 != nil || err2 != nil || bytes.IndexByte(host, 0) >= 0 {
		return Peer{}, ErrBadUserData
	}
	return Peer{HasReader: hr != 0, PID: p, Host: string(host)}, nil
}

// Partition is the partition in which a ddsperf participant reads its
// pongs, named after its GUID: four groups of four bytes in hex, joined
// by underscores. Every pong writer for that participant publishes there.
func Partition(g dds.GUID) string {
	const hexd = "0123456789abcdef"
	b := make([]byte, 0, 35)
	for i, c := range g {
		if i > 0 && i%4 == 0 {
			b = append(b, '_')
		}
		b = append(b, hexd[c>>4], hexd[c&15])
	}
	return string(b)
}
