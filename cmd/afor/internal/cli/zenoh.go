package cli

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/afor-go/afor/transport/zenoh"
)

func zenohCommands() []command {
	return []command{
		{"zenoh put", "KEY VALUE", "put a value on a key expression (z_put)", zenohPut},
		{"zenoh sub", "KEY", "print the samples of a key expression (z_sub)", zenohSub},
		{"zenoh get", "SELECTOR", "query a selector and print the replies (z_get)", zenohGet},
		{"zenoh liveliness", "KEY", "declare a liveliness token (z_liveliness), or watch tokens (--sub, --get)", zenohLiveliness},
		{"zenoh scout", "", "print the Zenoh nodes found by multicast scouting (z_scout)", zenohScout},
	}
}

// zenohFlags are the session flags of the Zenoh commands, as the Zenoh
// examples have them.
type zenohFlags struct {
	mode        string
	connect     stringsFlag
	listen      stringsFlag
	noMulticast bool
}

func (f *flags) zenoh() *zenohFlags {
	z := &zenohFlags{}
	f.StringVar(&z.mode, "mode", "peer", "session mode: peer or client")
	f.StringVar(&z.mode, "m", "peer", "shorthand of --mode")
	f.Var(&z.connect, "connect", "endpoint to connect to, like tcp/127.0.0.1:7447; repeatable")
	f.Var(&z.connect, "e", "shorthand of --connect")
	f.Var(&z.listen, "listen", "endpoint to listen on, like tcp/0.0.0.0:7447; repeatable")
	f.Var(&z.listen, "l", "shorthand of --listen")
	f.BoolVar(&z.noMulticast, "no-multicast-scouting", false, "do not discover peers and routers by multicast scouting")
	return z
}

// open opens the session and, when it dials or scouts, waits a moment for
// a first link.
func (z *zenohFlags) open(ctx context.Context, env *Env) (*zenoh.Session, error) {
	cfg := zenoh.Config{Listen: z.listen, Connect: z.connect, Logger: env.logger()}
	switch z.mode {
	case "peer":
		cfg.Mode = zenoh.ModePeer
	case "client":
		cfg.Mode = zenoh.ModeClient
	default:
		return nil, fmt.Errorf("%w: --mode %q: want peer or client", ErrUsage, z.mode)
	}
	cfg.Scouting.Multicast = !z.noMulticast
	s, err := zenoh.Open(ctx, cfg)
	if err != nil {
		return nil, err
	}
	if len(z.connect) > 0 || cfg.Scouting.Multicast {
		wctx, cancel := context.WithTimeout(ctx, 3*time.Second)
		_ = s.WaitConnected(wctx) // no link yet is not an error: one may come
		cancel()
	}
	return s, nil
}

func zenohPut(ctx context.Context, env *Env, args []string) error {
	f := newFlags(env, "zenoh put", "KEY VALUE [flags]", "Put VALUE on the key expression KEY, as z_put does.")
	z := f.zenoh()
	encoding := f.String("encoding", "", "the payload's encoding, like text/plain")
	attach := f.String("attach", "", "an attachment")
	wait := f.Duration("wait-matching", time.Second, "how long to wait for a matching subscriber before putting")
	pos, err := f.parse(args, 2, 2)
	if err != nil {
		return err
	}
	s, err := z.open(ctx, env)
	if err != nil {
		return err
	}
	defer s.Close()
	var opts []zenoh.PutOption
	if *encoding != "" {
		opts = append(opts, zenoh.WithEncoding(zenoh.Encoding(*encoding)))
	}
	if *attach != "" {
		opts = append(opts, zenoh.WithAttachment([]byte(*attach)))
	}
	pub, err := s.DeclarePublisher(pos[0], opts...)
	if err != nil {
		return err
	}
	defer pub.Undeclare()
	wctx, cancel := context.WithTimeout(ctx, *wait)
	_ = pub.WaitMatching(wctx) // a put without subscribers is not an error
	cancel()
	fmt.Fprintf(env.Stdout, "Putting Data ('%s': '%s')...\n", pos[0], pos[1])
	return pub.Put(ctx, []byte(pos[1]))
}

func zenohSub(ctx context.Context, env *Env, args []string) error {
	f := newFlags(env, "zenoh sub", "KEY [flags]", "Print the samples put on the key expression KEY, as z_sub does, until Ctrl-C.")
	z := f.zenoh()
	count := f.Int("count", 0, "exit after N samples (0: until Ctrl-C)")
	pos, err := f.parse(args, 1, 1)
	if err != nil {
		return err
	}
	s, err := z.open(ctx, env)
	if err != nil {
		return err
	}
	defer s.Close()
	sub, err := zenoh.Subscribe(s, pos[0])
	if err != nil {
		return err
	}
	defer sub.Close()
	fmt.Fprintf(env.Stdout, "Declaring Subscriber on '%s'...\n", pos[0])
	n := 0
	for smp := range sub.ListenReliable(ctx) {
		fmt.Fprintf(env.Stdout, ">> [Subscriber] Received %s ('%s': '%s')\n", smp.Kind, smp.KeyExpr, smp.Payload)
		n++
		if *count > 0 && n >= *count {
			return nil
		}
	}
	return nil
}

