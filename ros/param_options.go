package ros

import (
	"fmt"
	"io"
	"log/slog"
	"os"

	"github.com/afor-go/afor/ros/internal/names"
	"github.com/afor-go/afor/ros/msgs/rcl_interfaces"
)

// WithParameterServices turns the node's parameter services on (the
// default, as rclpy's start_parameter_services) or off: ~/list_parameters,
// ~/get_parameters, ~/get_parameter_types, ~/set_parameters,
// ~/set_parameters_atomically and ~/describe_parameters. A node option.
func WithParameterServices(on bool) Option {
	return func(o *options) { o.paramServices = &on }
}

// WithRosout turns the node's /rosout publisher on (the default, as rcl)
// or off. While on, the node's own logger also publishes its records there
// (see [Node.RosoutHandler]). A node option.
func WithRosout(on bool) Option { return func(o *options) { o.rosout = &on } }

// loadParamArgs reads the parameter options of a command line, in order:
// the files' overrides, then the "-p" ones, each later one overriding.
func loadParamArgs(args []names.ParamArg) ([]names.Override, error) {
	var out []names.Override
	for _, a := range args {
		if a.File == "" {
			out = append(out, a.Override)
			continue
		}
		data, err := readParamsFile(a.File)
		if err != nil {
			return nil, err
		}
		o, err := names.ParseParamsFile(a.File, data)
		if err != nil {
			return nil, fmt.Errorf("ros: %w", err)
		}
		out = append(out, o...)
	}
	return out, nil
}

func readParamsFile(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("ros: %w: %w", ErrInvalidParameters, err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, names.MaxParamsFileSize+1))
	if err != nil {
		return nil, fmt.Errorf("ros: %w: %s: %w", ErrInvalidParameters, path, err)
	}
	return data, nil
}

// startBuiltins creates what every rclpy node has, in rclpy's order so
// that entity ids line up: the /rosout publisher, the /parameter_events
// publisher, the parameter services; then the use_sim_time parameter and
// the type description service (type_description.go).
func (n *Node) startBuiltins(o options, base *slog.Logger) error {
	if o.rosout == nil || *o.rosout {
		if err := n.startRosout(); err != nil {
			return err
		}
		h := teeHandler{base.Handler().WithAttrs([]slog.Attr{slog.String("node", n.FullyQualifiedName())}), n.RosoutHandler(slog.LevelDebug)}
		n.logger = slog.New(h)
	}
	events, err := NewPublisher[rcl_interfaces.ParameterEvent](n, "/parameter_events", QoSParameterEvents)
	if err != nil {
		return err
	}
	n.params.mu.Lock()
	n.params.events = events
	n.params.mu.Unlock()
	if o.paramServices == nil || *o.paramServices {
		if err := n.startParameterServices(); err != nil {
			return err
		}
	}
	if err := n.startSimTime(); err != nil {
		return err
	}
	return n.startTypeDescriptionService()
}

// startSimTime declares use_sim_time (false unless overridden) and makes
// the clock follow it.
func (n *Node) startSimTime() error {
	n.params.mu.Lock()
	n.params.post = append(n.params.post, func(ps []Parameter) {
		for _, p := range ps {
			if p.Name != "use_sim_time" {
				continue
			}
			on, _ := p.Value.(bool)
			if err := n.clock.setSim(on); err != nil {
				n.logger.Warn("ros: use_sim_time", "err", err)
			}
		}
	})
	n.params.mu.Unlock()
	_, err := n.DeclareParameter("use_sim_time", false, ParamDescription("Follow /clock instead of the system clock."))
	return err
}
