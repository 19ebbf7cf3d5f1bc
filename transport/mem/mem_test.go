package mem_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/afor-go/afor"
	"github.com/afor-go/afor/afortest"
	"github.com/afor-go/afor/keyexpr"
	"github.com/afor-go/afor/transport/mem"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func pubSub(t *testing.T) (func(context.Context, string) error, *afor.Sub[string]) {
	bus := mem.NewBus()
	t.Cleanup(bus.Close)
	sub, err := mem.Subscribe[string](bus, "test/**")
	if err != nil {
		t.Fatal(err)
	}
	pub, err := mem.NewPublisher[string](bus, "test/something")
	if err != nil {
		t.Fatal(err)
	}
	return func(_ context.Context, msg string) error { pub.Publish(msg); return nil }, sub
}

func TestConformance(t *testing.T) {
	afortest.RunPubSub(t, afortest.PubSub{New: pubSub, Synctest: true})
}

func TestConformanceRealTime(t *testing.T) {
	afortest.RunPubSub(t, afortest.PubSub{New: pubSub})
}

func TestReqRepConformance(t *testing.T) {
	afortest.RunReqRep(t, afortest.ReqRep{
		Synctest: true,
		New: func(t *testing.T) (*afor.Server[string, string], *afor.Client[string, string]) {
			bus := mem.NewBus()
			t.Cleanup(bus.Close)
			srv, err := mem.NewServer[string, string](bus, "svc/echo")
			if err != nil {
				t.Fatal(err)
			}
			cli, err := mem.NewClient[string, string](bus, "svc/echo")
			if err != nil {
				t.Fatal(err)
			}
			return srv, cli
		},
		NoServer: func(t *testing.T) *afor.Client[string, string] {
			cli, err := mem.NewClient[string, string](mem.NewBus(), "svc/none")
			if err != nil {
				t.Fatal(err)
			}
			return cli
		},
	})
}

func TestWildcardsTypesAndBuses(t *testing.T) {
	bus, other := mem.NewBus(), mem.NewBus()
	defer bus.Close()
	defer other.Close()
	poses, _ := mem.Subscribe[string](bus, "robot/*/pose")
	all, _ := mem.Subscribe[string](bus, "robot/**")
	ints, _ := mem.Subscribe[int](bus, "robot/**")
	elsewhere, _ := mem.Subscribe[string](other, "robot/**")

	n, err := mem.Publish(bus, "robot/r1/pose", "p1")
	if err != nil || n != 2 {
		t.Fatalf("Publish = %d, %v; want 2 receivers", n, err)
	}
	mem.Publish(bus, "robot/r1/battery", "b1")
	mem.Publish(bus, "robot/r2/battery", 42)

	if v, _ := poses.Value(); v != "p1" {
		t.Fatalf("poses = %q", v)
	}
	if v, _ := all.Value(); v != "b1" {
		t.Fatalf("all = %q", v)
	}
	if v, _ := ints.Value(); v != 42 {
		t.Fatalf("ints = %d", v)
	}
	if _, ok := elsewhere.Value(); ok {
		t.Fatal("a separate bus received a value")
	}
	if st := all.Stats(); st.Inputs != 2 {
		t.Fatalf("all received %d values, want 2", st.Inputs)
	}
}

func TestUnsubscribeAndClose(t *testing.T) {
	bus := mem.NewBus()
	pub, _ := mem.NewPublisher[int](bus, "a/b")
	s, _ := mem.Subscribe[int](bus, "a/*")
	if pub.Publish(1) != 1 {
		t.Fatal("not delivered")
	}
	s.Close()
	if pub.Publish(2) != 0 {
		t.Fatal("delivered to a closed sub")
	}
	s2, _ := mem.Subscribe[int](bus, "a/b")
	bus.Close()
	if _, err := s2.WaitForNext(t.Context()); !errors.Is(err, afor.ErrClosed) {
		t.Fatalf("sub of a closed bus: %v", err)
	}
	if _, err := mem.Subscribe[int](bus, "a/b"); !errors.Is(err, mem.ErrClosed) {
		t.Fatalf("Subscribe on closed bus: %v", err)
	}
	if pub.Publish(3) != 0 {
		t.Fatal("delivered on a closed bus")
	}
}

