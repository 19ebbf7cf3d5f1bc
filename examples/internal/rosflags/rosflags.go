// Package rosflags holds what the ROS 2 examples share on their command
// line: the split at "--ros-args", and the flags that choose the
// middleware (RMW_IMPLEMENTATION by default, as for any ROS 2 node, or a
// Zenoh session when -mode, -listen or -connect is given).
package rosflags

import (
	"flag"
	"fmt"
	"slices"
	"strings"

	"github.com/afor-go/afor/ros"
	"github.com/afor-go/afor/transport/zenoh"
)

// SplitROSArgs splits a command line at the first "--ros-args": what is
// before it are the program's flags, the rest is for ros.WithArgs.
func SplitROSArgs(args []string) (flags, rosArgs []string) {
	if i := slices.Index(args, "--ros-args"); i >= 0 {
		return args[:i], args[i:]
	}
	return args, nil
}

// Middleware holds the middleware flags of one flag set.
type Middleware struct {
	fs                    *flag.FlagSet
	mode, listen, connect *string
}

// Register defines -mode, -listen and -connect on fs.
func Register(fs *flag.FlagSet) *Middleware {
	return &Middleware{
		fs:      fs,
		mode:    fs.String("mode", "peer", "Zenoh mode: peer, or client (of a router); selects Zenoh"),
		listen:  fs.String("listen", "", "comma-separated Zenoh endpoints to listen on, e.g. tcp/127.0.0.1:7448 (port 0 picks one); selects Zenoh"),
		connect: fs.String("connect", "", "comma-separated Zenoh endpoints to connect to (default: rmw_zenoh's router, tcp/localhost:7447); selects Zenoh"),
	}
}

// Middleware returns, after the flag set was parsed, Zenoh with the
// session the flags describe when any of them was given, else the zero
// ros.Middleware: the one RMW_IMPLEMENTATION names (DDS when it is unset,
// rmw_zenoh's default session for rmw_zenoh_cpp). An endpoint given to
// connect to that cannot be reached is an error, not a warning: the
// program would otherwise wait for its peer in vain.
func (m *Middleware) Middleware() (ros.Middleware, error) {
	given := false
	m.fs.Visit(func(f *flag.Flag) {
		switch f.Name {
		case "mode", "listen", "connect":
			given = true
		}
	})
	if !given {
		return ros.Middleware{}, nil
	}
	cfg := zenoh.Config{Listen: split(*m.listen), Connect: split(*m.connect), ConnectExitOnFailure: *m.connect != ""}
	switch *m.mode {
	case "peer":
	case "client":
		cfg.Mode = zenoh.ModeClient
	default:
		return ros.Middleware{}, fmt.Errorf("unknown -mode %q (want peer or client)", *m.mode)
	}
	return ros.Zenoh(cfg), nil
}

func split(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, ",")
}
