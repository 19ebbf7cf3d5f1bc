package main

import (
	"errors"
	"fmt"
	"image/color"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"

	"github.com/afor-go/afor/bench/internal/scenario"
)

// writePlot draws the latency rows' distributions as complementary
// cumulative curves (the fraction of messages slower than x, both axes
// logarithmic), one line per row, so that medians and tails of afor, native
// and floor rows can be compared at a glance.
func writePlot(path string, rows []scenario.Result) error {
	if ext := strings.ToLower(filepath.Ext(path)); ext != ".png" && ext != ".svg" && ext != ".pdf" {
		return fmt.Errorf("%s: want a .png, .svg or .pdf file", path)
	}
	p := plot.New()
	p.Title.Text = "afor bench: one-way latency"
	p.X.Label.Text = "latency (µs)"
	p.Y.Label.Text = "fraction of messages slower"
	p.X.Scale, p.Y.Scale = plot.LogScale{}, plot.LogScale{}
	p.X.Tick.Marker, p.Y.Tick.Marker = plot.LogTicks{Prec: -1}, plot.LogTicks{Prec: -1}
	p.Legend.Left = true // the lower left corner stays empty
	p.Add(plotter.NewGrid())
	n := 0
	var transports []string // one colour per transport, one dash per mode
	for _, r := range rows {
		if r.Scenario != "latency" || len(r.Samples) == 0 {
			continue
		}
		line, err := plotter.NewLine(ccdf(r.Samples))
		if err != nil {
			return err
		}
		i := slices.Index(transports, r.Transport)
		if i < 0 {
			i, transports = len(transports), append(transports, r.Transport)
		}
		line.Width = vg.Points(1.5)
		switch r.Mode {
		case scenario.ModeFloor:
			line.Color = color.Gray{Y: uint8(30 + 60*(i%3))}
			line.Dashes = []vg.Length{vg.Points(2), vg.Points(2)}
		case scenario.ModeNative:
			line.Color = plotutil.Color(i)
			line.Dashes = []vg.Length{vg.Points(6), vg.Points(3)}
		default:
			line.Color = plotutil.Color(i)
		}
		p.Add(line)
		p.Legend.Add(fmt.Sprintf("%s %s (p50 %v)", r.Transport, r.Mode, r.Latency.P50.Round(10*time.Nanosecond)), line)
		n++
	}
	if n == 0 {
		return errors.New("no latency samples to plot: run the latency scenario")
	}
	return p.Save(8*vg.Inch, 5*vg.Inch, path)
}

// ccdf returns the points (latency in µs, fraction of samples above it),
// at most about 500 of them, thinning the body and keeping the tail.
func ccdf(samples []time.Duration) plotter.XYs {
	s := slices.Clone(samples)
	slices.Sort(s)
	n := len(s)
	step := max(1, n/500)
	var xy plotter.XYs
	for i := 0; i < n; i++ {
		if i%step != 0 && i < n-step {
			continue
		}
		frac := float64(n-i) / float64(n) // at or above s[i]; never 0 on a log axis
		xy = append(xy, plotter.XY{X: max(float64(s[i])/1e3, 1e-3), Y: frac})
	}
	return xy
}
