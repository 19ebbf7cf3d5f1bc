//go:build !linux

package netns

import (
	"errors"
	"runtime"
)

// errUnsupported: network namespaces are Linux's.
var errUnsupported = errors.New("netns: network namespaces need Linux, not " + runtime.GOOS)

func reexec() (int, error) { return 0, errUnsupported }

func setupLoopback() error { return errUnsupported }
