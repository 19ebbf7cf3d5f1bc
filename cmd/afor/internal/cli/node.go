package cli

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/afor-go/afor/ros"
)

func nodeCommands() []command {
	return []command{
		{"node list", "[-a]", "list the nodes", nodeList},
		{"node info", "NODE", "print a node's topics, services and actions", nodeInfo},
	}
}

func nodeList(ctx context.Context, env *Env, args []string) error {
	f := newFlags(env, "node list", "[-a] [-c]", "List the nodes of the ROS graph.")
	rf := f.ros(false)
	all := f.Bool("a", false, "also list hidden nodes (names starting with _)")
	f.BoolVar(all, "all", false, "same as -a")
	count := f.Bool("c", false, "print the number of nodes only")
	f.BoolVar(count, "count-nodes", false, "same as -c")
	if _, err := f.parse(args, 0, 0); err != nil {
		return err
	}
	_, g, err := rf.graph(ctx, "", nil)
	if err != nil {
		return err
	}
	names := nodeNames(g, func(fq string) bool { return *all || !hidden(fq) })
	if *count {
		fmt.Fprintln(env.Stdout, len(names))
		return nil
	}
	printLines(env, names)
	return nil
}

// actionsOf returns the actions among the services of kind (servers or
// clients), from their send_goal services: name and type.
func actionsOf(eps []ros.Endpoint, kind ros.EndpointKind) map[string][]string {
	out := map[string][]string{}
	for _, e := range eps {
		if e.Kind != kind {
			continue
		}
		name, ok := strings.CutSuffix(e.Name, "/_action/send_goal")
		if !ok {
			continue
		}
		typ := strings.TrimSuffix(e.Type, "_SendGoal")
		if !slices.Contains(out[name], typ) {
			out[name] = append(out[name], typ)
		}
	}
	return out
}

func nodeInfo(ctx context.Context, env *Env, args []string) error {
	f := newFlags(env, "node info", "NODE", "Print the publishers, subscriptions, services and actions of NODE (a fully qualified name such as /talker).")
	rf := f.ros(false)
	hiddenToo := f.Bool("include-hidden", false, "also print hidden topics and services")
	pos, err := f.parse(args, 1, 1)
	if err != nil {
		return err
	}
	target := pos[0]
	if !strings.HasPrefix(target, "/") {
		target = "/" + target
	}
	_, g, err := rf.graph(ctx, "", nil)
	if err != nil {
		return err
	}
	if !g.HasNode(target) {
		return fmt.Errorf("unknown node %s: not in the graph (afor node list shows the nodes)", target)
	}
	var mine []ros.Endpoint
	for _, e := range g.Endpoints {
		if e.Node.FullyQualifiedName() == target && e.Node.Name != "" {
			mine = append(mine, e)
		}
	}
	w := env.Stdout
	fmt.Fprintln(w, target)
	section := func(title string, m map[string][]string) {
		fmt.Fprintf(w, "  %s:\n", title)
		for _, name := range slices.Sorted(maps.Keys(m)) {
			if !*hiddenToo && hidden(name) {
				continue
			}
			fmt.Fprintf(w, "    %s: %s\n", name, strings.Join(m[name], ", "))
		}
	}
	byKind := func(kind ros.EndpointKind) map[string][]string {
		out := map[string][]string{}
		for _, e := range mine {
			if e.Kind == kind && !slices.Contains(out[e.Name], e.Type) {
				out[e.Name] = append(out[e.Name], e.Type)
			}
		}
		return out
	}
	section("Subscribers", byKind(ros.KindSubscription))
	section("Publishers", byKind(ros.KindPublisher))
	section("Service Servers", byKind(ros.KindServer))
	section("Service Clients", byKind(ros.KindClient))
	section("Action Servers", actionsOf(mine, ros.KindServer))
	section("Action Clients", actionsOf(mine, ros.KindClient))
	return nil
}
