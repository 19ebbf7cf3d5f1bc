package cli

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/afor-go/afor"
	"github.com/afor-go/afor/ros"
	"github.com/afor-go/afor/ros/dynmsg"
)

func topicCommands() []command {
	return []command{
		{"topic list", "[-t]", "list the topics", topicList},
		{"topic echo", "TOPIC [TYPE]", "print a topic's messages, as YAML (or JSON)", topicEcho},
		{"topic pub", "TOPIC TYPE [VALUES]", "publish a message given as YAML", topicPub},
		{"topic hz", "TOPIC", "print a topic's publishing rate", topicHz},
		{"topic bw", "TOPIC", "print a topic's bandwidth", topicBw},
		{"topic info", "TOPIC [-v]", "print a topic's type and endpoints", topicInfo},
		{"topic type", "TOPIC", "print a topic's type", topicType},
	}
}

// settleTime bounds how long, after the spin time, the listing commands
// wait for the nodes of the endpoints already discovered. Over DDS a
// node's endpoints (SEDP) come before the node (its participant's
// ros_discovery_info), milliseconds later; the bound matters only for
// endpoints no node claims (plain DDS peers).
const settleTime = time.Second

// snapshot waits the spin time, then until every endpoint discovered has
// its node (at most settleTime more), and returns the graph.
func (r *rosFlags) snapshot(ctx context.Context, cn *cliNode) (*ros.GraphSnapshot, error) {
	if err := r.spin(ctx); err != nil {
		return nil, err
	}
	sctx, cancel := context.WithTimeout(ctx, settleTime)
	defer cancel()
	g, err := cn.node.Graph().WaitFor(sctx, func(g *ros.GraphSnapshot) bool {
		for _, e := range g.Endpoints {
			if !e.Node.Known() {
				return false
			}
		}
		return true
	})
	if err != nil {
		if ctx.Err() != nil {
			return nil, context.Cause(ctx)
		}
		return cn.node.Graph().Snapshot(), nil
	}
	return g, nil
}

func topicList(ctx context.Context, env *Env, args []string) error {
	return listCommand(ctx, env, args, "topic", "List the topics of the ROS graph.", true, (*ros.GraphSnapshot).Topics)
}

func printNamesAndTypes(env *Env, m map[string][]string, showTypes, hiddenToo bool) {
	for _, name := range slices.Sorted(maps.Keys(m)) {
		if !hiddenToo && hidden(name) {
			continue
		}
		if showTypes {
			fmt.Fprintf(env.Stdout, "%s [%s]\n", name, strings.Join(m[name], ", "))
		} else {
			fmt.Fprintln(env.Stdout, name)
		}
	}
}

// topicType finds the type and hash of a topic from its publishers (then
// its subscriptions), waiting up to the spin time for one: typeName, when
// given, wins.
func topicTypeOf(ctx context.Context, rf *rosFlags, cn *cliNode, topic, typeName string, wait bool) (name, hash string, pubs []ros.Endpoint, err error) {
	wctx := ctx
	if !wait {
		var cancel context.CancelFunc
		wctx, cancel = context.WithTimeout(ctx, rf.spinTime)
		defer cancel()
	}
	g, err := cn.node.Graph().WaitFor(wctx, func(g *ros.GraphSnapshot) bool { return len(g.Publishers(topic)) > 0 })
	if err != nil {
		if ctx.Err() != nil {
			return "", "", nil, context.Cause(ctx)
		}
		g = cn.node.Graph().Snapshot()
	}
	pubs = g.Publishers(topic)
	eps := append(slices.Clone(pubs), g.Subscriptions(topic)...)
	if typeName == "" {
		types := g.Topics()[topic]
		switch len(types) {
		case 0:
			return "", "", nil, fmt.Errorf("topic %s is not published yet, so its type is unknown: start its publisher, wait longer (--spin-time), or give the type (%s TYPE)", topic, topic)
		case 1:
			typeName = types[0]
		default:
			return "", "", nil, fmt.Errorf("topic %s has more than one type (%s): give the one to use (%s TYPE)", topic, strings.Join(types, ", "), topic)
		}
	}
	for _, e := range eps {
		if sameType(e.Type, typeName) && e.TypeHash != "" {
			return e.Type, e.TypeHash, pubs, nil
		}
	}
	return typeName, "", pubs, nil
}

