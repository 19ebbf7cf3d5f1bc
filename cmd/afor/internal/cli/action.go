package cli

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/afor-go/afor/ros"
	"github.com/afor-go/afor/ros/dynmsg"
	"github.com/afor-go/afor/ros/idl"
)

func actionCommands() []command {
	return []command{
		{"action list", "[-t]", "list the actions", actionList},
		{"action send_goal", "NAME TYPE VALUES", "send a goal given as YAML and print its result", actionSendGoal},
	}
}

func actionList(ctx context.Context, env *Env, args []string) error {
	return listCommand(ctx, env, args, "action", "List the actions of the ROS graph (with a server or a client).", false, func(g *ros.GraphSnapshot) map[string][]string {
		all := actionsOf(g.Endpoints, ros.KindServer)
		for name, types := range actionsOf(g.Endpoints, ros.KindClient) {
			for _, t := range types {
				if !slices.Contains(all[name], t) {
					all[name] = append(all[name], t)
				}
			}
		}
		return all
	})
}

// actType is an action type: what a raw action client needs and the
// dynmsg types of its parts.
type actType struct {
	raw   ros.RawActionType
	parts dynmsg.ActionParts
}

// actionType resolves an action type ("example_interfaces/action/Fibonacci"
// or "example_interfaces/Fibonacci").
func actionType(reg *idl.Registry, name string) (actType, error) {
	name = longName(name, "action")
	def, err := reg.Action(name)
	if err != nil {
		return actType{}, fmt.Errorf("unknown action type %q: want a type such as example_interfaces/action/Fibonacci, from the shipped interfaces, AMENT_PREFIX_PATH or --interfaces DIR: %w", name, err)
	}
	parts, err := dynmsg.ActionTypes(reg, def.FullName())
	if err != nil {
		return actType{}, err
	}
	full := def.FullName()
	hashes := map[string]string{}
	for _, n := range []string{full, full + "_SendGoal", full + "_GetResult"} {
		if hashes[n], err = reg.TypeHash(n); err != nil {
			return actType{}, err
		}
	}
	raw := func(t *dynmsg.Type) ros.RawType { return ros.RawType{Name: t.Name(), Hash: t.Hash()} }
	t := ros.RawActionType{
		Action: ros.RawType{Name: full, Hash: hashes[full]},
		SendGoal: ros.RawServiceType{Service: ros.RawType{Name: full + "_SendGoal", Hash: hashes[full+"_SendGoal"]},
			Request: raw(parts.SendGoalRequest), Response: raw(parts.SendGoalResponse)},
		GetResult: ros.RawServiceType{Service: ros.RawType{Name: full + "_GetResult", Hash: hashes[full+"_GetResult"]},
			Request: raw(parts.GetResultRequest), Response: raw(parts.GetResultResponse)},
		FeedbackMessage: raw(parts.FeedbackMessage),
	}
	return actType{raw: t, parts: parts}, nil
}

// statusName spells a goal status as ros2 action send_goal does.
func statusName(s ros.GoalStatus) string {
	switch s {
	case ros.StatusAccepted:
		return "ACCEPTED"
	case ros.StatusExecuting:
		return "EXECUTING"
	case ros.StatusCanceling:
		return "CANCELING"
	case ros.StatusSucceeded:
		return "SUCCEEDED"
	case ros.StatusCanceled:
		return "CANCELED"
	case ros.StatusAborted:
		return "ABORTED"
	}
	return "UNKNOWN"
}

func actionSendGoal(ctx context.Context, env *Env, args []string) error {
	f := newFlags(env, "action send_goal", "NAME TYPE VALUES [--feedback]", "Send a goal (YAML, as \"{order: 5}\") to the action NAME of TYPE, and print the result as `ros2 action send_goal` does. Ctrl-C cancels the goal.")
	rf := f.ros(true)
	feedback := f.Bool("feedback", false, "print the feedback")
	f.BoolVar(feedback, "f", false, "shorthand of --feedback")
	pos, err := f.parse(args, 2, 3)
	if err != nil {
		return err
	}
	req, err := readRequest(rf, pos, actionType, func(t actType) *dynmsg.Type { return t.parts.Goal })
	if err != nil {
		return err
	}
	parts, goal := req.typ.parts, req.msg
	cn, err := rf.open(ctx)
	if err != nil {
		return err
	}
	defer cn.Close()
	client, err := ros.NewRawActionClient(cn.node, pos[0], req.typ.raw)
	if err != nil {
		return err
	}
	w := env.Stdout
	fmt.Fprintln(w, "Waiting for an action server to become available...")
	if err := client.WaitForServer(ctx); err != nil {
		if ctx.Err() != nil {
			return nil
		}
		return err
	}
	fmt.Fprintf(w, "Sending goal:\n     %s\n", parts.Goal.FormatYAML(goal, dynmsg.FormatOptions{}))
	h, err := client.SendGoal(ctx, ros.RawPayload(req.payload))
	if errors.Is(err, ros.ErrGoalRejected) {
		fmt.Fprintln(w, "Goal was rejected.")
		return nil
	}
	if err != nil {
		if ctx.Err() != nil {
			return nil
		}
		return err
	}
	id := h.ID()
	fmt.Fprintf(w, "Goal accepted with ID: %s\n\n", hex.EncodeToString(id[:]))
	fbDone := make(chan struct{})
	go func() {
		defer close(fbDone)
		if !*feedback {
			return
		}
		for fb := range h.Feedback().ListenReliable(context.WithoutCancel(ctx)) {
			m, err := parts.Feedback.Decode(fb)
			if err != nil {
				fmt.Fprintf(env.Stderr, "warning: feedback that does not decode as %s, skipped: %v\n", parts.Feedback.Name(), err)
				continue
			}
			fmt.Fprintf(w, "Feedback:\n    %s\n", parts.Feedback.FormatYAML(m, dynmsg.FormatOptions{}))
		}
	}()
	status, res, err := h.Result(ctx)
	if err != nil {
		if ctx.Err() != nil {
			// Ctrl-C: cancel the goal, as ros2 does.
			fmt.Fprintln(w, "Canceling goal...")
			cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
			defer cancel()
			if err := h.Cancel(cctx); err != nil {
				return err
			}
			fmt.Fprintln(w, "Goal canceled.")
			return nil
		}
		return err
	}
	<-fbDone
	m, err := parts.GetResultResponse.Decode(res.Payload)
	if err != nil {
		return fmt.Errorf("the result does not decode as %s: %w", parts.GetResultResponse.Name(), err)
	}
	result, _ := m["result"].(dynmsg.Message)
	fmt.Fprintf(w, "Result:\n    %s\n", parts.Result.FormatYAML(result, dynmsg.FormatOptions{}))
	fmt.Fprintf(w, "Goal finished with status: %s\n", statusName(status))
	return nil
}
