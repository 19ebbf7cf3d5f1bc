// Package cli implements the commands of the afor command-line tool: what
// `ros2 topic|node|service|action|param|lifecycle|interface|bag`, tf2's tools and the Zenoh examples
// (z_put, z_sub, z_get, z_liveliness, z_scout) do, in pure Go. Package main
// only wires it to the process (arguments, standard streams, signals), so
// the commands run in tests without building a binary.
package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"strings"

	"github.com/afor-go/afor/ros"
)

// Env is what the commands reach of the process.
type Env struct {
	Stdout io.Writer
	Stderr io.Writer
	// Getenv reads the environment (RMW_IMPLEMENTATION, ROS_DOMAIN_ID,
	// AMENT_PREFIX_PATH); nil reads none.
	Getenv func(string) string
	// ROSOptions are given to every ROS context the commands open, after
	// those of the flags: tests pass ros.WithMiddleware(ros.Memory(...)).
	ROSOptions []ros.Option
	// Logger receives the libraries' logs; nil discards them.
	Logger *slog.Logger
}

func (e *Env) getenv(k string) string {
	if e.Getenv == nil {
		return ""
	}
	return e.Getenv(k)
}

func (e *Env) logger() *slog.Logger {
	if e.Logger == nil {
		return slog.New(slog.DiscardHandler)
	}
	return e.Logger
}

// ErrUsage is matched by the errors for a malformed command line: an
// unknown command or flag, a missing or extra argument. Run prints the
// command's usage with them and returns 2.
var ErrUsage = errors.New("usage")

// command is one leaf command, such as "topic echo".
type command struct {
	name  string // "topic echo"
	args  string // "TOPIC [flags]"
	short string // one line
	run   func(ctx context.Context, env *Env, args []string) error
}

// commands lists every command, grouped by their first word.
func commands() []command {
	var cs []command
	cs = append(cs, topicCommands()...)
	cs = append(cs, nodeCommands()...)
	cs = append(cs, serviceCommands()...)
	cs = append(cs, actionCommands()...)
	cs = append(cs, paramCommands()...)
	cs = append(cs, lifecycleCommands()...)
	cs = append(cs, interfaceCommands()...)
	cs = append(cs, zenohCommands()...)
	cs = append(cs, tfCommands()...)
	cs = append(cs, bagCommands()...)
	return cs
}

// Run runs the command line args (without the program name) and returns
// the process's exit code: 0, 1 for a failure, 2 for a usage error. ctx
// ends long commands (echo, hz, sub...) cleanly: main cancels it on
// Ctrl-C.
func Run(ctx context.Context, env Env, args []string) int {
	err := run(ctx, &env, args)
	switch {
	case err == nil, errors.Is(err, flag.ErrHelp):
		return 0
	case errors.Is(err, ErrUsage):
		fmt.Fprintln(env.Stderr, "afor:", err)
		return 2
	default:
		fmt.Fprintln(env.Stderr, "afor:", err)
		return 1
	}
}

func run(ctx context.Context, env *Env, args []string) error {
	cs := commands()
	if len(args) == 0 {
		printUsage(env.Stderr, cs, "")
		return fmt.Errorf("%w: a command is needed", ErrUsage)
	}
	if args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		printUsage(env.Stdout, cs, "")
		return nil
	}
	group := args[0]
	if !slices.ContainsFunc(cs, func(c command) bool { return strings.HasPrefix(c.name, group+" ") }) {
		printUsage(env.Stderr, cs, "")
		return fmt.Errorf("%w: unknown command %q (want one of %s)", ErrUsage, group, strings.Join(groups(cs), ", "))
	}
	if len(args) == 1 {
		printUsage(env.Stderr, cs, group)
		return fmt.Errorf("%w: %s needs a subcommand", ErrUsage, group)
	}
	if args[1] == "-h" || args[1] == "--help" {
		printUsage(env.Stdout, cs, group)
		return nil
	}
	name := group + " " + args[1]
	i := slices.IndexFunc(cs, func(c command) bool { return c.name == name })
	if i < 0 {
		printUsage(env.Stderr, cs, group)
		return fmt.Errorf("%w: unknown command %q", ErrUsage, name)
	}
	return cs[i].run(ctx, env, args[2:])
}

func groups(cs []command) []string {
	var gs []string
	for _, c := range cs {
		g, _, _ := strings.Cut(c.name, " ")
		if !slices.Contains(gs, g) {
			gs = append(gs, g)
		}
	}
	return gs
}

func printUsage(w io.Writer, cs []command, group string) {
	fmt.Fprintln(w, "Usage: afor COMMAND SUBCOMMAND [ARGS] [flags]   (afor COMMAND SUBCOMMAND -h for its flags)")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "ROS 2 commands run over DDS (default) or Zenoh: --rmw or RMW_IMPLEMENTATION")
	fmt.Fprintln(w, "(rmw_fastrtps_cpp, rmw_cyclonedds_cpp, rmw_zenoh_cpp); the domain is ROS_DOMAIN_ID.")
	fmt.Fprintln(w)
	for _, c := range cs {
		if group != "" && !strings.HasPrefix(c.name, group+" ") {
			continue
		}
		fmt.Fprintf(w, "  %-40s %s\n", c.name+" "+c.args, c.short)
	}
}

// flags is a command's flag set and its usage line.
type flags struct {
	*flag.FlagSet
	name, args, short string
	env               *Env
}

func newFlags(env *Env, name, args, short string) *flags {
	fs := flag.NewFlagSet("afor "+name, flag.ContinueOnError)
	f := &flags{FlagSet: fs, name: name, args: args, short: short, env: env}
	// The flag package prints nothing itself: a usage error is printed
	// once, by Run, and the usage once, to stdout for -h, else to stderr.
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	return f
}

// usage prints the command's usage and flags to w.
func (f *flags) usage(w io.Writer) {
	fmt.Fprintf(w, "Usage: afor %s %s\n\n%s\n\nFlags:\n", f.name, f.args, f.short)
	f.SetOutput(w)
	f.PrintDefaults()
	f.SetOutput(io.Discard)
}

// parse parses args with flags anywhere among the positional arguments,
// as ros2's argparse does ("topic echo /chatter --once"), and checks that
// there are between min and max positional arguments (max < 0: any).
func (f *flags) parse(args []string, min, max int) ([]string, error) {
	var pos []string
	for {
		if err := f.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				f.usage(f.env.Stdout)
				return nil, err
			}
			f.usage(f.env.Stderr)
			return nil, fmt.Errorf("%w: %s", ErrUsage, err)
		}
		rest := f.Args()
		if len(rest) == 0 {
			break
		}
		// A "--" ends the flags: everything after it is positional.
		if n := len(args) - len(rest); n > 0 && args[n-1] == "--" {
			pos = append(pos, rest...)
			break
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
	if len(pos) < min || (max >= 0 && len(pos) > max) {
		f.usage(f.env.Stderr)
		want := fmt.Sprintf("%d", min)
		switch {
		case max < 0:
			want = fmt.Sprintf("at least %d", min)
		case max != min:
			want = fmt.Sprintf("%d to %d", min, max)
		}
		return nil, fmt.Errorf("%w: afor %s takes %s argument(s) (%s), got %d", ErrUsage, f.name, want, f.args, len(pos))
	}
	return pos, nil
}
