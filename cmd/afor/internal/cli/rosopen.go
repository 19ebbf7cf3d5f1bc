package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/afor-go/afor/ros"
	"github.com/afor-go/afor/ros/dynmsg"
	"github.com/afor-go/afor/ros/idl"
	"github.com/afor-go/afor/transport/dds"
	"github.com/afor-go/afor/transport/zenoh"
)

// defaultSpinTime is how long the listing commands wait for discovery, as
// ros2cli's --spin-time.
const defaultSpinTime = 500 * time.Millisecond

// rosFlags are the flags of every ROS command.
type rosFlags struct {
	env        *Env
	rmw        string
	spinTime   time.Duration
	interfaces stringsFlag
}

// stringsFlag is a flag that can be given several times.
type stringsFlag []string

func (s *stringsFlag) String() string     { return strings.Join(*s, ",") }
func (s *stringsFlag) Set(v string) error { *s = append(*s, v); return nil }

// ros adds the ROS flags to f; types adds --interfaces.
func (f *flags) ros(types bool) *rosFlags {
	r := &rosFlags{env: f.env}
	f.StringVar(&r.rmw, "rmw", "", "middleware: rmw_fastrtps_cpp, rmw_cyclonedds_cpp (DDS) or rmw_zenoh_cpp (default: RMW_IMPLEMENTATION, else DDS)")
	f.DurationVar(&r.spinTime, "spin-time", defaultSpinTime, "how long to wait for discovery")
	if types {
		f.Var(&r.interfaces, "interfaces", "a folder of interface packages (<pkg>/msg/*.msg, srv, action), searched before AMENT_PREFIX_PATH and the shipped ones; repeatable")
	}
	return r
}

// middleware returns the middleware named by --rmw or RMW_IMPLEMENTATION.
func (r *rosFlags) middleware() (ros.Middleware, error) {
	name := r.rmw
	if name == "" {
		name = r.env.getenv("RMW_IMPLEMENTATION")
	}
	switch name {
	case "", "rmw_fastrtps_cpp", "rmw_fastrtps_dynamic_cpp", "rmw_cyclonedds_cpp", "dds":
		return ros.DDS(dds.Config{Getenv: r.env.getenv}), nil
	case "rmw_zenoh_cpp", "zenoh":
		return ros.Zenoh(zenoh.Config{}), nil
	}
	return ros.Middleware{}, fmt.Errorf("unknown middleware %q: want rmw_fastrtps_cpp, rmw_cyclonedds_cpp or rmw_zenoh_cpp", name)
}

// cliNode is the hidden node a command runs as, and its context.
type cliNode struct {
	ctx  *ros.Context
	node *ros.Node
}

func (c *cliNode) Close() { _ = c.ctx.Close() }

// open opens a context and a hidden node ("_afor_cli_<pid>", without
// parameter services or /rosout, as ros2cli's node) for the command.
func (r *rosFlags) open(ctx context.Context) (*cliNode, error) {
	opts := []ros.Option{ros.WithLogger(r.env.logger())}
	if r.env.ROSOptions == nil {
		mw, err := r.middleware()
		if err != nil {
			return nil, err
		}
		opts = append(opts, ros.WithMiddleware(mw))
	}
	if d := strings.TrimSpace(r.env.getenv("ROS_DOMAIN_ID")); d != "" {
		id, err := strconv.Atoi(d)
		if err != nil {
			return nil, fmt.Errorf("ROS_DOMAIN_ID=%q is not a number", d)
		}
		opts = append(opts, ros.WithDomainID(id))
	}
	opts = append(opts, r.env.ROSOptions...)
	rc, err := ros.Open(ctx, opts...)
	if err != nil {
		return nil, err
	}
	n, err := rc.NewNode("_afor_cli_"+strconv.Itoa(os.Getpid()), ros.WithParameterServices(false), ros.WithRosout(false))
	if err != nil {
		_ = rc.Close()
		return nil, err
	}
	return &cliNode{ctx: rc, node: n}, nil
}

// spin waits for discovery: the spin time, or less if ctx ends.
func (r *rosFlags) spin(ctx context.Context) error {
	t := time.NewTimer(r.spinTime)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return context.Cause(ctx)
	}
}

// registry loads the interface types: --interfaces folders, then
// AMENT_PREFIX_PATH's share folders, then the shipped ones. Unreadable
// files of a ROS install are warnings; of an --interfaces folder, errors.
func (r *rosFlags) registry() (*idl.Registry, error) {
	for _, dir := range r.interfaces {
		if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
			return nil, fmt.Errorf("--interfaces %s: not a folder of interface packages (<pkg>/msg/*.msg, srv, action)", dir)
		}
	}
	dirs := append([]string(nil), r.interfaces...)
	if p := r.env.getenv("AMENT_PREFIX_PATH"); p != "" {
		dirs = append(dirs, dynmsg.AmentDirs(p)...)
	}
	reg, err := dynmsg.NewRegistry(dirs...)
	if err != nil && reg == nil {
		return nil, err
	}
	if err != nil {
		fmt.Fprintf(r.env.Stderr, "warning: some interface files were not loaded: %v\n", err)
	}
	return reg, nil
}

// messageType resolves a message type name ("std_msgs/msg/String" or
// "std_msgs/String") with a clear error.
func messageType(reg *idl.Registry, name string) (*dynmsg.Type, error) {
	t, err := dynmsg.NewType(reg, name)
	if err != nil {
		if errors.Is(err, dynmsg.ErrUnknownType) {
			return nil, fmt.Errorf("unknown message type %q: want a type such as std_msgs/msg/String, from the shipped interfaces, AMENT_PREFIX_PATH or --interfaces DIR (afor interface list shows them): %w", name, err)
		}
		return nil, fmt.Errorf("message type %q: %w", name, err)
	}
	return t, nil
}

// parseValues parses VALUES (the YAML of ros2 topic pub) as a message of t.
func parseValues(t *dynmsg.Type, values string) (dynmsg.Message, error) {
	if strings.TrimSpace(values) == "" {
		return t.Zero(), nil
	}
	m, err := t.ParseYAML(values)
	if err != nil {
		return nil, fmt.Errorf("malformed VALUES %q for %s: %w (want YAML such as \"{%s}\")", values, t.Name(), err, exampleValues(t))
	}
	return m, nil
}

// exampleValues returns a VALUES example of t, its fields with their zero
// values, for error messages.
func exampleValues(t *dynmsg.Type) string {
	var parts []string
	for _, f := range t.Fields() {
		parts = append(parts, f+": ...")
		if len(parts) == 3 {
			break
		}
	}
	return strings.Join(parts, ", ")
}

// hidden reports whether a ROS name has a token starting with "_", which
// the ros2 tools hide unless asked.
func hidden(name string) bool {
	for tok := range strings.SplitSeq(name, "/") {
		if strings.HasPrefix(tok, "_") {
			return true
		}
	}
	return false
}
