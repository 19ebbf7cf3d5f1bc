package scenario

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"

	"github.com/afor-go/afor"
	"github.com/afor-go/afor/ros"
	"github.com/afor-go/afor/transport/dds"
)

// The ROS 2 over DDS transports run the echo through package ros on its
// DDS middleware (ros.DDS, rmw_fastrtps_cpp's conventions) in mode afor:
// ros.NewPublisher and ros.Subscribe, whose afor.Sub is consumed by a
// ListenReliable loop and a Listener. Their native mode is the DDS
// underneath, on the same topics ("rt/<namespace>/hello"), with the same
// type name, QoS (ROS's default profile: reliable, volatile, keep last 10,
// the typehash USER_DATA) and CDR payloads: a dds.Writer and a
// dds.NewReaderFunc callback, run in the participant's receive goroutine.
// So afor/native is what the ROS layer and afor cost over the DDS they run
// on. As the dds transports, they discover over unicast on 127.0.0.1
// (dds.RangeLocalhost), each link in a random domain of its own.

// rosDDSType is the DDS type of a Msg over ROS 2 (std_msgs/UInt8MultiArray).
const rosDDSType = "std_msgs::msg::dds_::UInt8MultiArray_"

// ROSDDS is ROS 2 over DDS within one ROS context (one DDS participant):
// sides A and B are two nodes of it (native: one bare participant), as
// rclpy's echo in one process has one participant ([Rclpy1PModes]). Its
// floor is [FloorChan], as ros-zenoh's: whether the participant hands its
// samples to its own readers in memory or through its UDP sockets on
// 127.0.0.1 is transport/dds's business, and shows in afor/floor.
func ROSDDS() Transport {
	return Transport{Name: "ros-dds", Floor: FloorChan, Scenarios: []string{"echo"}, OpenMode: openROSDDSLocal}
}

// ROSDDSUDP is ROS 2 over DDS between two ROS contexts (two DDS
// participants) of this process, over UDP on 127.0.0.1. Its floor is
// [FloorUDP].
func ROSDDSUDP() Transport {
	return Transport{Name: "ros-dds-udp", Floor: FloorUDP, Scenarios: []string{"echo"}, OpenMode: openROSDDS}
}

// ROSDDSProc is ROS 2 over DDS between this process and a child process
// (see [RunChild]): the child is the echo's side B, a ROS node (afor) or a
// bare DDS participant (native). Its reference is [FloorDDSPerf], and its
// Python comparison rclpy's own echo between two processes on Fast DDS
// ([PythonRclpy]).
func ROSDDSProc() Transport {
	return Transport{Name: "ros-dds-proc", Floor: FloorDDSPerf, Python: PythonRclpy, Scenarios: []string{"echo"}, OpenMode: openROSDDSProc}
}

// rosDDSConfig is the DDS configuration of every ROS over DDS end:
// LOCALHOST discovery in domain, the environment ignored.
func rosDDSConfig(domain int) dds.Config {
	return dds.Config{
		DomainID: domain, ExactDomain: true, Range: dds.RangeLocalhost,
		Getenv: func(string) string { return "" },
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
	}
}

// openROSDDSNode opens a ROS context on DDS in domain with one node.
func openROSDDSNode(ctx context.Context, domain int, name, ns string) (*ros.Context, *ros.Node, error) {
	rc, err := ros.Open(ctx, ros.WithMiddleware(ros.DDS(rosDDSConfig(domain))), ros.WithDomainID(domain),
		ros.WithLogger(slog.New(slog.DiscardHandler)))
	if err != nil {
		return nil, nil, err
	}
	n, err := rc.NewNode(name, ros.WithNamespace(ns))
	if err != nil {
		return nil, nil, errors.Join(err, rc.Close())
	}
	return rc, n, nil
}

// rosDDSEnd opens one side of a ROS over DDS link in mode: a ROS node
// (afor) or a bare participant (native).
func rosDDSEnd(ctx context.Context, mode Mode, domain int, name, ns string, size int) (Peer, func() error, error) {
	if mode == ModeNative {
		p, err := dds.NewParticipant(ctx, rosDDSConfig(domain))
		if err != nil {
			return Peer{}, nil, err
		}
		return rosDDSNativePeer(p, ns, size), p.Close, nil
	}
	rc, n, err := openROSDDSNode(ctx, domain, name, ns)
	if err != nil {
		return Peer{}, nil, err
	}
	return rosPeer(n, size), rc.Close, nil
}

// openROSDDSLocal opens one ROS context with two nodes (mode afor) or one
// bare participant (native), in a random domain.
func openROSDDSLocal(ctx context.Context, mode Mode, size int) (*Link, error) {
	d := ddsDomainBase + rand.IntN(ddsDomains)
	ns := rosNamespace()
	if mode == ModeNative {
		p, err := dds.NewParticipant(ctx, rosDDSConfig(d))
		if err != nil {
			return nil, err
		}
		peer := rosDDSNativePeer(p, ns, size)
		return &Link{A: peer, B: peer, Close: p.Close}, nil
	}
	rc, a, err := openROSDDSNode(ctx, d, "bench_a", ns)
	if err != nil {
		return nil, err
	}
	b, err := rc.NewNode("bench_b", ros.WithNamespace(ns))
	if err != nil {
		return nil, errors.Join(err, rc.Close())
	}
	return &Link{A: rosPeer(a, size), B: rosPeer(b, size), Close: rc.Close}, nil
}

