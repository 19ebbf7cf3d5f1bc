package ros

import (
	"context"
	"fmt"
	"strings"

	"github.com/afor-go/afor"
	"github.com/afor-go/afor/ros/msgs/rcl_interfaces"
)

// ParameterClient reads and changes another node's parameters through its
// parameter services, as rclpy's AsyncParameterClient and ros2 param do.
// Create one with [NewParameterClient]; it lives as long as its node.
type ParameterClient struct {
	target   string
	list     *afor.Client[rcl_interfaces.ListParametersRequest, rcl_interfaces.ListParametersResponse]
	get      *afor.Client[rcl_interfaces.GetParametersRequest, rcl_interfaces.GetParametersResponse]
	types    *afor.Client[rcl_interfaces.GetParameterTypesRequest, rcl_interfaces.GetParameterTypesResponse]
	set      *afor.Client[rcl_interfaces.SetParametersRequest, rcl_interfaces.SetParametersResponse]
	atomic   *afor.Client[rcl_interfaces.SetParametersAtomicallyRequest, rcl_interfaces.SetParametersAtomicallyResponse]
	describe *afor.Client[rcl_interfaces.DescribeParametersRequest, rcl_interfaces.DescribeParametersResponse]
}

// NewParameterClient creates, on node n, a client of the parameters of the
// node named target: a fully qualified name ("/other_node",
// "/ns/other_node") or one relative to n's namespace.
//
//	pc, err := ros.NewParameterClient(node, "/camera")
//	if err := pc.WaitReady(ctx); err != nil { ... }
//	values, err := pc.Get(ctx, "exposure")
func NewParameterClient(n *Node, target string) (*ParameterClient, error) {
	target = strings.TrimSuffix(target, "/")
	full, err := n.ResolveServiceName(target)
	if err != nil {
		return nil, err
	}
	c := &ParameterClient{target: full}
	name := func(s string) string { return full + "/" + s }
	if c.list, err = NewClient(n, name("list_parameters"), rcl_interfaces.ListParameters{}); err != nil {
		return nil, err
	}
	if c.get, err = NewClient(n, name("get_parameters"), rcl_interfaces.GetParameters{}); err != nil {
		return nil, err
	}
	if c.types, err = NewClient(n, name("get_parameter_types"), rcl_interfaces.GetParameterTypes{}); err != nil {
		return nil, err
	}
	if c.set, err = NewClient(n, name("set_parameters"), rcl_interfaces.SetParameters{}); err != nil {
		return nil, err
	}
	if c.atomic, err = NewClient(n, name("set_parameters_atomically"), rcl_interfaces.SetParametersAtomically{}); err != nil {
		return nil, err
	}
	if c.describe, err = NewClient(n, name("describe_parameters"), rcl_interfaces.DescribeParameters{}); err != nil {
		return nil, err
	}
	return c, nil
}

// Target returns the fully qualified name of the node whose parameters
// the client reaches.
func (c *ParameterClient) Target() string { return c.target }

// WaitReady waits until the target's parameter services are in the graph.
func (c *ParameterClient) WaitReady(ctx context.Context) error {
	for _, w := range []interface{ WaitForServer(context.Context) error }{c.list, c.get, c.types, c.set, c.atomic, c.describe} {
		if err := w.WaitForServer(ctx); err != nil {
			return fmt.Errorf("ros: parameters of %s: %w", c.target, err)
		}
	}
	return nil
}

// List lists the target's parameter names under prefixes (all with none),
// at most depth dots below them (0: any depth), and their parent prefixes,
// as the list_parameters service answers.
func (c *ParameterClient) List(ctx context.Context, prefixes []string, depth uint64) (names, parents []string, err error) {
	res, err := c.list.Call(ctx, rcl_interfaces.ListParametersRequest{Prefixes: prefixes, Depth: depth})
	if err != nil {
		return nil, nil, fmt.Errorf("ros: list parameters of %s: %w", c.target, err)
	}
	return res.Result.Names, res.Result.Prefixes, nil
}

