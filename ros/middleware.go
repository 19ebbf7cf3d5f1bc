package ros

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"reflect"

	"github.com/afor-go/afor/ros/internal/rmw"
	"github.com/afor-go/afor/ros/internal/rmwdds"
	"github.com/afor-go/afor/ros/internal/rmwmem"
	"github.com/afor-go/afor/ros/internal/rmwzenoh"
	"github.com/afor-go/afor/transport/dds"
	"github.com/afor-go/afor/transport/zenoh"
)

// Middleware is the ROS middleware (rmw) a Context runs on: DDS with the
// conventions of rmw_fastrtps_cpp and rmw_cyclonedds_cpp ([DDS], ROS 2's
// default), Zenoh with rmw_zenoh_cpp's conventions ([Zenoh]), or a
// process-local one for tests ([Memory]). The zero Middleware picks one
// from RMW_IMPLEMENTATION, as ROS 2 does (see [WithMiddleware]).
type Middleware struct {
	name string
	open func(ctx context.Context, c openConfig) (rmw.Session, error)
}

// openConfig is what every middleware is opened with.
type openConfig struct {
	domainID int
	logger   *slog.Logger
}

// String returns the middleware's rmw name, such as "rmw_zenoh_cpp".
func (m Middleware) String() string {
	if m.name == "" {
		return "default (RMW_IMPLEMENTATION)"
	}
	return m.name
}

// Zenoh returns the rmw_zenoh_cpp middleware on a Zenoh session configured
// by cfg. The zero Config is configured as rmw_zenoh configures its
// session: from the JSON5 file ZENOH_SESSION_CONFIG_URI names if it is set
// (EnvZenohSessionConfig), else rmw_zenoh's default session (peer mode,
// connecting to a router on tcp/localhost:7447), with the overrides of
// ZENOH_CONFIG_OVERRIDE (EnvZenohConfigOverride) applied. A Config that is
// not zero is used as it is, whatever the environment says.
func Zenoh(cfg zenoh.Config) Middleware {
	return Middleware{name: "rmw_zenoh_cpp", open: func(ctx context.Context, c openConfig) (rmw.Session, error) {
		if reflect.ValueOf(cfg).IsZero() {
			env, err := zenohConfigFromEnv(os.Getenv)
			if err != nil {
				return nil, err
			}
			return openZenoh(ctx, env, c)
		}
		return openZenoh(ctx, cfg, c)
	}}
}

// openZenoh opens the rmw_zenoh middleware (ros/internal/rmwzenoh).
func openZenoh(ctx context.Context, cfg zenoh.Config, c openConfig) (rmw.Session, error) {
	s, err := rmwzenoh.Open(ctx, rmwzenoh.Config{Zenoh: cfg, DomainID: c.domainID, Logger: c.logger})
	if err != nil {
		return nil, err
	}
	return s, nil
}

// DDS returns the DDS middleware on a pure-Go DDS participant
// (transport/dds) configured by cfg, speaking what rmw_fastrtps_cpp (ROS
// 2's default) and rmw_cyclonedds_cpp speak: it interoperates with stock
// ROS 2 nodes on Fast DDS, and answers Cyclone DDS peers' services in
// their form. The zero Config joins the context's domain (WithDomainID,
// else ROS_DOMAIN_ID) with the discovery range and static peers of
// ROS_AUTOMATIC_DISCOVERY_RANGE and ROS_STATIC_PEERS; a cfg.DomainID other
// than zero, or cfg.ExactDomain, overrides the context's domain.
func DDS(cfg dds.Config) Middleware { return ddsNamed("rmw_fastrtps_cpp", cfg) }

// ddsNamed is the DDS middleware under an rmw name.
func ddsNamed(name string, cfg dds.Config) Middleware {
	return Middleware{name: name, open: func(ctx context.Context, c openConfig) (rmw.Session, error) {
		s, err := rmwdds.Open(ctx, rmwdds.Config{DDS: cfg, DomainID: c.domainID, Logger: c.logger})
		if err != nil {
			return nil, err
		}
		return s, nil
	}}
}

// MemoryNetwork is the medium of the [Memory] middleware: contexts opened
// on the same network see each other, as separate processes on one ROS 2
// network would. Create one with [NewMemoryNetwork].
type MemoryNetwork struct{ net *rmwmem.Network }

// NewMemoryNetwork returns an empty in-memory network.
func NewMemoryNetwork() *MemoryNetwork { return &MemoryNetwork{net: rmwmem.NewNetwork()} }

// Memory returns a process-local middleware on net, for tests and
// examples: publications reach matching subscriptions synchronously,
// services answer in process, and every context on net sees the same graph.
// The domain ID is ignored.
func Memory(net *MemoryNetwork) Middleware {
	return Middleware{name: "afor_memory", open: func(context.Context, openConfig) (rmw.Session, error) {
		return net.net.Open(), nil
	}}
}

// middlewareFromEnv maps RMW_IMPLEMENTATION to a middleware. Unset, it is
// DDS, as in ROS 2.
func middlewareFromEnv(rmwImpl string) (Middleware, error) {
	switch rmwImpl {
	case "", "rmw_fastrtps_cpp", "rmw_fastrtps_dynamic_cpp":
		return ddsNamed("rmw_fastrtps_cpp", dds.Config{}), nil
	case "rmw_cyclonedds_cpp":
		return ddsNamed("rmw_cyclonedds_cpp", dds.Config{}), nil
	case "rmw_zenoh_cpp":
		return Zenoh(zenoh.Config{}), nil
	case "rmw_connextdds":
		return Middleware{}, fmt.Errorf("%w: RMW_IMPLEMENTATION=%s (Connext's conventions are not implemented; use rmw_fastrtps_cpp)", ErrUnsupportedMiddleware, rmwImpl)
	}
	return Middleware{}, fmt.Errorf("%w: RMW_IMPLEMENTATION=%s", ErrUnsupportedMiddleware, rmwImpl)
}
