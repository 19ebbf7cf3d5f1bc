package rmwdds

import (
	"errors"
	"testing"
	"time"

	"github.com/afor-go/afor/ros/internal/rmw"
	"github.com/afor-go/afor/transport/dds"
)

// The ROS 2 profiles of dds-rtps.md §5.3.
var (
	qosDefault  = rmw.QoS{History: rmw.HistoryKeepLast, Depth: 10, Reliability: rmw.ReliabilityReliable, Durability: rmw.DurabilityVolatile}
	qosSensor   = rmw.QoS{History: rmw.HistoryKeepLast, Depth: 5, Reliability: rmw.ReliabilityBestEffort, Durability: rmw.DurabilityVolatile}
	qosParams   = rmw.QoS{History: rmw.HistoryKeepLast, Depth: 1000, Reliability: rmw.ReliabilityReliable, Durability: rmw.DurabilityVolatile}
	qosRosout   = rmw.QoS{History: rmw.HistoryKeepLast, Depth: 1000, Reliability: rmw.ReliabilityReliable, Durability: rmw.DurabilityTransientLocal, Lifespan: 10 * time.Second}
	qosStatus   = rmw.QoS{History: rmw.HistoryKeepLast, Depth: 1, Reliability: rmw.ReliabilityReliable, Durability: rmw.DurabilityTransientLocal}
	qosClock    = rmw.QoS{History: rmw.HistoryKeepLast, Depth: 1, Reliability: rmw.ReliabilityBestEffort, Durability: rmw.DurabilityVolatile}
	qosKeepAll  = rmw.QoS{History: rmw.HistoryKeepAll, Reliability: rmw.ReliabilityReliable}
	qosDeadline = rmw.QoS{History: rmw.HistoryKeepLast, Depth: 7, Deadline: 250 * time.Millisecond,
		Liveliness: rmw.LivelinessManualByTopic, LivelinessLease: 2 * time.Second}
)

func TestDDSQoS(t *testing.T) {
	cases := []struct {
		name string
		q    rmw.QoS
		want dds.QoS
	}{
		{"default", qosDefault, dds.QoS{Reliability: dds.Reliable, Durability: dds.Volatile, History: dds.KeepLast, Depth: 10}},
		{"sensor_data", qosSensor, dds.QoS{Reliability: dds.BestEffort, Durability: dds.Volatile, History: dds.KeepLast, Depth: 5}},
		{"parameters", qosParams, dds.QoS{Reliability: dds.Reliable, History: dds.KeepLast, Depth: 1000}},
		{"rosout", qosRosout, dds.QoS{Reliability: dds.Reliable, Durability: dds.TransientLocal, History: dds.KeepLast, Depth: 1000, Lifespan: 10 * time.Second}},
		{"action status", qosStatus, dds.QoS{Reliability: dds.Reliable, Durability: dds.TransientLocal, History: dds.KeepLast, Depth: 1}},
		{"clock", qosClock, dds.QoS{Reliability: dds.BestEffort, History: dds.KeepLast, Depth: 1}},
		{"keep all", qosKeepAll, dds.QoS{Reliability: dds.Reliable, History: dds.KeepAll}},
		{"system defaults", rmw.QoS{}, dds.QoS{Reliability: dds.Reliable, Durability: dds.Volatile, History: dds.KeepLast, Depth: 1}},
		{"deadline and liveliness", qosDeadline, dds.QoS{History: dds.KeepLast, Depth: 7, Deadline: 250 * time.Millisecond,
			Liveliness: dds.ManualByTopic, LivelinessLease: 2 * time.Second}},
	}
	for _, c := range cases {
		got, err := DDSQoS(c.q, hashString)
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		c.want.MaxBlocking = MaxBlocking
		if string(got.UserData) != "typehash="+hashString+";" {
			t.Errorf("%s: USER_DATA %q", c.name, got.UserData)
		}
		got.UserData = nil
		if !equalQoS(got, c.want) {
			t.Errorf("%s: DDSQoS = %+v, want %+v", c.name, got, c.want)
		}
	}
	if got, err := DDSQoS(qosDefault, ""); err != nil || got.UserData != nil {
		t.Errorf("no hash: %q, %v", got.UserData, err)
	}
}