func TestInvalidKeys(t *testing.T) {
	bus := mem.NewBus()
	defer bus.Close()
	for _, k := range []string{"", "a//b", "/a", "a/", "a/#", "a?b", "**/**"} {
		if _, err := mem.Subscribe[int](bus, k); !errors.Is(err, keyexpr.ErrInvalid) {
			t.Errorf("Subscribe(%q) err = %v, want keyexpr.ErrInvalid", k, err)
		}
		if _, err := mem.NewPublisher[int](bus, k); !errors.Is(err, keyexpr.ErrInvalid) {
			t.Errorf("NewPublisher(%q) err = %v", k, err)
		}
	}
	// One prefix, and the canonical form named.
	_, err := mem.Subscribe[int](bus, "a/**/**")
	if msg := err.Error(); strings.Count(msg, ":") > 3 || !strings.HasPrefix(msg, `keyexpr: invalid key expression "a/**/**"`) || !strings.Contains(msg, `"a/**"`) {
		t.Errorf("error %q: want one prefix and the canonical form", msg)
	}
}

func TestWaitForServerCancelledCtx(t *testing.T) {
	bus := mem.NewBus()
	defer bus.Close()
	srv, _ := mem.NewServer[int, int](bus, "add/one")
	defer srv.Close()
	cli, _ := mem.NewClient[int, int](bus, "add/one")
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if err := cli.WaitForServer(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("WaitForServer with a cancelled ctx and a server there: %v, want context.Canceled", err)
	}
}

func TestWaitForServer(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		bus := mem.NewBus()
		defer bus.Close()
		cli, _ := mem.NewClient[int, int](bus, "add/one")
		ready := make(chan error)
		go func() { ready <- cli.WaitForServer(t.Context()) }()
		synctest.Wait()
		select {
		case <-ready:
			t.Fatal("ready before the server exists")
		default:
		}
		srv, _ := mem.NewServer[int, int](bus, "add/one")
		if err := <-ready; err != nil {
			t.Fatal(err)
		}
		go func() {
			for r := range srv.ListenReliable(t.Context()) {
				_ = r.Respond(r.Request + 1)
			}
		}()
		for i := range 3 {
			got, err := cli.Call(t.Context(), i)
			if err != nil || got != i+1 {
				t.Fatalf("Call(%d) = %d, %v", i, got, err)
			}
		}
		srv.Close()
		_, err := cli.Call(t.Context(), 1)
		if !errors.Is(err, afor.ErrNoServer) {
			t.Fatalf("after server closed: %v", err)
		}
	})
}

func TestPublishDoesNotAllocate(t *testing.T) {
	bus := mem.NewBus()
	defer bus.Close()
	pub, _ := mem.NewPublisher[[4]float64](bus, "x")
	s, _ := mem.Subscribe[[4]float64](bus, "x")
	l := s.Listener(t.Context())
	v := [4]float64{1, 2, 3, 4}
	allocs := testing.AllocsPerRun(1000, func() {
		pub.Publish(v)
		if _, err := l.Next(t.Context()); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Fatalf("publish+receive allocates %v times per message", allocs)
	}
}

func Example() {
	bus := mem.NewBus()
	defer bus.Close()
	sub, _ := mem.Subscribe[string](bus, "robot/*/status")
	ctx := context.Background()
	w := sub.ArmNext(ctx) // arm, then publish, then wait: no race
	mem.Publish(bus, "robot/r1/status", "ok")
	v, _ := w.Wait(ctx)
	fmt.Println(v)
	// Output: ok
}

func TestPublishTypeMismatch(t *testing.T) {
	bus := mem.NewBus(mem.WithLogger(slog.New(slog.DiscardHandler)))
	defer bus.Close()
	vel, _ := mem.Subscribe[float64](bus, "vel")
	n, err := mem.Publish(bus, "vel", 1) // an int, not a float64
	if n != 0 || !errors.Is(err, mem.ErrTypeMismatch) {
		t.Fatalf("Publish(int) beside a float64 subscriber = %d, %v; want 0, ErrTypeMismatch", n, err)
	}
	if _, ok := vel.Value(); ok {
		t.Fatal("the float64 subscriber received an int")
	}
	if n, err := mem.Publish(bus, "vel", 1.0); n != 1 || err != nil {
		t.Fatalf("Publish(float64) = %d, %v; want 1, nil", n, err)
	}
	// Nobody at all on the key is not a mismatch.
	if n, err := mem.Publish(bus, "other", 1); n != 0 || err != nil {
		t.Fatalf("Publish on a key nobody subscribes = %d, %v; want 0, nil", n, err)
	}
}
