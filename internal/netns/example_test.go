package netns_test

import (
	"os"
	"testing"

	"github.com/afor-go/afor/internal/netns"
	"go.uber.org/goleak"
)

// A package whose tests need the namespace re-executes itself into it from
// TestMain; here composed with goleak, which calls os.Exit itself.
func ExampleExec() {
	testMain := func(m *testing.M) {
		if code, done := netns.Exec(); done {
			os.Exit(code) // the tests ran in the child
		}
		goleak.VerifyTestMain(m) // inside: run them here
	}
	_ = testMain
}

// Without goleak, Main does both steps.
func ExampleMain() {
	testMain := func(m *testing.M) { os.Exit(netns.Main(m)) }
	_ = testMain
}

// A test that sends DDS multicast asks for the namespace first: it skips
// (fails in CI) when the package's tests could not enter it.
func ExampleRequire() {
	testDiscovery := func(t *testing.T) {
		netns.Require(t)
		// ... join 239.255.0.1 on lo, start peers ...
	}
	_ = testDiscovery
}