// openROSDDS opens two ROS contexts (afor) or two bare participants
// (native) in a random domain.
func openROSDDS(ctx context.Context, mode Mode, size int) (*Link, error) {
	d := ddsDomainBase + rand.IntN(ddsDomains)
	ns := rosNamespace()
	b, closeB, err := rosDDSEnd(ctx, mode, d, "bench_b", ns, size)
	if err != nil {
		return nil, err
	}
	a, closeA, err := rosDDSEnd(ctx, mode, d, "bench_a", ns, size)
	if err != nil {
		return nil, errors.Join(err, closeB())
	}
	return &Link{A: a, B: b, Close: func() error { return errors.Join(closeA(), closeB()) }}, nil
}

func openROSDDSProc(ctx context.Context, mode Mode, size int) (*Link, error) {
	d := ddsDomainBase + rand.IntN(ddsDomains)
	ns := rosNamespace()
	a, closeA, err := rosDDSEnd(ctx, mode, d, "bench_a", ns, size)
	if err != nil {
		return nil, err
	}
	return &Link{
		A: a,
		EchoB: func(ctx context.Context, mode Mode) (func() error, error) {
			return startChild(ctx, childConfig{Role: roleEcho, ROSDDS: true, Domain: d, Prefix: ns, Mode: mode, Size: size})
		},
		Close: closeA,
	}, nil
}

// runROSDDSChild is a ros-dds-proc child: the echo's side B in cfg.Mode on
// domain cfg.Domain and namespace cfg.Prefix, until stdin ends.
func runROSDDSChild(cfg childConfig, stdin io.Reader, stdout io.Writer) error {
	if cfg.Role == "pipeline" {
		return runPipelineNode(cfg, stdin, stdout)
	}
	if cfg.Role != roleEcho {
		return fmt.Errorf("%w: ros-dds child role %q", ErrBadConfig, cfg.Role)
	}
	ctx, cancel := context.WithTimeout(context.Background(), childTimeout)
	defer cancel()
	p, closeP, err := rosDDSEnd(ctx, cfg.Mode, cfg.Domain, "bench_b", cfg.Prefix, cfg.Size)
	if err != nil {
		return err
	}
	stop, err := EchoResponder(ctx, p, cfg.Mode)
	if err != nil {
		return errors.Join(err, closeP())
	}
	fmt.Fprintln(stdout, childReady)
	_, _ = io.Copy(io.Discard, stdin) // the parent closes stdin to stop us
	return errors.Join(stop(), closeP())
}

// rosDDSTopic is the DDS topic of the ROS topic key under namespace ns.
func rosDDSTopic(ns, key string) dds.Topic {
	return dds.Topic{Name: "rt" + ns + "/" + key, TypeName: rosDDSType}
}

// rosDDSQoS is ROS's default profile as the DDS middleware announces it.
func rosDDSQoS() dds.QoS {
	return dds.QoS{Reliability: dds.Reliable, Durability: dds.Volatile, History: dds.KeepLast, Depth: 10,
		UserData: []byte("typehash=" + (*Msg).TypeHash(nil) + ";")}
}

// rosDDSNativePeer is a side of mode native: a bare DDS participant on the
// topics, type, QoS and payloads of the ROS side.
func rosDDSNativePeer(p *dds.Participant, ns string, size int) Peer {
	return Peer{
		Publisher: func(ctx context.Context, key string) (func(context.Context, Msg) error, error) {
			w, err := dds.NewWriter(p, rosDDSTopic(ns, key), rosDDSQoS())
			if err != nil {
				return nil, err
			}
			wctx, cancel := context.WithTimeout(ctx, matchTimeout)
			defer cancel()
			if err := w.WaitMatched(wctx, 1); err != nil {
				w.Close()
				return nil, fmt.Errorf("dds: %s: no reader matched: %w", key, err)
			}
			buf, err := (&Msg{Body: padding(size)}).AppendCDR(nil)
			if err != nil {
				w.Close()
				return nil, err
			}
			return func(ctx context.Context, m Msg) error {
				putHeader(buf[rosHeaderOffset:], m) // Write copies what it keeps
				return w.Write(ctx, buf)
			}, nil
		},
		Callback: func(key string, f func(Msg)) (func(), error) {
			r, err := dds.NewReaderFunc(p, rosDDSTopic(ns, key), rosDDSQoS(), func(s dds.Sample) {
				var m Msg
				if err := m.UnmarshalCDR(s.Payload); err != nil {
					m = Msg{Seq: badSeq}
				}
				f(m)
			})
			if err != nil {
				return nil, err
			}
			return func() { _ = r.Close() }, nil
		},
		Subscribe: func(string, ...afor.Option) (*afor.Sub[Msg], error) {
			return nil, fmt.Errorf("%w: the native DDS side has no afor.Sub", ErrUnsupported)
		},
	}
}
