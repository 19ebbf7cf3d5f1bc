package zenoh

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// robotConfig is a session configuration in the style of rmw_zenoh's
// (comments, unquoted keys, trailing commas, per-mode values, nulls), with
// TLS and a password.
const robotConfig = `/// A robot's session.
{
  mode: "peer",
  // id: "1234",
  connect: {
    timeout_ms: { router: -1, peer: -1, client: 0 },
    endpoints: { peer: ["tls/base.local:7447"], client: ["tls/cloud:7447"] },
    exit_on_failure: { router: false, peer: false, client: true },
    retry: { period_init_ms: 500, period_max_ms: 4000, period_increase_factor: 2, },
  },
  listen: { timeout_ms: 0, endpoints: ["tcp/localhost:0"], exit_on_failure: true },
  open: { return_conditions: { connect_scouted: true, declares: true } },
  scouting: {
    timeout: 3000, delay: 500,
    multicast: { enabled: false, address: "224.0.0.224:7446", interface: "auto", ttl: 1,
      autoconnect: { router: [], peer: ["router", "peer"], client: ["router"] }, listen: true },
    gossip: {
      enabled: true, multihop: false,
      target: { router: ["router", "peer"], peer: ["router"] },
      autoconnect: { router: [], peer: ["router", "peer"] },
      autoconnect_strategy: { peer: { to_router: "always", to_peer: "greater-zid" } },
    },
  },
  timestamping: { enabled: { router: true, peer: true, client: true }, drop_future_timestamp: false },
  queries_default_timeout: 600000,
  routing: { router: { peers_failover_brokering: true, linkstate: {} }, peer: { mode: "peer_to_peer" }, interests: { timeout: 10000 } },
  transport: {
    unicast: { open_timeout: 60000, accept_timeout: 60000, accept_pending: 100, max_sessions: 1000, max_links: 1,
      lowlatency: false, qos: { enabled: true }, compression: { enabled: false } },
    link: {
      tx: { sequence_number_resolution: "32bit", lease: 60000, keep_alive: 2, batch_size: 65535,
        queue: { size: { control: 2, data: 2 }, batching: { enabled: true, time_limit: 1 } } },
      rx: { buffer_size: 65535, max_message_size: 0x4000000 },
      tls: {
        root_ca_certificate: 'ca.pem',
        listen_private_key: null, listen_certificate: null,
        enable_mtls: true,
        connect_private_key: "robot.key", connect_certificate: "robot.pem",
        verify_name_on_connect: true, close_link_on_expiration: false,
      },
    },
    shared_memory: { enabled: false, mode: "lazy" },
    auth: { usrpwd: { user: "robot", password: "s3cret", dictionary_file: null },
      pubkey: { public_key_pem: null, private_key_pem: null } },
  },
  adminspace: { enabled: true, permissions: { read: true, write: false } },
}
`

func TestParseConfig(t *testing.T) {
	c, err := ParseConfig([]byte(robotConfig), "")
	if err != nil {
		t.Fatal(err)
	}
	want := Config{
		Connect: []string{"tls/base.local:7447"}, Listen: []string{"tcp/localhost:0"},
		RetryInterval: 500 * time.Millisecond, Lease: time.Minute, KeepAlive: 30 * time.Second,
		BatchSize: 65535, MaxMessageSize: 64 << 20,
		Scouting: ScoutingConfig{Address: "224.0.0.224:7446", Timeout: 3 * time.Second},
		Gossip:   GossipConfig{Target: []Role{RoleRouter}, Autoconnect: []Role{RoleRouter, RolePeer}, ToPeer: AutoconnectGreaterZID},
		Limits:   Limits{MaxHandshakes: 100, MaxLinks: 1000},
		TLS:      TLSConfig{RootCAFile: "ca.pem", EnableMTLS: true, ConnectPrivateKeyFile: "robot.key", ConnectCertificateFile: "robot.pem"},
		Auth:     AuthConfig{User: "robot", Password: "s3cret"},
	}
	if !slices.Equal(c.Connect, want.Connect) || !slices.Equal(c.Listen, want.Listen) || c.RetryInterval != want.RetryInterval ||
		c.Lease != want.Lease || c.KeepAlive != want.KeepAlive || c.BatchSize != want.BatchSize || c.MaxMessageSize != want.MaxMessageSize ||
		c.Scouting != want.Scouting || !slices.Equal(c.Gossip.Target, want.Gossip.Target) ||
		!slices.Equal(c.Gossip.Autoconnect, want.Gossip.Autoconnect) || c.Gossip.ToPeer != want.Gossip.ToPeer ||
		c.Limits != want.Limits || c.TLS.RootCAFile != want.TLS.RootCAFile || !c.TLS.EnableMTLS ||
		c.TLS.ConnectCertificateFile != want.TLS.ConnectCertificateFile || c.Auth.User != "robot" || c.Auth.Password != "s3cret" ||
		c.Mode != ModePeer || c.ConnectExitOnFailure {
		t.Fatalf("got  %+v\nwant %+v", c, want)
	}

	// ZENOH_CONFIG_OVERRIDE: per-mode values follow the new mode, and a
	// ';' inside a value is not a separator.
	c, err = ParseConfig([]byte(robotConfig), `mode="client";connect/endpoints=["quic/[::1]:7447?rel=1;multistream=0"];id="ab12"`)
	if err != nil {
		t.Fatal(err)
	}
	if c.Mode != ModeClient || !slices.Equal(c.Connect, []string{"quic/[::1]:7447?rel=1;multistream=0"}) || !c.ConnectExitOnFailure || c.Listen != nil ||
		!slices.Equal(c.ZID, []byte{0x12, 0xab}) {
		t.Fatalf("override: %+v", c)
	}
	// Only an override.
	c, err = ParseConfig(nil, "transport/link/tls/root_ca_certificate='x.pem'")
	if err != nil || c.TLS.RootCAFile != "x.pem" {
		t.Fatalf("%+v %v", c.TLS, err)
	}
}