func equalQoS(a, b dds.QoS) bool {
	return a.Reliability == b.Reliability && a.Durability == b.Durability && a.History == b.History &&
		a.Depth == b.Depth && a.MaxSamples == b.MaxSamples && a.MaxBlocking == b.MaxBlocking &&
		a.Deadline == b.Deadline && a.Lifespan == b.Lifespan && a.Liveliness == b.Liveliness &&
		a.LivelinessLease == b.LivelinessLease && string(a.UserData) == string(b.UserData) && len(a.Partition) == len(b.Partition)
}

func TestDDSQoSInvalid(t *testing.T) {
	for _, q := range []rmw.QoS{
		{Reliability: 3}, {Durability: 3}, {History: 3}, {Liveliness: 2}, {Liveliness: 4},
		{Depth: -1}, {Deadline: -time.Second}, {Lifespan: -1}, {LivelinessLease: -1},
	} {
		if _, err := DDSQoS(q, ""); !errors.Is(err, ErrInvalid) {
			t.Errorf("DDSQoS(%+v): %v, want ErrInvalid", q, err)
		}
	}
	if _, err := DDSQoS(qosDefault, "RIHS01_x"); !errors.Is(err, ErrInvalid) {
		t.Errorf("bad hash: %v", err)
	}
}

func TestROSQoS(t *testing.T) {
	// A profile goes to DDS and back unchanged, system defaults resolved,
	// when HISTORY is announced (Cyclone, afor).
	for _, q := range []rmw.QoS{qosDefault, qosSensor, qosParams, qosRosout, qosStatus, qosClock, qosKeepAll, qosDeadline} {
		d, err := DDSQoS(q, "")
		if err != nil {
			t.Fatal(err)
		}
		want := q
		if want.Durability == rmw.DurabilitySystemDefault {
			want.Durability = rmw.DurabilityVolatile
		}
		if want.Reliability == rmw.ReliabilitySystemDefault {
			want.Reliability = rmw.ReliabilityReliable
		}
		if want.Liveliness == rmw.LivelinessSystemDefault {
			want.Liveliness = rmw.LivelinessAutomatic
		}
		if got := ROSQoS(d, true); got != want {
			t.Errorf("ROSQoS(DDSQoS(%+v)) = %+v", q, got)
		}
		// Fast DDS announces no HISTORY: history and depth unknown.
		want.History, want.Depth = rmw.HistorySystemDefault, 0
		if got := ROSQoS(d, false); got != want {
			t.Errorf("ROSQoS(DDSQoS(%+v), no history) = %+v", q, got)
		}
	}
	// Infinite durations (DDS's 0x7fffffff seconds, however a transport
	// spells them) are rmw's zero.
	inf := dds.QoS{Deadline: 1<<63 - 1, Lifespan: (1<<31 - 1) * time.Second, LivelinessLease: 1<<31*time.Second + 5,
		Liveliness: dds.ManualByParticipant}
	got := ROSQoS(inf, false)
	if got.Deadline != 0 || got.Lifespan != 0 || got.LivelinessLease != 0 || got.Liveliness != 2 {
		t.Errorf("ROSQoS(infinite) = %+v", got)
	}
}

func TestDiscoveryInfoQoS(t *testing.T) {
	w, r := DiscoveryInfoWriterQoS(), DiscoveryInfoReaderQoS()
	if w.Reliability != dds.Reliable || w.Durability != dds.TransientLocal || w.History != dds.KeepLast || w.Depth != 1 {
		t.Errorf("writer QoS %+v", w)
	}
	if r.Reliability != dds.Reliable || r.Durability != dds.TransientLocal || r.History != dds.KeepAll {
		t.Errorf("reader QoS %+v", r)
	}
	for _, q := range []dds.QoS{w, r} {
		if h, err := ParseTypeHash(q.UserData); err != nil || h != DiscoveryInfoTypeHash {
			t.Errorf("USER_DATA %q", q.UserData)
		}
	}
	if tp := DiscoveryInfoTopic(); tp.Name != "ros_discovery_info" || tp.TypeName != "rmw_dds_common::msg::dds_::ParticipantEntitiesInfo_" {
		t.Errorf("topic %+v", tp)
	}
}
