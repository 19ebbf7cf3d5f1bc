//go:build !linux

package afor

import (
	"errors"
	"time"
)

// kernelTicker is a periodic kernel timer; only Linux has one here, other
// platforms use Go's timers.
type kernelTicker struct{}

func newKernelTicker(time.Time, time.Duration) (*kernelTicker, error) {
	return nil, errors.ErrUnsupported
}

func (*kernelTicker) wait() (uint64, error) { return 0, errors.ErrUnsupported }

func (*kernelTicker) close() {}