// Get returns the values of the named parameters as Go values (see
// [Parameter]), nil for a parameter that is not set. A reply of the wrong
// length (rclpy answers none when a name is unknown) is an error matching
// ErrParameterNotDeclared.
func (c *ParameterClient) Get(ctx context.Context, names ...string) ([]any, error) {
	res, err := c.get.Call(ctx, rcl_interfaces.GetParametersRequest{Names: names})
	if err != nil {
		return nil, fmt.Errorf("ros: get parameters of %s: %w", c.target, err)
	}
	if len(res.Values) != len(names) {
		return nil, fmt.Errorf("ros: get parameters of %s: %w: %d values for %d names", c.target, ErrParameterNotDeclared, len(res.Values), len(names))
	}
	out := make([]any, len(res.Values))
	for i, v := range res.Values {
		out[i] = ParameterValueToGo(v)
	}
	return out, nil
}

// Types returns the types of the named parameters (ParameterNotSet for
// one that is not set).
func (c *ParameterClient) Types(ctx context.Context, names ...string) ([]ParameterType, error) {
	res, err := c.types.Call(ctx, rcl_interfaces.GetParameterTypesRequest{Names: names})
	if err != nil {
		return nil, fmt.Errorf("ros: get parameter types of %s: %w", c.target, err)
	}
	if len(res.Types) != len(names) {
		return nil, fmt.Errorf("ros: get parameter types of %s: %w: %d types for %d names", c.target, ErrParameterNotDeclared, len(res.Types), len(names))
	}
	out := make([]ParameterType, len(res.Types))
	for i, t := range res.Types {
		out[i] = ParameterType(t)
	}
	return out, nil
}

// Describe returns the descriptors of the named parameters, or an error
// matching ErrParameterNotDeclared when one of them is not declared.
func (c *ParameterClient) Describe(ctx context.Context, names ...string) ([]rcl_interfaces.ParameterDescriptor, error) {
	res, err := c.describe.Call(ctx, rcl_interfaces.DescribeParametersRequest{Names: names})
	if err != nil {
		return nil, fmt.Errorf("ros: describe parameters of %s: %w", c.target, err)
	}
	if len(res.Descriptors) != len(names) {
		return nil, fmt.Errorf("ros: describe parameters of %s: %w: %d descriptors for %d names", c.target, ErrParameterNotDeclared, len(res.Descriptors), len(names))
	}
	return res.Descriptors, nil
}

// Set sets the parameters one by one: results has one entry per
// parameter, nil or an error matching ErrParameterRejected whose text ends
// with the target's reason. err is for the call itself.
func (c *ParameterClient) Set(ctx context.Context, params ...Parameter) (results []error, err error) {
	msgs, err := parameterMsgs(params)
	if err != nil {
		return nil, err
	}
	res, err := c.set.Call(ctx, rcl_interfaces.SetParametersRequest{Parameters: msgs})
	if err != nil {
		return nil, fmt.Errorf("ros: set parameters of %s: %w", c.target, err)
	}
	if len(res.Results) != len(params) {
		return nil, fmt.Errorf("ros: set parameters of %s: %d results for %d parameters", c.target, len(res.Results), len(params))
	}
	results = make([]error, len(params))
	for i, r := range res.Results {
		if !r.Successful {
			results[i] = paramErr(ErrParameterRejected, "%s", r.Reason)
		}
	}
	return results, nil
}

// SetAtomically sets all the parameters or none: a refusal is an error
// matching ErrParameterRejected with the target's reason.
func (c *ParameterClient) SetAtomically(ctx context.Context, params ...Parameter) error {
	msgs, err := parameterMsgs(params)
	if err != nil {
		return err
	}
	res, err := c.atomic.Call(ctx, rcl_interfaces.SetParametersAtomicallyRequest{Parameters: msgs})
	if err != nil {
		return fmt.Errorf("ros: set parameters of %s: %w", c.target, err)
	}
	if !res.Result.Successful {
		return paramErr(ErrParameterRejected, "%s", res.Result.Reason)
	}
	return nil
}

func parameterMsgs(params []Parameter) ([]rcl_interfaces.Parameter, error) {
	msgs := make([]rcl_interfaces.Parameter, len(params))
	for i, p := range params {
		pv, err := ParameterValueOf(p.Value)
		if err != nil {
			return nil, fmt.Errorf("ros: parameter %q: %w", p.Name, err)
		}
		msgs[i] = rcl_interfaces.Parameter{Name: p.Name, Value: pv}
	}
	return msgs, nil
}
