//go:build !afor_plot

package main

import (
	"errors"

	"github.com/afor-go/afor/bench/internal/scenario"
)

// plotTag is the build tag that enables -plot.
const plotTag = "afor_plot"

// writePlot is unavailable in this build: -plot needs gonum.org/v1/plot.
func writePlot(string, []scenario.Result) error {
	return errors.New("this build has no plotting: go get gonum.org/v1/plot@v0.17.0, then run with go run -tags " + plotTag + " ./bench")
}