// sameType reports whether two type names are the same, in the long or
// short form ("std_msgs/msg/String", "std_msgs/String").
func sameType(a, b string) bool { return longType(a) == longType(b) }

func longType(s string) string { return longName(s, "msg") }

// subscriptionQoS is the QoS ros2 topic echo picks: reliable and
// transient local only when every publisher is.
func subscriptionQoS(pubs []ros.Endpoint) ros.QoS {
	q := ros.QoSDefault
	if len(pubs) == 0 {
		return q
	}
	tl := true
	for _, p := range pubs {
		if p.QoS.Reliability == ros.BestEffort {
			q = q.WithReliability(ros.BestEffort)
		}
		if p.QoS.Durability != ros.TransientLocal {
			tl = false
		}
	}
	if tl {
		q = q.WithDurability(ros.TransientLocal)
	}
	return q
}

// describedType builds the type name whose hash is hash from the type
// description one of pubs's nodes gives (~/get_type_description), once
// the RIHS01 hash computed from that description is the advertised one.
func describedType(ctx context.Context, rf *rosFlags, cn *cliNode, name, hash string, pubs []ros.Endpoint) (*dynmsg.Type, error) {
	var errs []error
	asked := map[string]bool{}
	for _, p := range pubs {
		node := p.Node.FullyQualifiedName()
		if p.TypeHash != hash || asked[node] || !p.Node.Known() {
			continue
		}
		asked[node] = true
		t, err := describedTypeFrom(ctx, rf, cn, node, name, hash)
		if err == nil {
			return t, nil
		}
		errs = append(errs, err)
	}
	if len(errs) == 0 {
		return nil, fmt.Errorf("no publisher of %s with hash %s to ask", name, hash)
	}
	return nil, errors.Join(errs...)
}

func describedTypeFrom(ctx context.Context, rf *rosFlags, cn *cliNode, node, name, hash string) (*dynmsg.Type, error) {
	tc, err := ros.NewTypeDescriptionClient(cn.node, node)
	if err != nil {
		return nil, err
	}
	wctx, cancel := context.WithTimeout(ctx, max(rf.spinTime, 2*time.Second))
	defer cancel()
	if err := tc.WaitReady(wctx); err != nil {
		return nil, err
	}
	info, err := tc.Get(wctx, name, hash, false)
	if err != nil {
		return nil, err
	}
	t, err := dynmsg.NewTypeFromDescription(info.Description)
	if err != nil {
		return nil, fmt.Errorf("the description of %s from %s: %w", name, node, err)
	}
	if t.Hash() != hash {
		return nil, fmt.Errorf("the description of %s from %s hashes to %s, the topic advertises %s", name, node, t.Hash(), hash)
	}
	rf.env.logger().Debug("a type described by its publisher", "type", name, "node", node)
	return t, nil
}

// rawSub subscribes to topic with its type as the graph (or typeName)
// gives it, and returns the sub and the dynmsg type.
func rawSub(ctx context.Context, rf *rosFlags, cn *cliNode, topic, typeName string, wait bool, qos *ros.QoS) (*afor.Sub[ros.RawMessage], *dynmsg.Type, error) {
	name, hash, pubs, err := topicTypeOf(ctx, rf, cn, topic, typeName, wait)
	if err != nil {
		return nil, nil, err
	}
	reg, err := rf.registry()
	if err != nil {
		return nil, nil, err
	}
	t, err := messageType(reg, name)
	// A type this process has no definition of, or another version of it
	// than the publishers': ask them for its description.
	if hash != "" && (errors.Is(err, dynmsg.ErrUnknownType) || err == nil && t.Hash() != hash) {
		dt, derr := describedType(ctx, rf, cn, name, hash, pubs)
		switch {
		case derr == nil:
			t, err = dt, nil
		case err != nil:
			err = fmt.Errorf("%w (nor could its publishers describe it: %v)", err, derr)
		}
	}
	if err != nil {
		return nil, nil, err
	}
	if hash == "" {
		hash = t.Hash()
	}
	q := subscriptionQoS(pubs)
	if qos != nil {
		q = *qos
	}
	sub, err := ros.SubscribeRaw(cn.node, topic, ros.RawType{Name: t.Name(), Hash: hash}, q)
	if err != nil {
		return nil, nil, err
	}
	return sub, t, nil
}

