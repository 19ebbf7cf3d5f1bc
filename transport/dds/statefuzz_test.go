package dds

import (
	"encoding/binary"
	"net/netip"
	"testing"
	"time"

	"github.com/afor-go/afor/transport/dds/internal/rtps"
)

// FuzzReaderStateMachine drives a reliable reader's state for one writer
// with a sequence of DATA, DATA_FRAG, HEARTBEAT and GAP submessages
// decoded from the input, and checks its invariants after each: nothing
// held beyond the limits, counters back to zero once the writer is
// unmatched, delivery in increasing sequence order.
func FuzzReaderStateMachine(f *testing.F) {
	f.Add([]byte{0, 1, 0, 0, 0, 0, 0, 0, 0, 1, 2, 0, 0, 0, 0, 0, 0, 0, 3, 0, 5})
	f.Add([]byte{1, 5, 0, 0, 0, 0, 0, 0, 0, 1, 0, 4, 0, 0, 0, 0, 0, 0, 0, 1, 3, 2, 0, 0, 0, 0, 0, 0, 0, 9, 0, 0, 0, 0, 0, 0, 0, 10})
	f.Add([]byte{3, 1, 0, 0, 0, 0, 0, 0, 0, 0x40, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0xff, 0xff, 0xff, 0xff})
	p := newTestParticipant(f, Config{DomainID: nextDomain(), ExactDomain: true, Range: RangeOff,
		Limits: Limits{MaxPendingBytesPerWriter: 4096, MaxPendingBytes: 8192, MaxReassemblyBytesPerWriter: 4096, MaxReassemblyBytes: 8192}})
	f.Fuzz(func(t *testing.T, in []byte) {
		var last rtps.SequenceNumber
		r := newReader(p, rtps.NewUserEntityID(1, rtps.KindReaderNoKey), legitTopic, mustQoS(QoS{Reliability: Reliable, History: KeepAll, MaxSamples: 64}), false, func(s *inSample) {
			if s.sn <= last {
				t.Fatalf("delivered SN %d after %d", s.sn, last)
			}
			last = s.sn
		})
		g := rtps.GUID{Prefix: rtps.GuidPrefix{9}, Entity: rtps.NewUserEntityID(1, rtps.KindWriterNoKey)}
		r.addProxy(g, []netip.AddrPort{netip.MustParseAddrPort("127.0.0.1:9")}, true, Automatic, 0)
		c := &rtps.Context{SourcePrefix: g.Prefix}
		for len(in) >= 10 {
			op, sn := in[0]%4, rtps.SequenceNumber(binary.BigEndian.Uint64(in[1:9]))&(1<<62-1)
			arg := in[9]
			in = in[10:]
			switch op {
			case 0:
				r.onData(g, c, &rtps.Data{WriterID: g.Entity, SN: sn, Payload: make([]byte, int(arg)*16)})
			case 1:
				r.onDataFrag(g, c, &rtps.DataFrag{WriterID: g.Entity, SN: sn, FragStart: uint32(arg%8) + 1, FragsInSubmsg: 1,
					FragSize: 512, SampleSize: uint32(arg)*64 + 1, Payload: make([]byte, 512)})
			case 2:
				r.onHeartbeat(g, &rtps.Heartbeat{WriterID: g.Entity, First: sn, Last: sn + rtps.SequenceNumber(arg) - 1, Count: uint32(arg) << 24})
			case 3:
				r.onGap(g, &rtps.Gap{WriterID: g.Entity, Start: sn, List: rtps.SNSet{Base: sn + rtps.SequenceNumber(arg)}})
			}
			r.mu.Lock()
			wp := r.proxies[g]
			if wp.pendingBytes < 0 || wp.pendingBytes > 4096 || wp.reasmBytes < 0 || wp.reasmBytes > 4096 || len(wp.frags) > maxReassemblies {
				t.Fatalf("held %d pending bytes, %d reassembly bytes in %d reassemblies", wp.pendingBytes, wp.reasmBytes, len(wp.frags))
			}
			r.mu.Unlock()
		}
		r.close()
		if pb, rb := p.stats.pendingBytes.Load(), p.reasmBytes.Load(); pb != 0 || rb != 0 {
			t.Fatalf("after close: %d pending bytes, %d reassembly bytes counted", pb, rb)
		}
	})
}

