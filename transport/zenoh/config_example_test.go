package zenoh_test

import (
	"context"
	"errors"
	"fmt"
	"log"

	"github.com/afor-go/afor/transport/zenoh"
)

// A robot's session file, in the JSON5 format of Rust Zenoh and rmw_zenoh,
// with an override as ZENOH_CONFIG_OVERRIDE gives it.
func ExampleParseConfig() {
	file := []byte(`{
  mode: "peer",
  connect: { endpoints: ["tls/base.local:7447"] },
  transport: {
    link: { tls: { root_ca_certificate: "ca.pem" } },
    auth: { usrpwd: { user: "robot1", password: "s3cret" } },
  },
}`)
	cfg, err := zenoh.ParseConfig(file, `connect/endpoints=["quic/base.local:7447"]`)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(cfg.Mode, cfg.Connect, cfg.TLS.RootCAFile, cfg.Auth.User)

	_, err = zenoh.ParseConfig([]byte(`{routing: {peer: {mode: "linkstate"}}}`), "")
	fmt.Println(errors.Is(err, zenoh.ErrUnsupportedConfig))
	// Output:
	// peer [quic/base.local:7447] ca.pem robot1
	// true
}

// A robot joins a router over mutual TLS with a password.
func ExampleTLSConfig() {
	s, err := zenoh.Open(context.Background(), zenoh.Config{
		Mode:    zenoh.ModeClient,
		Connect: []string{"tls/base.local:7447"},
		TLS: zenoh.TLSConfig{
			RootCAFile:             "ca.pem",
			EnableMTLS:             true,
			ConnectCertificateFile: "robot1.pem",
			ConnectPrivateKeyFile:  "robot1.key",
		},
		Auth: zenoh.AuthConfig{User: "robot1", Password: "s3cret"},
	})
	if errors.Is(err, zenoh.ErrAuth) {
		log.Fatal("the router refused the password: ", err)
	}
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close()
}
