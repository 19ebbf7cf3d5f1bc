package ddsperf

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/afor-go/afor/transport/dds"
)

// Main runs ddsperf's command line, as far as this package implements it:
//
//	[-i DOMAIN] [-D SECONDS] MODE...
//
// with the modes "ping [size S]", "pong", "pub [size S]" and "sub" (S in
// bytes, or with a k, KiB, M or MiB suffix). The participant discovers
// its peers by unicast on 127.0.0.1 (dds.RangeLocalhost), as the bench's
// Cyclone configuration does, and ignores the environment.
func Main(ctx context.Context, args []string, out io.Writer) error {
	cfg, err := ParseArgs(args)
	if err != nil {
		return err
	}
	cfg.Out = out
	return Run(ctx, cfg)
}

// ParseArgs reads ddsperf's arguments (see [Main]) into a Config.
func ParseArgs(args []string) (Config, error) {
	cfg := Config{Participant: dds.Config{Range: dds.RangeLocalhost, Getenv: func(string) string { return "" }}}
	for i := 0; i < len(args); i++ {
		a := args[i]
		next := func() (string, error) {
			if i+1 >= len(args) {
				return "", fmt.Errorf("%w: %s needs a value", ErrUsage, a)
			}
			i++
			return args[i], nil
		}
		switch a {
		case "-i", "-D":
			v, err := next()
			if err != nil {
				return cfg, err
			}
			n, err := strconv.ParseFloat(v, 64)
			if err != nil || n < 0 {
				return cfg, fmt.Errorf("%w: %s %q", ErrUsage, a, v)
			}
			if a == "-i" {
				if n != float64(int(n)) || n > 232 {
					return cfg, fmt.Errorf("%w: domain %q", ErrUsage, v)
				}
				cfg.Participant.DomainID = int(n)
			} else {
				cfg.Duration = time.Duration(n * float64(time.Second))
			}
		case "ping", "pub":
			if a == "ping" {
				cfg.Ping = true
			} else {
				cfg.Pub = true
			}
			if i+2 < len(args) && args[i+1] == "size" {
				n, err := parseSize(args[i+2])
				if err != nil {
					return cfg, err
				}
				cfg.Size = n
				i += 2
			}
		case "pong":
		case "sub":
			cfg.Sub = true
		default:
			return cfg, fmt.Errorf("%w: unknown argument %q", ErrUsage, a)
		}
	}
	return cfg, nil
}

// parseSize reads a size such as 64, 4k, 64KiB or 1MiB.
func parseSize(s string) (int, error) {
	mult := 1
	for _, u := range []struct {
		suffix string
		mult   int
	}{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"kB", 1000}, {"MB", 1000 * 1000}, {"k", 1 << 10}, {"M", 1 << 20}} {
		if v, ok := strings.CutSuffix(s, u.suffix); ok {
			s, mult = v, u.mult
			break
		}
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 || n > MaxSize/mult {
		return 0, fmt.Errorf("%w: size %q", ErrUsage, s)
	}
	return n * mult, nil
}
