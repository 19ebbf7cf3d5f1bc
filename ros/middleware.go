package ros

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/afor-go/afor/ros/internal/rmw"
	"github.com/afor-go/afor/ros/internal/rmwmem"
	"github.com/afor-go/afor/ros/internal/rmwzenoh"
	"github.com/afor-go/afor/transport/zenoh"
)

// Middleware is the ROS middleware (rmw) a Context runs on: Zenoh with
// rmw_zenoh_cpp's conventions ([Zenoh]), or a process-local one for tests
// ([Memory]). DDS is planned. The zero Middleware picks one from
// RMW_IMPLEMENTATION, as ROS 2 does (see [WithMiddleware]).
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
// by cfg. The zero Config is rmw_zenoh's default session: peer mode,
// connecting to a router on tcp/localhost:7447.
func Zenoh(cfg zenoh.Config) Middleware {
	return Middleware{name: "rmw_zenoh_cpp", open: func(ctx context.Context, c openConfig) (rmw.Session, error) {
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
// Zenoh for now: DDS, ROS 2's default, is not built yet.
func middlewareFromEnv(rmwImpl string) (Middleware, error) {
	switch rmwImpl {
	case "", "rmw_zenoh_cpp":
		return Zenoh(zenoh.Config{}), nil
	case "rmw_fastrtps_cpp", "rmw_fastrtps_dynamic_cpp", "rmw_cyclonedds_cpp", "rmw_connextdds":
		return Middleware{}, fmt.Errorf("%w: RMW_IMPLEMENTATION=%s (DDS is not available yet; use rmw_zenoh_cpp)", ErrUnsupportedMiddleware, rmwImpl)
	}
	return Middleware{}, fmt.Errorf("%w: RMW_IMPLEMENTATION=%s", ErrUnsupportedMiddleware, rmwImpl)
}
