package cli

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/afor-go/afor"
	"github.com/afor-go/afor/ros"
	"github.com/afor-go/afor/ros/dynmsg"
	"github.com/afor-go/afor/ros/idl"
)

func serviceCommands() []command {
	return []command{
		{"service list", "[-t]", "list the services", serviceList},
		{"service call", "NAME TYPE [VALUES]", "call a service with a request given as YAML", serviceCall},
		{"service type", "NAME", "print a service's type", serviceType},
	}
}

func serviceList(ctx context.Context, env *Env, args []string) error {
	return listCommand(ctx, env, args, "service", "List the services of the ROS graph.", true, (*ros.GraphSnapshot).Services)
}

func serviceType(ctx context.Context, env *Env, args []string) error {
	return typeCommand(ctx, env, args, "service", "NAME", "Print the type of the service NAME.", (*ros.Node).ResolveServiceName, (*ros.GraphSnapshot).Services)
}

// svcType is a service type: its raw type and its request and
// response types.
type svcType struct {
	raw      ros.RawServiceType
	req, res *dynmsg.Type
}

// serviceTypes resolves a service type ("std_srvs/srv/SetBool" or
// "std_srvs/SetBool") into its raw type and request and response types.
func serviceTypes(reg *idl.Registry, name string) (svcType, error) {
	name = longName(name, "srv")
	def, err := reg.Service(name)
	if err != nil {
		return svcType{}, fmt.Errorf("unknown service type %q: want a type such as std_srvs/srv/SetBool, from the shipped interfaces, AMENT_PREFIX_PATH or --interfaces DIR: %w", name, err)
	}
	req, res, err := dynmsg.ServiceTypes(reg, def.FullName())
	if err != nil {
		return svcType{}, err
	}
	hash, err := reg.TypeHash(def.FullName())
	if err != nil {
		return svcType{}, err
	}
	st := ros.RawServiceType{
		Service:  ros.RawType{Name: def.FullName(), Hash: hash},
		Request:  ros.RawType{Name: req.Name(), Hash: req.Hash()},
		Response: ros.RawType{Name: res.Name(), Hash: res.Hash()},
	}
	return svcType{raw: st, req: req, res: res}, nil
}

func serviceCall(ctx context.Context, env *Env, args []string) error {
	f := newFlags(env, "service call", "NAME TYPE [VALUES] [flags]", "Call the service NAME of TYPE with a request given as YAML (\"{data: true}\"), and print the response as `ros2 service call` does.")
	rf := f.ros(true)
	rate := f.Float64("rate", 0, "repeat the call at this rate in Hz (0: call once)")
	f.Float64Var(rate, "r", 0, "shorthand of --rate")
	pos, err := f.parse(args, 2, 3)
	if err != nil {
		return err
	}
	if *rate < 0 {
		return fmt.Errorf("%w: --rate %v: want a rate above 0 Hz", ErrUsage, *rate)
	}
	call, err := readRequest(rf, pos, serviceTypes, func(t svcType) *dynmsg.Type { return t.req })
	if err != nil {
		return err
	}
	req, res := call.typ.req, call.typ.res
	cn, err := rf.open(ctx)
	if err != nil {
		return err
	}
	defer cn.Close()
	cl, err := ros.NewRawClient(cn.node, pos[0], call.typ.raw)
	if err != nil {
		return err
	}
	if err := waitService(ctx, env, cl, rf.spinTime); err != nil {
		return err
	}
	reqRepr := req.FormatRepr(call.msg)
	var r *afor.Rate
	if *rate > 0 {
		if r, err = afor.NewRate(*rate); err != nil {
			return err
		}
		defer r.Close()
	}
	for {
		fmt.Fprintf(env.Stdout, "requester: making request: %s\n\n", reqRepr)
		reply, err := cl.Call(ctx, call.payload)
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return err
		}
		m, err := res.Decode(reply)
		if err != nil {
			return fmt.Errorf("the response does not decode as %s: %w", res.Name(), err)
		}
		fmt.Fprintf(env.Stdout, "response:\n%s\n\n", res.FormatRepr(m))
		if r == nil {
			return nil
		}
		if _, err := r.WaitForNext(ctx); err != nil {
			return nil
		}
	}
}

// waitService waits for a server, saying so when there is none after a
// moment, as ros2 service call does.
func waitService(ctx context.Context, env *Env, cl interface {
	WaitForServer(context.Context) error
}, grace time.Duration) error {
	wctx, cancel := context.WithTimeout(ctx, grace)
	err := cl.WaitForServer(wctx)
	cancel()
	if err == nil {
		return nil
	}
	if ctx.Err() != nil {
		return context.Cause(ctx)
	}
	if !errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	fmt.Fprintln(env.Stdout, "waiting for service to become available...")
	return cl.WaitForServer(ctx)
}