func topicEcho(ctx context.Context, env *Env, args []string) error {
	f := newFlags(env, "topic echo", "TOPIC [TYPE] [flags]", "Print the messages of TOPIC as `ros2 topic echo` does (YAML, each followed by ---), or one JSON object per line.\nWithout TYPE, the type is the one of the topic's publishers.")
	rf := f.ros(true)
	once := f.Bool("once", false, "print the first message and exit")
	count := f.Int("count", 0, "print N messages and exit (0: until Ctrl-C)")
	asJSON := f.Bool("json", false, "print one JSON object per message and line")
	noArr := f.Bool("no-arr", false, "do not print arrays")
	noStr := f.Bool("no-str", false, "do not print strings")
	truncate := f.Int("truncate-length", 128, "truncate strings and arrays longer than N")
	fullLength := f.Bool("full-length", false, "do not truncate strings and arrays")
	flowStyle := f.Bool("flow-style", false, "print arrays in flow style: [1, 2]")
	pos, err := f.parse(args, 1, 2)
	if err != nil {
		return err
	}
	if *count < 0 {
		return fmt.Errorf("%w: --count %d: want 0 or more", ErrUsage, *count)
	}
	if *once {
		*count = 1
	}
	o := dynmsg.FormatOptions{NoArr: *noArr, NoStr: *noStr, TruncateLength: *truncate, FlowStyle: *flowStyle}
	if *fullLength {
		o.TruncateLength = 0
	}
	cn, topic, err := rf.openNamed(ctx, pos[0], (*ros.Node).ResolveTopicName)
	if err != nil {
		return err
	}
	defer cn.Close()
	typeName := ""
	if len(pos) == 2 {
		typeName = pos[1]
	}
	sub, t, err := rawSub(ctx, rf, cn, topic, typeName, false, nil)
	if err != nil {
		return err
	}
	defer sub.Close()
	n := 0
	for m := range sub.ListenReliable(ctx, afor.QueueSize(1000)) {
		msg, err := t.Decode(m.Payload)
		if err != nil {
			fmt.Fprintf(env.Stderr, "warning: a message on %s does not decode as %s, skipped: %v\n", topic, t.Name(), err)
			continue
		}
		if *asJSON {
			b, err := t.FormatJSON(msg)
			if err != nil {
				return err
			}
			fmt.Fprintf(env.Stdout, "%s\n", b)
		} else {
			fmt.Fprintf(env.Stdout, "%s---\n", t.FormatYAML(msg, o))
		}
		n++
		if *count > 0 && n >= *count {
			return nil
		}
	}
	return nil // Ctrl-C
}

