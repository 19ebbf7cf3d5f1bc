package ros

import (
	"errors"
	"fmt"
	"sync/atomic"

	"github.com/afor-go/afor/ros/cdr"
	"github.com/afor-go/afor/ros/internal/rmw"
	"github.com/afor-go/afor/ros/msgs/rcl_interfaces"
)

// paramQueue bounds the parameter requests waiting for a node's parameter
// worker; a request beyond it gets an error reply.
const paramQueue = 64

// errParamBusy is the error reply to a parameter request that found the
// queue full.
var errParamBusy = errors.New("ros: parameter service busy")

// startParameterServices creates the six parameter services of the node,
// in rclpy's order (describe, get, get types, list, set, set atomically),
// and the goroutine that answers them, one request at a time.
func (n *Node) startParameterServices() error {
	jobs := make(chan func(), paramQueue)
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			select {
			case f := <-jobs:
				f()
			case <-stop:
				return
			}
		}
	}()
	var stopped atomic.Bool
	if _, err := n.track(func() error {
		if stopped.CompareAndSwap(false, true) {
			close(stop)
			<-done
		}
		return nil
	}); err != nil {
		close(stop)
		<-done
		return err
	}
	steps := []func() error{
		func() error {
			return serveParams(n, "~/describe_parameters", rcl_interfaces.DescribeParameters{}, jobs,
				func(r *rcl_interfaces.DescribeParametersRequest) rcl_interfaces.DescribeParametersResponse {
					return rcl_interfaces.DescribeParametersResponse{Descriptors: n.describeParameters(r.Names)}
				})
		},
		func() error {
			return serveParams(n, "~/get_parameters", rcl_interfaces.GetParameters{}, jobs,
				func(r *rcl_interfaces.GetParametersRequest) rcl_interfaces.GetParametersResponse {
					return rcl_interfaces.GetParametersResponse{Values: n.getParameters(r.Names)}
				})
		},
		func() error {
			return serveParams(n, "~/get_parameter_types", rcl_interfaces.GetParameterTypes{}, jobs,
				func(r *rcl_interfaces.GetParameterTypesRequest) rcl_interfaces.GetParameterTypesResponse {
					return rcl_interfaces.GetParameterTypesResponse{Types: n.getParameterTypes(r.Names)}
				})
		},
		func() error {
			return serveParams(n, "~/list_parameters", rcl_interfaces.ListParameters{}, jobs,
				func(r *rcl_interfaces.ListParametersRequest) rcl_interfaces.ListParametersResponse {
					return rcl_interfaces.ListParametersResponse{Result: n.listParameters(r.Prefixes, r.Depth)}
				})
		},
		func() error {
			return serveParams(n, "~/set_parameters", rcl_interfaces.SetParameters{}, jobs,
				func(r *rcl_interfaces.SetParametersRequest) rcl_interfaces.SetParametersResponse {
					res := rcl_interfaces.SetParametersResponse{Results: make([]rcl_interfaces.SetParametersResult, len(r.Parameters))}
					for i, p := range r.Parameters {
						res.Results[i] = setResult(n.setAtomically([]rcl_interfaces.Parameter{p}))
					}
					return res
				})
		},
		func() error {
			return serveParams(n, "~/set_parameters_atomically", rcl_interfaces.SetParametersAtomically{}, jobs,
				func(r *rcl_interfaces.SetParametersAtomicallyRequest) rcl_interfaces.SetParametersAtomicallyResponse {
					return rcl_interfaces.SetParametersAtomicallyResponse{Result: setResult(n.setAtomically(r.Parameters))}
				})
		},
	}
	for _, step := range steps {
		if err := step(); err != nil {
			return err
		}
	}
	return nil
}

func setResult(err error) rcl_interfaces.SetParametersResult {
	if err != nil {
		return rcl_interfaces.SetParametersResult{Reason: reasonOf(err)}
	}
	return rcl_interfaces.SetParametersResult{Successful: true}
}

// getParameters answers get_parameters as rclpy does: one value per name,
// or none at all when a name is not declared (so that `ros2 param get`
// reports it and fails).
func (n *Node) getParameters(names []string) []rcl_interfaces.ParameterValue {
	out := make([]rcl_interfaces.ParameterValue, len(names))
	n.params.mu.Lock()
	defer n.params.mu.Unlock()
	for i, name := range names {
		e, ok := n.params.declared[name]
		if !ok {
			return nil
		}
		out[i] = cloneValue(e.value)
	}
	return out
}

// getParameterTypes answers get_parameter_types as rclpy does: one type
// per name, or none at all when a name is not declared.
func (n *Node) getParameterTypes(names []string) []uint8 {
	out := make([]uint8, len(names))
	n.params.mu.Lock()
	defer n.params.mu.Unlock()
	for i, name := range names {
		e, ok := n.params.declared[name]
		if !ok {
			return nil
		}
		out[i] = e.value.Type
	}
	return out
}

// describeParameters answers describe_parameters as rclpy does: one
// descriptor per name, or none at all when a name is not declared.
func (n *Node) describeParameters(names []string) []rcl_interfaces.ParameterDescriptor {
	out := make([]rcl_interfaces.ParameterDescriptor, len(names))
	n.params.mu.Lock()
	defer n.params.mu.Unlock()
	for i, name := range names {
		e, ok := n.params.declared[name]
		if !ok {
			return nil
		}
		out[i] = cloneDescriptor(e.desc)
	}
	return out
}

// serveParams creates one parameter service whose requests are decoded on
// the middleware's goroutine and answered by the node's parameter worker.
func serveParams[Req, Res any, PReq interface {
	*Req
	cdr.Message
}, PRes interface {
	*Res
	cdr.Message
}](n *Node, name string, srv ServiceType[Req, Res, PReq, PRes], jobs chan<- func(), handle func(*Req) Res) error {
	full, err := n.ResolveServiceName(name)
	if err != nil {
		return err
	}
	var warned atomic.Bool
	rs, err := n.rn.CreateService(full, serviceType(srv), QoSParameters.rmw(), func(r rmw.Request) {
		req := new(Req)
		if err := PReq(req).UnmarshalCDR(r.Payload); err != nil {
			n.malformedInput("request", full, &warned, err)
			_ = r.Reply(nil, fmt.Errorf("ros: malformed request: %w", err))
			return
		}
		job := func() {
			res := handle(req)
			payload, err := PRes(&res).AppendCDR(nil)
			if err != nil {
				_ = r.Reply(nil, fmt.Errorf("ros: encoding the response: %w", err))
				return
			}
			_ = r.Reply(payload, nil)
		}
		select {
		case jobs <- job:
		default:
			_ = r.Reply(nil, errParamBusy)
		}
	})
	if err != nil {
		return fmt.Errorf("ros: service %s: %w", full, err)
	}
	if _, err := n.track(rs.Close); err != nil {
		_ = rs.Close()
		return err
	}
	n.types.addService(serviceType(srv)) // for the node's lifetime
	return nil
}
