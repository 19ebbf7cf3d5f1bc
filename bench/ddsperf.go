package main

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/afor-go/afor/bench/internal/scenario"
)

// The ddsperf scenario's sizes (ddsperf's "size": the KeyedSeq's 12 fixed
// bytes and the baggage).
var (
	ddsperfPingSizes = []int{64, 4096, 65536}
	ddsperfPubSizes  = []int{16, 4096, 65536, 1 << 20}
)

// ddsperfRows are the rows of the ddsperf scenario: every pattern and size
// for the four pairs of Go and Cyclone sides (-short: 64 B ping/pong and 4
// KiB pub/sub, Go-Go and Cyclone-Go).
func ddsperfRows(cfg Config) []row {
	pings, pubs, pairs := ddsperfPingSizes, ddsperfPubSizes, scenario.DDSPerfPairs()
	if cfg.Short {
		pings, pubs = []int{64}, []int{4096}
		pairs = []scenario.DDSPerfPair{{Active: scenario.SideGo, Passive: scenario.SideGo}, {Active: scenario.SideCyclone, Passive: scenario.SideGo}}
	}
	var rows []row
	add := func(pattern scenario.Mode, sizes []int) {
		for _, size := range sizes {
			for _, pair := range pairs {
				rows = append(rows, row{fmt.Sprintf("ddsperf/%s/%s/%dB", pair.Name(), pattern, size),
					func(ctx context.Context, _ scenario.Progress) scenario.Result {
						return scenario.RunDDSPerfPair(ctx, pair, pattern, size, cfg.Duration)
					}})
			}
		}
	}
	add(scenario.ModePingPong, pings)
	add(scenario.ModePubSub, pubs)
	return rows
}

// ddsperfTitle is the ddsperf table's title.
func ddsperfTitle(c Config) string {
	return fmt.Sprintf("ddsperf: Cyclone DDS's benchmark pattern on both sides, two processes each; go = bench/internal/ddsperf on transport/dds, "+
		"cyclone = Cyclone's ddsperf (C); %d measured s per run after a warm-up second; cpu: both processes, whole run, %% of one core", ddsperfMeasured(c.Duration))
}

func ddsperfMeasured(d time.Duration) int { return max(2, int((d+time.Second-1)/time.Second)) }

// writeDDSPerf prints the ddsperf table: per row what it does, its time
// per operation, and its ratio to the Cyclone-Cyclone row (and, for the
// mixed rows, to the faster pure row).
func (r *Report) writeDDSPerf(tw io.Writer, rows []scenario.Result) {
	fmt.Fprintln(tw, "what\tsize\trate\tper op\tspread\tcpu\t/cyclone-cyclone\t/faster pure\t")
	for _, res := range rows {
		what := fmt.Sprintf("%s %s -> %s %s", sideOf(res.Transport, 0), active(res.Mode), sideOf(res.Transport, 1), passive(res.Mode))
		perOp, vsCyc, vsPure := status(res), "-", "-"
		if ok(&res) {
			perOp = dur(res.NsPerOp)
			if res.Mode == scenario.ModePingPong {
				perOp += " rt"
			}
			if c := r.get("ddsperf", "cyclone-cyclone", res.Mode, res.Size); c != nil {
				vsCyc = x(res.NsPerOp / c.NsPerOp)
			}
			g, c := r.get("ddsperf", "go-go", res.Mode, res.Size), r.get("ddsperf", "cyclone-cyclone", res.Mode, res.Size)
			if mixed := res.Transport == "go-cyclone" || res.Transport == "cyclone-go"; mixed && g != nil && c != nil {
				vsPure = x(res.NsPerOp / min(g.NsPerOp, c.NsPerOp))
			}
		}
		unit := "rt/s"
		if res.Mode == scenario.ModePubSub {
			unit = "msg/s"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s %s\t%s\t%s\t%s\t%s\t%s\t\n", what, size(res), rate(res.Rate), unit, perOp, spread(res), cpu(res), vsCyc, vsPure)
	}
}

// sideOf returns side i (0 active, 1 passive) of a pair name such as
// "go-cyclone".
func sideOf(pair string, i int) string {
	for _, p := range scenario.DDSPerfPairs() {
		if p.Name() == pair {
			if i == 0 {
				return string(p.Active)
			}
			return string(p.Passive)
		}
	}
	return "?"
}

func active(m scenario.Mode) string {
	if m == scenario.ModePubSub {
		return "pub"
	}
	return "ping"
}

func passive(m scenario.Mode) string {
	if m == scenario.ModePubSub {
		return "sub (one way)"
	}
	return "pong (round trip)"
}
