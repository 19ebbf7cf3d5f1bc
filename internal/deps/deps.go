//go:build tools

// Package deps pins test-only module dependencies in go.mod.
package deps

import (
	_ "go.uber.org/goleak"
	_ "golang.org/x/sync/errgroup"
)
