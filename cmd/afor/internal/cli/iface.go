package cli

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/afor-go/afor/ros/dynmsg"
)

func interfaceCommands() []command {
	return []command{
		{"interface list", "", "list the known message, service and action types", interfaceList},
		{"interface show", "TYPE", "print a type's definition", interfaceShow},
	}
}

func interfaceList(ctx context.Context, env *Env, args []string) error {
	f := newFlags(env, "interface list", "[flags]", "List the interface types afor knows: the shipped ones, those of AMENT_PREFIX_PATH and of --interfaces folders.")
	rf := f.ros(true)
	if _, err := f.parse(args, 0, 0); err != nil {
		return err
	}
	reg, err := rf.registry()
	if err != nil {
		return err
	}
	for _, l := range dynmsg.ListInterfaces(reg) {
		fmt.Fprintln(env.Stdout, l)
	}
	return nil
}

func interfaceShow(ctx context.Context, env *Env, args []string) error {
	f := newFlags(env, "interface show", "TYPE [flags]", "Print the definition of a message, service or action type (std_msgs/msg/String), with its nested types.")
	rf := f.ros(true)
	pos, err := f.parse(args, 1, 1)
	if err != nil {
		return err
	}
	reg, err := rf.registry()
	if err != nil {
		return err
	}
	s, err := dynmsg.ShowInterface(reg, pos[0])
	if errors.Is(err, dynmsg.ErrUnknownType) {
		return fmt.Errorf("unknown type %q: want a message, service or action type such as std_msgs/msg/String (afor interface list shows them): %w", pos[0], err)
	}
	if err != nil {
		return err
	}
	fmt.Fprint(env.Stdout, s)
	if s != "" && !strings.HasSuffix(s, "\n") {
		fmt.Fprintln(env.Stdout)
	}
	return nil
}
