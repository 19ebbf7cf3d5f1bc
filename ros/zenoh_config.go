package ros

import (
	"fmt"
	"strings"

	"github.com/afor-go/afor/transport/zenoh"
)

// The environment variables with which rmw_zenoh configures its session.
const (
	// EnvZenohSessionConfig names a JSON5 session configuration file in
	// Rust Zenoh's format (see zenoh.ParseConfig for the keys honoured).
	EnvZenohSessionConfig = "ZENOH_SESSION_CONFIG_URI"
	// EnvZenohConfigOverride overrides keys of the configuration:
	// "path=value" pairs separated by ';', values in JSON5
	// (`mode="client";connect/endpoints=["tls/router:7447"]`).
	EnvZenohConfigOverride = "ZENOH_CONFIG_OVERRIDE"
)

// rmwZenohDefaults is the part of rmw_zenoh's default session
// configuration that ZENOH_CONFIG_OVERRIDE applies to when no file is
// named; the rest of its defaults (lease, gossip) come from the
// middleware (ros/internal/rmwzenoh).
const rmwZenohDefaults = `{mode: "peer", connect: {endpoints: ["tcp/localhost:7447"]}, listen: {endpoints: ["tcp/localhost:0"]}}`

// zenohConfigFromEnv returns the session configuration rmw_zenoh would
// use in the environment getenv reads: the file EnvZenohSessionConfig
// names (a path or a file:// URI), else rmw_zenoh's defaults, with the
// overrides of EnvZenohConfigOverride. Errors name the variable.
func zenohConfigFromEnv(getenv func(string) string) (zenoh.Config, error) {
	override := getenv(EnvZenohConfigOverride)
	uri := getenv(EnvZenohSessionConfig)
	if uri == "" {
		c, err := zenoh.ParseConfig([]byte(rmwZenohDefaults), override)
		if err != nil {
			return zenoh.Config{}, fmt.Errorf("ros: %s: %w", EnvZenohConfigOverride, err)
		}
		return c, nil
	}
	c, err := zenoh.LoadConfig(strings.TrimPrefix(uri, "file://"), override)
	if err != nil {
		what := EnvZenohSessionConfig
		if override != "" {
			what += " with " + EnvZenohConfigOverride
		}
		return zenoh.Config{}, fmt.Errorf("ros: %s: %w", what, err)
	}
	return c, nil
}