func zenohGet(ctx context.Context, env *Env, args []string) error {
	f := newFlags(env, "zenoh get", "SELECTOR [flags]", "Query SELECTOR and print the replies, as z_get does.")
	z := f.zenoh()
	payload := f.String("payload", "", "a payload for the query")
	timeout := f.Duration("timeout", 10*time.Second, "how long to wait for replies")
	target := f.String("target", "best_matching", "queryables to reach: best_matching, all or all_complete")
	pos, err := f.parse(args, 1, 1)
	if err != nil {
		return err
	}
	opts := []zenoh.GetOption{zenoh.WithTimeout(*timeout)}
	switch *target {
	case "best_matching":
	case "all":
		opts = append(opts, zenoh.WithTarget(zenoh.TargetAll))
	case "all_complete":
		opts = append(opts, zenoh.WithTarget(zenoh.TargetAllComplete))
	default:
		return fmt.Errorf("%w: --target %q: want best_matching, all or all_complete", ErrUsage, *target)
	}
	if *payload != "" {
		opts = append(opts, zenoh.WithQueryPayload([]byte(*payload)))
	}
	s, err := z.open(ctx, env)
	if err != nil {
		return err
	}
	defer s.Close()
	fmt.Fprintf(env.Stdout, "Sending Query '%s'...\n", pos[0])
	replies, err := s.Get(ctx, pos[0], opts...)
	if err != nil {
		return err
	}
	for r := range replies {
		if r.Err != nil {
			var re *zenoh.ReplyError
			if errors.As(r.Err, &re) {
				fmt.Fprintf(env.Stdout, ">> Received (ERROR: '%s')\n", re.Payload)
				continue
			}
			return r.Err
		}
		fmt.Fprintf(env.Stdout, ">> Received ('%s': '%s')\n", r.Sample.KeyExpr, r.Sample.Payload)
	}
	return nil
}

func zenohLiveliness(ctx context.Context, env *Env, args []string) error {
	f := newFlags(env, "zenoh liveliness", "KEY [flags]", "Declare a liveliness token on KEY until Ctrl-C, as z_liveliness does; with --sub, print the tokens that appear and go on KEY (z_sub_liveliness); with --get, print the tokens alive now (z_get_liveliness).")
	z := f.zenoh()
	sub := f.Bool("sub", false, "watch the tokens of KEY instead of declaring one")
	history := f.Bool("history", false, "with --sub, print the tokens already alive too")
	get := f.Bool("get", false, "print the tokens of KEY alive now, and exit")
	count := f.Int("count", 0, "with --sub, exit after N events (0: until Ctrl-C)")
	timeout := f.Duration("timeout", 10*time.Second, "with --get, how long to wait for replies")
	pos, err := f.parse(args, 1, 1)
	if err != nil {
		return err
	}
	if *sub && *get {
		return fmt.Errorf("%w: --sub and --get do not go together", ErrUsage)
	}
	s, err := z.open(ctx, env)
	if err != nil {
		return err
	}
	defer s.Close()
	key := pos[0]
	switch {
	case *get:
		gctx, cancel := context.WithTimeout(ctx, *timeout)
		defer cancel()
		fmt.Fprintf(env.Stdout, "Sending Liveliness Query '%s'...\n", key)
		keys, err := s.LivelinessGet(gctx, key)
		if err != nil && ctx.Err() == nil && !errors.Is(err, context.DeadlineExceeded) {
			return err
		}
		for _, k := range keys {
			fmt.Fprintf(env.Stdout, ">> Alive token ('%s')\n", k)
		}
		return nil
	case *sub:
		var opts []zenoh.LivelinessOption
		if *history {
			opts = append(opts, zenoh.WithHistory())
		}
		events := make(chan zenoh.Sample, 64)
		ls, err := s.DeclareLivelinessSubscriber(key, func(smp zenoh.Sample) {
			select {
			case events <- smp:
			default: // a reader too slow loses events, never blocks the session
			}
		}, opts...)
		if err != nil {
			return err
		}
		defer ls.Undeclare()
		fmt.Fprintf(env.Stdout, "Declaring Liveliness Subscriber on '%s'...\n", key)
		for n := 0; *count == 0 || n < *count; n++ {
			select {
			case smp := <-events:
				if smp.Kind == zenoh.KindDelete {
					fmt.Fprintf(env.Stdout, ">> [LivelinessSubscriber] Dropped token ('%s')\n", smp.KeyExpr)
				} else {
					fmt.Fprintf(env.Stdout, ">> [LivelinessSubscriber] New alive token ('%s')\n", smp.KeyExpr)
				}
			case <-ctx.Done():
				return nil
			}
		}
		return nil
	}
	tok, err := s.DeclareToken(key)
	if err != nil {
		return err
	}
	defer tok.Undeclare()
	fmt.Fprintf(env.Stdout, "Declaring LivelinessToken on '%s'...\nPress CTRL-C to undeclare LivelinessToken and quit...\n", key)
	<-ctx.Done()
	return nil
}

func zenohScout(ctx context.Context, env *Env, args []string) error {
	f := newFlags(env, "zenoh scout", "[flags]", "Print the Zenoh nodes that answer multicast scouting, as z_scout does.")
	timeout := f.Duration("timeout", 3*time.Second, "how long to scout")
	address := f.String("address", zenoh.DefaultScoutAddress, "multicast group and port")
	iface := f.String("interface", "", "network interface to scout on (name or address)")
	if _, err := f.parse(args, 0, 0); err != nil {
		return err
	}
	sctx, cancel := context.WithTimeout(ctx, *timeout)
	defer cancel()
	fmt.Fprintln(env.Stdout, "Scouting...")
	for h, err := range zenoh.Scout(sctx, zenoh.ScoutingConfig{Address: *address, Interface: *iface}) {
		if err != nil {
			return err
		}
		fmt.Fprintf(env.Stdout, "Hello { zid: %s, whatami: %s, locators: [%s] }\n", h.ZID, h.Role, strings.Join(h.Locators, ", "))
	}
	return nil
}
