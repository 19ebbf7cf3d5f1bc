package ros

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/afor-go/afor/transport/zenoh"
)

func TestZenohConfigFromEnv(t *testing.T) {
	env := func(kv ...string) func(string) string {
		return func(k string) string {
			for i := 0; i+1 < len(kv); i += 2 {
				if kv[i] == k {
					return kv[i+1]
				}
			}
			return ""
		}
	}
	c, err := zenohConfigFromEnv(env())
	if err != nil || !slices.Equal(c.Connect, []string{"tcp/localhost:7447"}) || !slices.Equal(c.Listen, []string{"tcp/localhost:0"}) {
		t.Fatalf("defaults: %+v %v", c, err)
	}
	c, err = zenohConfigFromEnv(env(EnvZenohConfigOverride, `mode="client";connect/endpoints=["tls/router:7447"]`))
	if err != nil || c.Mode != zenoh.ModeClient || !slices.Equal(c.Connect, []string{"tls/router:7447"}) || c.Listen != nil {
		t.Fatalf("override: %+v %v", c, err)
	}
	path := filepath.Join(t.TempDir(), "session.json5")
	if err := os.WriteFile(path, []byte(`{connect: {endpoints: ["tcp/base:7447"]}, transport: {link: {tls: {root_ca_certificate: "ca.pem"}}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	c, err = zenohConfigFromEnv(env(EnvZenohSessionConfig, "file://"+path, EnvZenohConfigOverride, `transport/auth/usrpwd/user="r";transport/auth/usrpwd/password="p"`))
	if err != nil || !slices.Equal(c.Connect, []string{"tcp/base:7447"}) || c.TLS.RootCAFile != "ca.pem" || c.Auth.User != "r" {
		t.Fatalf("file: %+v %v", c, err)
	}
	_, err = zenohConfigFromEnv(env(EnvZenohSessionConfig, path+".missing"))
	if !errors.Is(err, zenoh.ErrInvalidConfig) || !strings.Contains(err.Error(), EnvZenohSessionConfig) {
		t.Errorf("missing file: %v", err)
	}
	_, err = zenohConfigFromEnv(env(EnvZenohConfigOverride, `routing/peer/mode="linkstate"`))
	if !errors.Is(err, zenoh.ErrUnsupportedConfig) || !strings.Contains(err.Error(), EnvZenohConfigOverride) {
		t.Errorf("unsupported: %v", err)
	}
}
