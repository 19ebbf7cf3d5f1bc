package ros_test

import (
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/afor-go/afor/internal/peers"
	"github.com/afor-go/afor/ros"
	"github.com/afor-go/afor/ros/msgs/std_msgs"
	"github.com/afor-go/afor/transport/zenoh"
)

// Two Go nodes over rmw_zenoh configured only by a JSON5 session file
// (ZENOH_SESSION_CONFIG_URI) talk through a Rust router configured as
// rmw_zenohd that requires mutual TLS and a password.
func TestZenohSessionConfigFileSecureRouter(t *testing.T) {
	pki := peers.NewPKI(t, "ros")
	dir := t.TempDir()
	dict := filepath.Join(dir, "users.txt")
	if err := os.WriteFile(dict, []byte("robot:s3cret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	q := func(s string) string { return fmt.Sprintf("%q", s) }
	ep := peers.ZenohRouter(t, filepath.Join("internal", "rmwzenoh", "testdata", "zenoh_router.py"), "--rmw",
		"--listen", "tls/127.0.0.1:0",
		"--set", "transport/link/tls/root_ca_certificate="+q(pki.CA),
		"--set", "transport/link/tls/listen_certificate="+q(pki.Cert),
		"--set", "transport/link/tls/listen_private_key="+q(pki.Key),
		"--set", "transport/link/tls/enable_mtls=true",
		"--set", "transport/auth/usrpwd/dictionary_file="+q(dict))
	session := filepath.Join(dir, "session.json5")
	cfg := fmt.Sprintf(`// A robot's rmw_zenoh session.
{
  mode: "peer",
  connect: { endpoints: [%s] },
  listen: { endpoints: ["tls/127.0.0.1:0"] },
  transport: {
    link: {
      tls: {
        root_ca_certificate: %s,
        listen_certificate: %s, listen_private_key: %s,
        enable_mtls: true,
        connect_certificate: %s, connect_private_key: %s,
      },
    },
    auth: { usrpwd: { user: "robot", password: "s3cret", dictionary_file: %s } },
  },
}
`, q(ep), q(pki.CA), q(pki.Cert), q(pki.Key), q(pki.Cert), q(pki.Key), q(dict))
	if err := os.WriteFile(session, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv(ros.EnvZenohSessionConfig, session)
	t.Setenv(ros.EnvZenohConfigOverride, "")
	ctx := testCtx(t)
	open := func() *ros.Context {
		c, err := ros.Open(ctx, ros.WithMiddleware(ros.Zenoh(zenoh.Config{})), ros.WithLogger(slog.New(slog.DiscardHandler)))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		return c
	}
	a, b := open(), open()
	na, err := a.NewNode("talker")
	if err != nil {
		t.Fatal(err)
	}
	nb, err := b.NewNode("listener")
	if err != nil {
		t.Fatal(err)
	}
	pub, err := ros.NewPublisher[std_msgs.String](na, "/secure", ros.QoSDefault)
	if err != nil {
		t.Fatal(err)
	}
	sub, err := ros.Subscribe[std_msgs.String](nb, "/secure", ros.QoSDefault)
	if err != nil {
		t.Fatal(err)
	}
	next := sub.ArmNext(ctx)
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	got := make(chan std_msgs.String, 1)
	go func() {
		m, err := next.Wait(ctx)
		if err == nil {
			got <- m
		}
		close(got)
	}()
	for {
		if err := pub.Publish(ctx, &std_msgs.String{Data: "over tls"}); err != nil {
			t.Fatal(err)
		}
		select {
		case m, ok := <-got:
			if !ok || m.Data != "over tls" {
				t.Fatalf("got %v", m)
			}
			return
		case <-tick.C: // until discovery has matched them: no signal across processes
		case <-ctx.Done():
			t.Fatal("no message over the secure router")
		}
	}
}
