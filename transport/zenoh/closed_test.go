package zenoh_test

import (
	"errors"
	"testing"

	"github.com/afor-go/afor"
	"github.com/afor-go/afor/transport/zenoh"
)

// Every call on a closed session fails with an error matching
// ErrSessionClosed.
func TestClosedSessionFailsEveryCall(t *testing.T) {
	s := openSession(t, zenoh.Config{})
	s.Close()
	ctx := t.Context()
	calls := map[string]func() error{
		"DeclarePublisher": func() error { _, err := s.DeclarePublisher("a"); return err },
		"DeclareSubscriber": func() error {
			_, err := s.DeclareSubscriber("a", func(zenoh.Sample) {})
			return err
		},
		"DeclareQueryable": func() error {
			_, err := s.DeclareQueryable("a", func(*zenoh.Query) {})
			return err
		},
		"DeclareToken": func() error { _, err := s.DeclareToken("a"); return err },
		"DeclareLivelinessSubscriber": func() error {
			_, err := s.DeclareLivelinessSubscriber("a", func(zenoh.Sample) {})
			return err
		},
		"LivelinessGet":  func() error { _, err := s.LivelinessGet(ctx, "a"); return err },
		"Put":            func() error { return s.Put(ctx, "a", nil) },
		"Delete":         func() error { return s.Delete(ctx, "a") },
		"Get":            func() error { _, err := s.Get(ctx, "a"); return err },
		"WaitConnected":  func() error { return s.WaitConnected(ctx) },
		"Subscribe":      func() error { _, err := zenoh.Subscribe(s, "a"); return err },
		"SubscribeCodec": func() error { _, err := zenoh.SubscribeCodec(s, "a", afor.StringCodec{}); return err },
		"SubscribeLiveliness": func() error {
			_, err := zenoh.SubscribeLiveliness(s, "a")
			return err
		},
		"NewPublisher": func() error { _, err := zenoh.NewPublisher(s, "a", afor.StringCodec{}); return err },
		"NewServer": func() error {
			_, err := zenoh.NewServer(s, "a", afor.StringCodec{}, afor.StringCodec{})
			return err
		},
		"NewClient": func() error {
			_, err := zenoh.NewClient(s, "a", afor.StringCodec{}, afor.StringCodec{})
			return err
		},
	}
	for name, call := range calls {
		if err := call(); !errors.Is(err, zenoh.ErrSessionClosed) {
			t.Errorf("%s on a closed session: %v, want ErrSessionClosed", name, err)
		}
	}
}