// FuzzWriterStateMachine drives a reliable writer's state for one reader
// with writes, ACKNACKs and NACK_FRAGs decoded from the input, and checks
// that what it resends stays within the reader's credit and that its
// acknowledgment state never goes back.
func FuzzWriterStateMachine(f *testing.F) {
	f.Add([]byte{0, 0, 0, 0, 0, 0, 0, 0, 1, 5, 1, 0, 0, 0, 0, 0, 0, 0, 1, 0xff})
	f.Add([]byte{0, 0, 0, 0, 0, 0, 0, 0, 0, 200, 2, 0, 0, 0, 0, 0, 0, 0, 1, 3, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0})
	p := newTestParticipant(f, Config{DomainID: nextDomain(), ExactDomain: true, Range: RangeOff})
	f.Fuzz(func(t *testing.T, in []byte) {
		w := newWriter(p, rtps.NewUserEntityID(2, rtps.KindWriterNoKey), victimTopic, mustQoS(QoS{Reliability: Reliable, History: KeepLast, Depth: 16}), false)
		g := rtps.GUID{Prefix: rtps.GuidPrefix{7}, Entity: rtps.NewUserEntityID(1, rtps.KindReaderNoKey)}
		// A reader on a port nobody listens on.
		w.addProxy(g, []netip.AddrPort{netip.MustParseAddrPort("127.0.0.1:9")}, true, false, false)
		sent0 := p.stats.sent.Load()
		writes := 0
		var acked rtps.SequenceNumber
		count := uint32(0)
		ops := 0
		for len(in) >= 10 {
			ops++
			op, sn := in[0]%3, rtps.SequenceNumber(binary.BigEndian.Uint64(in[1:9]))&(1<<62-1)
			arg := in[9]
			in = in[10:]
			count += uint32(arg)
			switch op {
			case 0:
				for range int(arg%8) + 1 {
					_ = w.Write(t.Context(), make([]byte, int(arg)*300))
					writes++
				}
			case 1:
				set := rtps.SNSet{Base: sn}
				for i := range rtps.SequenceNumber(arg) {
					set.Set(sn + i)
				}
				w.onAckNack(g, &rtps.AckNack{ReaderID: g.Entity, WriterID: w.guid.Entity, State: set, Count: count})
			case 2:
				var fs rtps.FNSet
				fs.Base = 1
				for i := range uint32(arg % 64) {
					fs.Set(1 + i)
				}
				w.onNackFrag(g, &rtps.NackFrag{ReaderID: g.Entity, WriterID: w.guid.Entity, SN: sn, State: fs, Count: count})
			}
			w.mu.Lock()
			pr := w.proxy(g)
			if pr.acked < acked {
				t.Fatalf("acknowledged SN went back from %d to %d", acked, pr.acked)
			}
			acked = pr.acked
			if pr.acked > w.lastSN+1 {
				t.Fatalf("acknowledged %d beyond the last SN %d", pr.acked, w.lastSN)
			}
			w.mu.Unlock()
		}
		// Each write sends its sample (fragments included) and a
		// HEARTBEAT at most; beyond that only the credit, one HEARTBEAT
		// and one GAP datagram per ACKNACK or NACK_FRAG.
		msgs := uint64(ops + 64)
		limit := uint64(writes*2) + resendCreditInit + resendCreditMax/8 + 3*msgs
		if sent := p.stats.sent.Load() - sent0; sent > limit+uint64(time.Second/heartbeatPeriod) {
			t.Fatalf("%d datagrams sent for %d writes, want at most %d", sent, writes, limit)
		}
		w.Close()
	})
}

func mustQoS(q QoS) QoS {
	q, err := q.resolve()
	if err != nil {
		panic(err)
	}
	return q
}