func TestParseConfigErrors(t *testing.T) {
	for _, c := range []struct{ data, override, want string }{
		{`{mode: "router"}`, "", `mode "router"`},
		{`{routing: {peer: {mode: "linkstate"}}}`, "", "routing/peer/mode=linkstate"},
		{`{transport: {unicast: {compression: {enabled: true}}}}`, "", "transport/unicast/compression/enabled"},
		{`{bogus: 1, scouting: {gossip: {whatever: []}}}`, "", "bogus, scouting/gossip/whatever"},
		{`{access_control: {enabled: true}}`, "", "access_control/enabled"},
		{`{transport: {auth: {pubkey: {public_key_file: "k.pem"}}}}`, "", "transport/auth/pubkey/public_key_file"},
	} {
		_, err := ParseConfig([]byte(c.data), c.override)
		if !errors.Is(err, ErrUnsupportedConfig) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want ErrUnsupportedConfig naming %s", c.data, err, c.want)
		}
	}
	for _, c := range []struct{ data, override, want string }{
		{`{mode: 1}`, "", "mode"},
		{`{mode: "peer"`, "", "line 1 column 14"},
		{"{\n  a: 1,\n  a: 2}", "", `line 3 column 3: key "a" given twice`},
		{`[1]`, "", "not an object"},
		{`{connect: {endpoints: "tcp/x:1"}}`, "", "connect/endpoints: want a list"},
		{`{transport: {link: {tx: {lease: 1.5}}}}`, "", "transport/link/tx/lease"},
		{`{id: "xyz"}`, "", "id"},
		{`{}`, "mode", "want path=value"},
		{`{}`, "mode=[", "override: mode"},
		{`{scouting: {gossip: {target: ["robot"]}}}`, "", `"robot"`},
		{strings.Repeat("[", 100), "", "nested deeper"},
	} {
		_, err := ParseConfig([]byte(c.data), c.override)
		if !errors.Is(err, ErrInvalidConfig) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q %q: got %v, want ErrInvalidConfig with %s", c.data, c.override, err, c.want)
		}
	}
	path := filepath.Join(t.TempDir(), "bad.json5")
	if err := os.WriteFile(path, []byte("{mode: peer}"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadConfig(path, ""); !errors.Is(err, ErrInvalidConfig) || !strings.Contains(err.Error(), path) {
		t.Errorf("LoadConfig: %v", err)
	}
}

func TestParseJSON5(t *testing.T) {
	v, err := parseJSON5([]byte(`// c
	{ 'a': "x\u0041\n", b: [0x10, -1.5e1, +2, .5, Infinity,], /* d */ c: null, $d: true }`))
	if err != nil {
		t.Fatal(err)
	}
	m := v.(map[string]any)
	if m["a"] != "xA\n" || m["c"] != nil || m["$d"] != true {
		t.Fatalf("%v", m)
	}
	b := m["b"].([]any)
	if b[0] != 16.0 || b[1] != -15.0 || b[2] != 2.0 || b[3] != 0.5 {
		t.Fatalf("%v", b)
	}
	for _, in := range []string{"", "{", "{a}", "{a:1,,}", "[1 2]", `"abc`, "/* x", "01x", "--1", "{a:1} x", "'\n'", "inf"} {
		if _, err := parseJSON5([]byte(in)); err == nil {
			t.Errorf("%q parsed", in)
		}
	}
}

// FuzzParseConfig: any configuration and override decode or fail with a
// configuration error, never panic.
func FuzzParseConfig(f *testing.F) {
	f.Add([]byte(robotConfig), "")
	f.Add([]byte(`{mode: "client", connect: {endpoints: ["tcp/h:1"]}}`), `mode="peer";listen/endpoints=["tls/[::]:0"]`)
	f.Add([]byte(`{a: [1, {b: 'c'}], /* x */}`), "a/b=0x10")
	f.Add([]byte(`[[[[{}]]]]`), ";;")
	f.Fuzz(func(t *testing.T, data []byte, override string) {
		_, err := ParseConfig(data, override)
		if err != nil && !errors.Is(err, ErrInvalidConfig) && !errors.Is(err, ErrUnsupportedConfig) {
			t.Fatalf("%v", err)
		}
	})
}
