package dds

import (
	"fmt"
	"time"
)

// Limits bound what remote participants can make a participant hold or
// do. The zero value of each field means its default (the Default*
// constants); a negative value is an error. Each limit is named after its
// field in Stats.ByLimit and in the log line that reports a hit.
type Limits struct {
	// MaxParticipants bounds the remote participants known at once.
	// Default 256. Known participants are never evicted for a new one:
	// past the limit, new ones are refused until some leave or expire.
	MaxParticipants int
	// MaxParticipantsPerSource bounds the participants announced from one
	// source socket (address and UDP port of the SPDP datagrams). One
	// process sends from its own socket, usually one participant per
	// socket, so this stops one process announcing thousands without
	// touching the other processes of the host: all the local ROS nodes
	// of a robot come from 127.0.0.1 (or the host's own address), and a
	// limit per address would let one bad local process lock them all
	// out. Default 16.
	MaxParticipantsPerSource int
	// MaxParticipantsPerHost bounds the participants announced from one
	// remote IPv4 address (not this host's own addresses nor loopback,
	// see MaxParticipantsPerSource). Default 120, the participant indices
	// the standard port mapping gives one host in a domain.
	MaxParticipantsPerHost int
	// MaxLease clamps the lease a remote participant announces: one that
	// announces a longer (or infinite) lease is dropped after MaxLease
	// without a message from it. Default 5 minutes.
	MaxLease time.Duration
	// MaxEndpointsPerParticipant bounds the writers and readers one
	// remote participant announces (a ROS 2 node has about 16 of its
	// own). Past it the participant is dropped. Default 2048.
	MaxEndpointsPerParticipant int
	// MaxEndpoints bounds the remote writers and readers known in total.
	// Past it the participant announcing a new one is dropped. Default
	// 16384.
	MaxEndpoints int
	// MaxDiscoveryBytesPerParticipant bounds the discovery data (SPDP and
	// SEDP samples, counted by their serialized size) held for one
	// remote participant, and the SEDP samples held out of order from
	// it. Past it the participant is dropped. Default 4 MiB.
	MaxDiscoveryBytesPerParticipant int
	// MaxDiscoveryBytes bounds the discovery data held for all remote
	// participants. Default 64 MiB.
	MaxDiscoveryBytes int
	// MaxPendingBytesPerWriter bounds the payload bytes a reader holds
	// out of order for one remote writer (samples that wait for an
	// earlier one). Past it, samples are dropped: a reliable writer
	// resends them. Default 32 MiB.
	MaxPendingBytesPerWriter int
	// MaxPendingBytes bounds the payload bytes held out of order for all
	// remote writers of the participant. Default 128 MiB.
	MaxPendingBytes int
	// MaxReassemblyBytesPerWriter bounds the bytes of the fragmented
	// samples being reassembled from one remote writer, allocated as
	// fragments arrive. Default twice Config.MaxSampleSize.
	MaxReassemblyBytesPerWriter int
	// MaxReassemblyBytes bounds the bytes of all reassemblies in
	// progress. Default four times Config.MaxSampleSize.
	MaxReassemblyBytes int
	// IgnoreFor is how long a participant (or a source socket) dropped for
	// a limit is ignored. Default 1 minute.
	IgnoreFor time.Duration
}

// Defaults of Limits.
const (
	DefaultMaxRemoteParticipants           = 256
	DefaultMaxParticipantsPerSource        = 16
	DefaultMaxParticipantsPerHost          = 120
	DefaultMaxLease                        = 5 * time.Minute
	DefaultMaxEndpointsPerParticipant      = 2048
	DefaultMaxEndpoints                    = 16384
	DefaultMaxDiscoveryBytesPerParticipant = 4 << 20
	DefaultMaxDiscoveryBytes               = 64 << 20
	DefaultMaxPendingBytesPerWriter        = 32 << 20
	DefaultMaxPendingBytes                 = 128 << 20
	DefaultIgnoreFor                       = time.Minute
)

// Names of the limits in Stats.ByLimit and in the log, one per field of
// Limits, and two for what the reliable protocol refuses.
const (
	LimitParticipants                 = "MaxParticipants"
	LimitParticipantsPerSource        = "MaxParticipantsPerSource"
	LimitParticipantsPerHost          = "MaxParticipantsPerHost"
	LimitLease                        = "MaxLease"
	LimitEndpointsPerParticipant      = "MaxEndpointsPerParticipant"
	LimitEndpoints                    = "MaxEndpoints"
	LimitDiscoveryBytesPerParticipant = "MaxDiscoveryBytesPerParticipant"
	LimitDiscoveryBytes               = "MaxDiscoveryBytes"
	LimitPendingBytesPerWriter        = "MaxPendingBytesPerWriter"
	LimitPendingBytes                 = "MaxPendingBytes"
	LimitReassemblyBytesPerWriter     = "MaxReassemblyBytesPerWriter"
	LimitReassemblyBytes              = "MaxReassemblyBytes"
	// LimitResendBudget counts resends a reader asked for beyond its
	// budget (see the package documentation): they were not sent.
	LimitResendBudget = "ResendBudget"
	// LimitImplausible counts HEARTBEATs, GAPs and samples ignored
	// because they would move a writer's stream far beyond what it
	// announced.
	LimitImplausible = "Implausible"
)

// resolve checks l and fills in the defaults.
func (l Limits) resolve(maxSample int) (Limits, error) {
	ints := []struct {
		v   *int
		def int
		n   string
	}{
		{&l.MaxParticipants, DefaultMaxRemoteParticipants, LimitParticipants},
		{&l.MaxParticipantsPerSource, DefaultMaxParticipantsPerSource, LimitParticipantsPerSource},
		{&l.MaxParticipantsPerHost, DefaultMaxParticipantsPerHost, LimitParticipantsPerHost},
		{&l.MaxEndpointsPerParticipant, DefaultMaxEndpointsPerParticipant, LimitEndpointsPerParticipant},
		{&l.MaxEndpoints, DefaultMaxEndpoints, LimitEndpoints},
		{&l.MaxDiscoveryBytesPerParticipant, DefaultMaxDiscoveryBytesPerParticipant, LimitDiscoveryBytesPerParticipant},
		{&l.MaxDiscoveryBytes, DefaultMaxDiscoveryBytes, LimitDiscoveryBytes},
		{&l.MaxPendingBytesPerWriter, DefaultMaxPendingBytesPerWriter, LimitPendingBytesPerWriter},
		{&l.MaxPendingBytes, DefaultMaxPendingBytes, LimitPendingBytes},
		{&l.MaxReassemblyBytesPerWriter, 2 * maxSample, LimitReassemblyBytesPerWriter},
		{&l.MaxReassemblyBytes, 4 * maxSample, LimitReassemblyBytes},
	}
	for _, f := range ints {
		switch {
		case *f.v == 0:
			*f.v = f.def
		case *f.v < 0:
			return l, fmt.Errorf("%w: negative Limits.%s", ErrInvalidConfig, f.n)
		}
	}
	for _, d := range []struct {
		v   *time.Duration
		def time.Duration
		n   string
	}{{&l.MaxLease, DefaultMaxLease, LimitLease}, {&l.IgnoreFor, DefaultIgnoreFor, "IgnoreFor"}} {
		switch {
		case *d.v == 0:
			*d.v = d.def
		case *d.v < 0:
			return l, fmt.Errorf("%w: negative Limits.%s", ErrInvalidConfig, d.n)
		}
	}
	return l, nil
}