func topicPub(ctx context.Context, env *Env, args []string) error {
	f := newFlags(env, "topic pub", "TOPIC TYPE [VALUES] [flags]", "Publish a message of TYPE on TOPIC, VALUES as `ros2 topic pub` takes them: YAML such as \"{data: hello}\".")
	rf := f.ros(true)
	rate := f.Float64("rate", 1, "publishing rate in Hz")
	f.Float64Var(rate, "r", 1, "publishing rate in Hz (shorthand)")
	once := f.Bool("once", false, "publish one message and exit")
	f.BoolVar(once, "1", false, "publish one message and exit (shorthand)")
	times := f.Int("times", 0, "publish N messages and exit (0: until Ctrl-C)")
	f.IntVar(times, "t", 0, "publish N messages and exit (shorthand)")
	wait := f.Int("wait-matching-subscriptions", -1, "wait for N matching subscriptions before publishing (default 1 with --once or --times, else 0)")
	f.IntVar(wait, "w", -1, "shorthand of --wait-matching-subscriptions")
	keepAlive := f.Duration("keep-alive", 100*time.Millisecond, "how long to keep the publisher after the last message")
	depth := f.Int("qos-depth", 1, "QoS history depth")
	reliability := f.String("qos-reliability", "reliable", "QoS reliability: reliable or best_effort")
	durability := f.String("qos-durability", "volatile", "QoS durability: volatile or transient_local")
	pos, err := f.parse(args, 2, 3)
	if err != nil {
		return err
	}
	if *rate <= 0 {
		return fmt.Errorf("%w: --rate %v: want a rate above 0 Hz", ErrUsage, *rate)
	}
	if *once {
		*times = 1
	}
	if *wait < 0 {
		*wait = 0
		if *times > 0 {
			*wait = 1
		}
	}
	q := ros.QoSKeepLast(*depth)
	switch *reliability {
	case "reliable":
	case "best_effort":
		q = q.WithReliability(ros.BestEffort)
	default:
		return fmt.Errorf("%w: --qos-reliability %q: want reliable or best_effort", ErrUsage, *reliability)
	}
	switch *durability {
	case "volatile":
	case "transient_local":
		q = q.WithDurability(ros.TransientLocal)
	default:
		return fmt.Errorf("%w: --qos-durability %q: want volatile or transient_local", ErrUsage, *durability)
	}
	req, err := readRequest(rf, pos, messageType, func(t *dynmsg.Type) *dynmsg.Type { return t })
	if err != nil {
		return err
	}
	t := req.typ
	cn, err := rf.open(ctx)
	if err != nil {
		return err
	}
	defer cn.Close()
	pub, err := ros.NewRawPublisher(cn.node, pos[0], ros.RawType{Name: t.Name(), Hash: t.Hash()}, q)
	if err != nil {
		return err
	}
	if *wait > 0 {
		if len(cn.node.Graph().Snapshot().Subscriptions(pub.Topic())) < *wait {
			fmt.Fprintf(env.Stdout, "Waiting for at least %d matching subscription(s)...\n", *wait)
		}
		if _, err := cn.node.Graph().WaitFor(ctx, func(g *ros.GraphSnapshot) bool { return len(g.Subscriptions(pub.Topic())) >= *wait }); err != nil {
			return nil // Ctrl-C
		}
	}
	repr := t.FormatRepr(req.msg)
	fmt.Fprintln(env.Stdout, "publisher: beginning loop")
	r, err := afor.NewRate(*rate)
	if err != nil {
		return err
	}
	defer r.Close()
	// The first message goes at once, the next ones at the rate.
	for n := 1; ; n++ {
		if err := pub.Publish(ctx, req.payload); err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return err
		}
		fmt.Fprintf(env.Stdout, "publishing #%d: %s\n\n", n, repr)
		if *times > 0 && n >= *times {
			break
		}
		if _, err := r.WaitForNext(ctx); err != nil {
			break
		}
	}
	if ctx.Err() != nil {
		return nil
	}
	// Give a reliable middleware the time to deliver (and repeat) the last
	// message before the publisher goes.
	timer := time.NewTimer(*keepAlive)
	defer timer.Stop()
	select {
	case <-timer.C:
	case <-ctx.Done():
	}
	return nil
}

func topicHz(ctx context.Context, env *Env, args []string) error {
	ss, err := openSensorSub(ctx, env, args, "topic hz", "Print the publishing rate of TOPIC every second, as `ros2 topic hz` does, until Ctrl-C.", 10000)
	if ss == nil {
		return err
	}
	defer ss.Close()
	s := hzStats{window: ss.window}
	for m := range ss.sub.ListenReliable(ctx, afor.QueueSize(10000)) {
		s.add(m.Info.ReceivedTime)
		if r, ok := s.report(); ok {
			fmt.Fprint(env.Stdout, r)
		}
	}
	return nil
}

func topicBw(ctx context.Context, env *Env, args []string) error {
	ss, err := openSensorSub(ctx, env, args, "topic bw", "Print the bandwidth used by TOPIC every second, as `ros2 topic bw` does, until Ctrl-C.", 100)
	if ss == nil {
		return err
	}
	defer ss.Close()
	sub := ss.sub
	fmt.Fprintf(env.Stdout, "Subscribed to [%s]\n", ss.topic)
	var mu sync.Mutex
	s := bwStats{window: ss.window}
	remove := sub.OnInput(func(m ros.RawMessage) {
		mu.Lock()
		defer mu.Unlock()
		s.add(m.Info.ReceivedTime, len(m.Payload))
	})
	defer remove()
	ticker := time.NewTicker(time.Second)
	defer ticker.Stop()
	for {
		select {
		case now := <-ticker.C:
			mu.Lock()
			r, ok := s.report(now)
			mu.Unlock()
			if ok {
				fmt.Fprint(env.Stdout, r)
			}
		case <-ctx.Done():
			return nil
		case <-sub.Done():
			return sub.Err()
		}
	}
}

