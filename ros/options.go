package ros

import (
	"io/fs"
	"log/slog"
)

// MaxDomainID is the largest ROS domain ID (rcl's limit, from the DDS port
// arithmetic).
const MaxDomainID = 232

// Option configures a [Context] (through [Open] or [NewNode]) or a [Node].
type Option func(*options)

type options struct {
	domainID   *int
	middleware *Middleware
	enclave    string
	namespace  string
	args       []string
	argsSet    bool
	logger     *slog.Logger
	// Node built-ins (param_options.go): nil is the default, on.
	paramServices *bool
	rosout        *bool
	// interfaces are WithInterfaces's (type_description.go).
	interfaces []fs.FS
	// contextOnly lists the context options given, for Context.NewNode
	// to refuse them.
	contextOnly []string
}

// WithDomainID sets the ROS domain ID, 0 to MaxDomainID. The default is
// ROS_DOMAIN_ID, or 0 when it is unset. A context option.
func WithDomainID(id int) Option {
	return func(o *options) { o.domainID = &id; o.contextOnly = append(o.contextOnly, "WithDomainID") }
}

// WithMiddleware sets the middleware. The default follows
// RMW_IMPLEMENTATION as ROS 2 does: unset, "rmw_fastrtps_cpp" or
// "rmw_cyclonedds_cpp" is [DDS] (ROS 2's default), "rmw_zenoh_cpp" is
// [Zenoh] with rmw_zenoh's default session; any other name gives an error
// matching ErrUnsupportedMiddleware. A context option.
func WithMiddleware(m Middleware) Option {
	return func(o *options) { o.middleware = &m; o.contextOnly = append(o.contextOnly, "WithMiddleware") }
}

// WithEnclave sets the security enclave of the context's nodes ("/" by
// default; "--enclave" in WithArgs overrides it). A context option.
func WithEnclave(enclave string) Option {
	return func(o *options) { o.enclave = enclave; o.contextOnly = append(o.contextOnly, "WithEnclave") }
}

// WithNamespace sets a node's namespace ("/" by default). A relative
// namespace ("robot1") is made absolute. A node option ("__ns:=" remapping
// rules override it).
func WithNamespace(ns string) Option { return func(o *options) { o.namespace = ns } }

// WithArgs gives the command-line arguments (os.Args[1:]) whose
// "--ros-args ... [--]" sections configure ROS, as rcl reads them:
// remapping rules ("-r from:=to", "--remap", "node:from:=to", "__ns:=",
// "__node:=", "__name:="), "--enclave", parameter overrides ("-p
// [node:]name:=value", "--params-file FILE", read when the context or node
// is made; see [Node.DeclareParameter]); logging options are accepted and
// ignored; an unknown ROS argument is an error matching ErrInvalidArgs, a
// malformed override or parameters file one matching ErrInvalidParameters. Given to [Open] (or [NewNode]), the rules apply to every
// node of the context; given to [Context.NewNode], to that node, before
// the context's.
func WithArgs(args []string) Option {
	return func(o *options) { o.args = append(o.args, args...); o.argsSet = true }
}

// WithLogger sets the logger (default [slog.Default]).
func WithLogger(l *slog.Logger) Option { return func(o *options) { o.logger = l } }

func collect(opts []Option) options {
	var o options
	for _, f := range opts {
		f(&o)
	}
	return o
}
