package zenoh

import (
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"os"
	"slices"
	"strings"
	"time"
)

// ErrUnsupportedConfig reports a key of a configuration file that this
// implementation does not honour; the error names it.
var ErrUnsupportedConfig = errors.New("zenoh: unsupported configuration")

// LoadConfig reads a session configuration file in Rust Zenoh's JSON5
// format (the files rmw_zenoh's ZENOH_SESSION_CONFIG_URI names), then
// applies override; see ParseConfig. Errors name the file.
func LoadConfig(path, override string) (Config, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Config{}, fmt.Errorf("%w: %w", ErrInvalidConfig, err)
	}
	c, err := ParseConfig(data, override)
	if err != nil {
		return Config{}, fmt.Errorf("%s: %w", path, err)
	}
	return c, nil
}

// ParseConfig decodes a session configuration in Rust Zenoh's JSON5 format
// and applies override, in ZENOH_CONFIG_OVERRIDE's syntax: "path=value"
// pairs separated by ';', each path a '/'-separated list of keys and each
// value JSON5 ("mode=\"client\";connect/endpoints=[\"tls/robot:7447\"]").
// Empty data is an empty configuration.
//
// The keys honoured are: id, mode (peer or client), connect/endpoints,
// connect/timeout_ms, connect/exit_on_failure,
// connect/retry/period_init_ms, listen/endpoints, scouting/timeout,
// scouting/multicast/{enabled,address,interface},
// scouting/gossip/{enabled,target,autoconnect,autoconnect_strategy},
// transport/unicast/{accept_pending,max_sessions},
// transport/link/tx/{lease,keep_alive,batch_size},
// transport/link/rx/max_message_size, transport/link/tls/* (see
// TLSConfig) and transport/auth/usrpwd/*; the values a per-mode object
// gives ({router: ..., peer: ..., client: ...}) are those of the mode.
// A client ignores listen/endpoints. Keys that tune Rust Zenoh's internals (queues, threads, timeouts of its
// handshakes, shared memory, timestamping, the admin space) are accepted
// and have no effect. A key that would change behaviour this
// implementation does not have (router mode, linkstate routing,
// compression, low latency, access control, ...) is refused with
// ErrUnsupportedConfig, naming it; a null value is the same as no value.
func ParseConfig(data []byte, override string) (Config, error) {
	bad := func(err error) (Config, error) { return Config{}, fmt.Errorf("%w: %w", ErrInvalidConfig, err) }
	var tree map[string]any
	if strings.TrimSpace(string(data)) != "" {
		v, err := parseJSON5(data)
		if err != nil {
			return bad(err)
		}
		m, ok := v.(map[string]any)
		if !ok {
			return bad(errors.New("the configuration is not an object"))
		}
		tree = m
	} else {
		tree = make(map[string]any)
	}
	if err := applyOverride(tree, override); err != nil {
		return bad(fmt.Errorf("override: %w", err))
	}
	leaves := make(map[string]any)
	flatten("", tree, leaves)
	mode := "peer"
	if v, ok := leaves["mode"]; ok {
		s, ok := v.(string)
		if !ok {
			return bad(errors.New("mode: want a string"))
		}
		mode = s
	}
	var c Config
	switch mode {
	case "peer":
	case "client":
		c.Mode = ModeClient
	case "router":
		return Config{}, fmt.Errorf("%w: mode \"router\" (afor runs peers and clients; use a Rust zenohd as router)", ErrUnsupportedConfig)
	default:
		return bad(fmt.Errorf("mode %q: want peer or client", mode))
	}
	leaves = forMode(leaves, mode)
	if c.Mode == ModeClient {
		// A client does not listen: as Rust Zenoh, ignore listen/endpoints
		// (rmw_zenoh's files give them for every mode).
		delete(leaves, "listen/endpoints")
	}
	keys := make([]string, 0, len(leaves))
	for k := range leaves {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var unsupported []string
	var errs []error
	keepAlives := 0.0
	for _, k := range keys {
		v := leaves[k]
		if alias, ok := configAliases[k]; ok {
			k = alias
		}
		if k == "transport/link/tx/keep_alive" {
			n, err := number(v, 1, 1<<20)
			if err != nil {
				errs = append(errs, fmt.Errorf("%s: %w", k, err))
			}
			keepAlives = n
			continue
		}
		if h, ok := configKeys[k]; ok {
			if err := h(&c, v); err != nil {
				errs = append(errs, fmt.Errorf("%s: %w", k, err))
			}
			continue
		}
		if want, ok := configFixed[k]; ok {
			if fmt.Sprint(v) != fmt.Sprint(want) {
				unsupported = append(unsupported, fmt.Sprintf("%s=%v (only %v)", k, v, want))
			}
			continue
		}
		if ignoredKey(k) {
			continue
		}
		unsupported = append(unsupported, k)
	}
	if len(errs) > 0 {
		return bad(errors.Join(errs...))
	}
	if len(unsupported) > 0 {
		return Config{}, fmt.Errorf("%w: %s", ErrUnsupportedConfig, strings.Join(unsupported, ", "))
	}
	if keepAlives > 0 {
		lease := c.Lease
		if lease == 0 {
			lease = DefaultLease
		}
		c.KeepAlive = time.Duration(float64(lease) / keepAlives).Truncate(time.Millisecond)
	}
	return c, nil
}

// applyOverride sets the "path=value;..." pairs of override in tree.
func applyOverride(tree map[string]any, override string) error {
	for _, kv := range splitOverride(override) {
		if strings.TrimSpace(kv) == "" {
			continue
		}
		path, val, ok := strings.Cut(kv, "=")
		path = strings.Trim(strings.TrimSpace(path), "/")
		if !ok || path == "" {
			return fmt.Errorf("%q: want path=value", kv)
		}
		v, err := parseJSON5([]byte(val))
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		parts := strings.Split(path, "/")
		node := tree
		for _, p := range parts[:len(parts)-1] {
			next, ok := node[p].(map[string]any)
			if !ok {
				next = make(map[string]any)
				node[p] = next
			}
			node = next
		}
		node[parts[len(parts)-1]] = v
	}
	return nil
}

// splitOverride splits at the ';' outside strings and brackets (an
// endpoint's metadata has ';' too).
func splitOverride(s string) []string {
	var out []string
	depth, start := 0, 0
	var quote byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote != 0:
			if c == '\\' {
				i++
			} else if c == quote {
				quote = 0
			}
		case c == '"' || c == '\'':
			quote = c
		case c == '[' || c == '{':
			depth++
		case c == ']' || c == '}':
			depth--
		case c == ';' && depth <= 0:
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	return append(out, s[start:])
}

// flatten lists the leaves of v (values that are not objects, null
// excepted) under their '/'-separated paths.
func flatten(prefix string, v any, out map[string]any) {
	switch v := v.(type) {
	case map[string]any:
		for k, sub := range v {
			p := k
			if prefix != "" {
				p = prefix + "/" + k
			}
			flatten(p, sub, out)
		}
	case nil:
	default:
		out[prefix] = v
	}
}

// perMode lists the keys whose value may be given per mode.
var perMode = []string{
	"connect/endpoints", "connect/timeout_ms", "connect/exit_on_failure",
	"listen/endpoints", "listen/timeout_ms", "listen/exit_on_failure",
	"timestamping/enabled", "scouting/multicast/autoconnect", "scouting/multicast/autoconnect_strategy",
	"scouting/gossip/target", "scouting/gossip/autoconnect", "scouting/gossip/autoconnect_strategy",
}

// forMode keeps, of the per-mode values, those of mode.
func forMode(leaves map[string]any, mode string) map[string]any {
	out := make(map[string]any, len(leaves))
	for k, v := range leaves {
		for _, pm := range perMode {
			rest, ok := strings.CutPrefix(k, pm+"/")
			if !ok {
				continue
			}
			role, tail, _ := strings.Cut(rest, "/")
			if role == "router" || role == "peer" || role == "client" {
				if role != mode {
					k = ""
				} else if tail == "" {
					k = pm
				} else {
					k = pm + "/" + tail
				}
			}
			break
		}
		if k != "" {
			out[k] = v
		}
	}
	return out
}

// configAliases maps the TLS keys of Zenoh before 1.0 (which older
// rmw_zenoh files use) to their names now.
var configAliases = map[string]string{
	"transport/link/tls/server_private_key":       "transport/link/tls/listen_private_key",
	"transport/link/tls/server_certificate":       "transport/link/tls/listen_certificate",
	"transport/link/tls/client_auth":              "transport/link/tls/enable_mtls",
	"transport/link/tls/client_private_key":       "transport/link/tls/connect_private_key",
	"transport/link/tls/client_certificate":       "transport/link/tls/connect_certificate",
	"transport/link/tls/server_name_verification": "transport/link/tls/verify_name_on_connect",
}

// configFixed lists keys accepted with the one value that is this
// implementation's behaviour.
var configFixed = map[string]any{
	"listen/exit_on_failure":                         true,
	"routing/peer/mode":                              "peer_to_peer",
	"transport/unicast/max_links":                    1.0,
	"transport/unicast/lowlatency":                   false,
	"transport/unicast/qos/enabled":                  true,
	"transport/unicast/compression/enabled":          false,
	"transport/shared_memory/enabled":                false,
	"scouting/gossip/multihop":                       false,
	"scouting/gossip/autoconnect_strategy/to_router": "always",
	"plugins_loading/enabled":                        false,
	"access_control/enabled":                         false,
}

// ignoredPrefixes are the keys (and the subtrees) that tune Rust Zenoh's
// internals: accepted, without effect here.
var ignoredPrefixes = []string{
	"connect/retry/period_max_ms", "connect/retry/period_increase_factor",
	"listen/timeout_ms", "listen/retry/", "open/return_conditions/",
	"scouting/delay", "scouting/multicast/ttl", "scouting/multicast/autoconnect", "scouting/multicast/listen",
	"timestamping/", "queries_default_timeout", "routing/router/", "routing/interests/",
	"routing/peer/linkstate/", "transport/unicast/open_timeout", "transport/unicast/accept_timeout",
	"transport/multicast/", "transport/link/tx/sequence_number_resolution", "transport/link/tx/queue/",
	"transport/link/tx/threads", "transport/link/tx/queue", "transport/link/rx/buffer_size", "transport/shared_memory/mode",
	"transport/shared_memory/transport_optimization/", "adminspace/", "metadata/",
}

func ignoredKey(k string) bool {
	for _, p := range ignoredPrefixes {
		if k == strings.TrimSuffix(p, "/") || strings.HasPrefix(k, p) {
			return true
		}
	}
	return false
}

// configKeys maps the keys honoured to what they set.
var configKeys = map[string]func(c *Config, v any) error{
	"id": func(c *Config, v any) error {
		s, err := str(v)
		if err != nil {
			return err
		}
		if len(s)%2 == 1 {
			s = "0" + s
		}
		b, err := hex.DecodeString(s)
		if err != nil || len(b) == 0 || len(b) > 16 {
			return fmt.Errorf("want 1 to 32 hexadecimal digits")
		}
		slices.Reverse(b)
		c.ZID = b
		return nil
	},
	"mode":              func(*Config, any) error { return nil }, // read first
	"connect/endpoints": func(c *Config, v any) (err error) { c.Connect, err = strs(v); return },
	"listen/endpoints":  func(c *Config, v any) (err error) { c.Listen, err = strs(v); return },
	"connect/timeout_ms": func(c *Config, v any) error {
		n, err := number(v, -1, math.MaxInt32)
		if n >= 0 {
			// -1 (no limit): Open returns after the first attempt and the
			// session keeps dialling in the background.
			c.ConnectTimeout = time.Duration(n) * time.Millisecond
		}
		return err
	},
	"connect/exit_on_failure":      func(c *Config, v any) (err error) { c.ConnectExitOnFailure, err = boolean(v); return },
	"connect/retry/period_init_ms": millis(func(c *Config) *time.Duration { return &c.RetryInterval }),
	"scouting/timeout":             millis(func(c *Config) *time.Duration { return &c.Scouting.Timeout }),
	"scouting/multicast/enabled":   func(c *Config, v any) (err error) { c.Scouting.Multicast, err = boolean(v); return },
	"scouting/multicast/address":   func(c *Config, v any) (err error) { c.Scouting.Address, err = str(v); return },
	"scouting/multicast/interface": func(c *Config, v any) error {
		s, err := str(v)
		if s != "auto" {
			c.Scouting.Interface = s
		}
		return err
	},
	"scouting/gossip/enabled": func(c *Config, v any) error {
		b, err := boolean(v)
		c.Gossip.Disabled = !b
		return err
	},
	"scouting/gossip/target":      func(c *Config, v any) (err error) { c.Gossip.Target, err = roles(v); return },
	"scouting/gossip/autoconnect": func(c *Config, v any) (err error) { c.Gossip.Autoconnect, err = roles(v); return },
	"scouting/gossip/autoconnect_strategy/to_peer": func(c *Config, v any) error {
		s, err := str(v)
		switch {
		case err != nil:
			return err
		case s == "always":
			c.Gossip.ToPeer = AutoconnectAlways
		case s == "greater-zid":
			c.Gossip.ToPeer = AutoconnectGreaterZID
		default:
			return fmt.Errorf("%q: want always or greater-zid", s)
		}
		return nil
	},
	"transport/unicast/accept_pending":              intField(func(c *Config) *int { return &c.Limits.MaxHandshakes }),
	"transport/unicast/max_sessions":                intField(func(c *Config) *int { return &c.Limits.MaxLinks }),
	"transport/link/tx/lease":                       millis(func(c *Config) *time.Duration { return &c.Lease }),
	"transport/link/tx/batch_size":                  intField(func(c *Config) *int { return &c.BatchSize }),
	"transport/link/rx/max_message_size":            intField(func(c *Config) *int { return &c.MaxMessageSize }),
	"transport/link/tls/root_ca_certificate":        pathField(func(c *Config) *string { return &c.TLS.RootCAFile }),
	"transport/link/tls/listen_private_key":         pathField(func(c *Config) *string { return &c.TLS.ListenPrivateKeyFile }),
	"transport/link/tls/listen_certificate":         pathField(func(c *Config) *string { return &c.TLS.ListenCertificateFile }),
	"transport/link/tls/connect_private_key":        pathField(func(c *Config) *string { return &c.TLS.ConnectPrivateKeyFile }),
	"transport/link/tls/connect_certificate":        pathField(func(c *Config) *string { return &c.TLS.ConnectCertificateFile }),
	"transport/link/tls/root_ca_certificate_base64": b64Field(func(c *Config) *[]byte { return &c.TLS.RootCA }),
	"transport/link/tls/listen_private_key_base64":  b64Field(func(c *Config) *[]byte { return &c.TLS.ListenPrivateKey }),
	"transport/link/tls/listen_certificate_base64":  b64Field(func(c *Config) *[]byte { return &c.TLS.ListenCertificate }),
	"transport/link/tls/connect_private_key_base64": b64Field(func(c *Config) *[]byte { return &c.TLS.ConnectPrivateKey }),
	"transport/link/tls/connect_certificate_base64": b64Field(func(c *Config) *[]byte { return &c.TLS.ConnectCertificate }),
	"transport/link/tls/enable_mtls":                func(c *Config, v any) (err error) { c.TLS.EnableMTLS, err = boolean(v); return },
	"transport/link/tls/verify_name_on_connect": func(c *Config, v any) error {
		b, err := boolean(v)
		c.TLS.SkipNameVerification = !b
		return err
	},
	"transport/link/tls/close_link_on_expiration": func(c *Config, v any) (err error) { c.TLS.CloseLinkOnExpiration, err = boolean(v); return },
	"transport/auth/usrpwd/user":                  func(c *Config, v any) (err error) { c.Auth.User, err = str(v); return },
	"transport/auth/usrpwd/password":              func(c *Config, v any) (err error) { c.Auth.Password, err = str(v); return },
	"transport/auth/usrpwd/dictionary_file":       pathField(func(c *Config) *string { return &c.Auth.DictionaryFile }),
}

func str(v any) (string, error) {
	s, ok := v.(string)
	if !ok {
		return "", fmt.Errorf("want a string, got %v", v)
	}
	return s, nil
}

func boolean(v any) (bool, error) {
	b, ok := v.(bool)
	if !ok {
		return false, fmt.Errorf("want true or false, got %v", v)
	}
	return b, nil
}

// number returns v, a whole number within [lo, hi].
func number(v any, lo, hi float64) (float64, error) {
	f, ok := v.(float64)
	if !ok || f != math.Trunc(f) || f < lo || f > hi {
		return 0, fmt.Errorf("want a whole number from %v to %v, got %v", lo, hi, v)
	}
	return f, nil
}

func strs(v any) ([]string, error) {
	a, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("want a list of strings, got %v", v)
	}
	out := make([]string, 0, len(a))
	for _, e := range a {
		s, err := str(e)
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, nil
}

// roles reads a list of roles, or (Zenoh before 1.0) a string of them
// separated by '|'.
func roles(v any) ([]Role, error) {
	var names []string
	if s, ok := v.(string); ok {
		if s != "" {
			names = strings.Split(s, "|")
		}
	} else {
		var err error
		if names, err = strs(v); err != nil {
			return nil, err
		}
	}
	out := []Role{}
	for _, n := range names {
		switch n {
		case "router":
			out = append(out, RoleRouter)
		case "peer":
			out = append(out, RolePeer)
		case "client":
			out = append(out, RoleClient)
		default:
			return nil, fmt.Errorf("%q: want router, peer or client", n)
		}
	}
	return out, nil
}

func millis(field func(*Config) *time.Duration) func(*Config, any) error {
	return func(c *Config, v any) error {
		n, err := number(v, 0, math.MaxInt32)
		*field(c) = time.Duration(n) * time.Millisecond
		return err
	}
}

func intField(field func(*Config) *int) func(*Config, any) error {
	return func(c *Config, v any) error {
		n, err := number(v, 0, math.MaxInt32)
		*field(c) = int(n)
		return err
	}
}

func pathField(field func(*Config) *string) func(*Config, any) error {
	return func(c *Config, v any) (err error) { *field(c), err = str(v); return }
}

func b64Field(field func(*Config) *[]byte) func(*Config, any) error {
	return func(c *Config, v any) error {
		s, err := str(v)
		if err != nil {
			return err
		}
		b, err := base64.StdEncoding.DecodeString(s)
		*field(c) = b
		return err
	}
}