func topicInfo(ctx context.Context, env *Env, args []string) error {
	f := newFlags(env, "topic info", "TOPIC [-v]", "Print the type of TOPIC and its publishers and subscriptions.")
	rf := f.ros(false)
	verbose := f.Bool("v", false, "print each endpoint: node, type hash, GID, QoS")
	f.BoolVar(verbose, "verbose", false, "same as -v")
	pos, err := f.parse(args, 1, 1)
	if err != nil {
		return err
	}
	topic, g, err := rf.graph(ctx, pos[0], (*ros.Node).ResolveTopicName)
	if err != nil {
		return err
	}
	types, err := graphTypes(g.Topics(), "topic", topic)
	if err != nil {
		return err
	}
	w := env.Stdout
	pubs, subs := g.Publishers(topic), g.Subscriptions(topic)
	if !*verbose {
		fmt.Fprintf(w, "Type: %s\nPublisher count: %d\nSubscription count: %d\n", strings.Join(types, "; "), len(pubs), len(subs))
		return nil
	}
	fmt.Fprintf(w, "Type: %s\n\nPublisher count: %d\n\n", strings.Join(types, "; "), len(pubs))
	for _, e := range pubs {
		printEndpoint(w, e)
	}
	fmt.Fprintf(w, "Subscription count: %d\n\n", len(subs))
	for _, e := range subs {
		printEndpoint(w, e)
	}
	return nil
}

func printEndpoint(w interface{ Write([]byte) (int, error) }, e ros.Endpoint) {
	kind := "PUBLISHER"
	if e.Kind == ros.KindSubscription {
		kind = "SUBSCRIPTION"
	}
	name, ns := e.Node.Name, e.Node.Namespace
	if name == "" {
		name, ns = "_NODE_NAME_UNKNOWN_", "_NODE_NAMESPACE_UNKNOWN_"
	}
	gid := make([]string, len(e.GID))
	for i, b := range e.GID {
		gid[i] = fmt.Sprintf("%02x", b)
	}
	q := e.QoS
	history := map[ros.History]string{ros.KeepLast: "KEEP_LAST", ros.KeepAll: "KEEP_ALL"}[q.History]
	if history == "" {
		history = "UNKNOWN"
	}
	fmt.Fprintf(w, "Node name: %s\nNode namespace: %s\nTopic type: %s\nTopic type hash: %s\nEndpoint type: %s\nGID: %s\nQoS profile:\n",
		name, ns, e.Type, e.TypeHash, kind, strings.Join(gid, "."))
	fmt.Fprintf(w, "  Reliability: %s\n  History (Depth): %s (%d)\n  Durability: %s\n  Lifespan: %s\n  Deadline: %s\n  Liveliness: %s\n  Liveliness lease duration: %s\n\n",
		policyName(q.Reliability.String()), history, q.Depth, policyName(q.Durability.String()),
		durationName(q.Lifespan), durationName(q.Deadline), policyName(q.Liveliness.String()), durationName(q.LivelinessLease))
}

// policyName spells a policy as the ros2 CLI does: "RELIABLE",
// "TRANSIENT_LOCAL".
func policyName(s string) string { return strings.ToUpper(strings.ReplaceAll(s, " ", "_")) }

func durationName(d time.Duration) string {
	if d <= 0 || d >= 1<<62 {
		return "Infinite"
	}
	return fmt.Sprintf("%d nanoseconds", d.Nanoseconds())
}

func topicType(ctx context.Context, env *Env, args []string) error {
	return typeCommand(ctx, env, args, "topic", "TOPIC", "Print the type of TOPIC.", (*ros.Node).ResolveTopicName, (*ros.GraphSnapshot).Topics)
}
