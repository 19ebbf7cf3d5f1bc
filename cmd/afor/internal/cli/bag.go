package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/afor-go/afor/ros/bag"
)

func bagCommands() []command {
	return []command{
		{"bag info", "BAG [-t]", "print a bag's files, duration, messages and topics, as ros2 bag info", bagInfo},
		{"bag record", "[TOPIC...] [-a] [-e REGEX] [-o DIR]", "record topics to a bag (MCAP), as ros2 bag record", bagRecord},
		{"bag play", "BAG [-r RATE] [-l] [--clock HZ]", "publish a bag's messages at their recorded pace, as ros2 bag play", bagPlay},
	}
}

func bagInfo(ctx context.Context, env *Env, args []string) error {
	f := newFlags(env, "bag info", "BAG [flags]", "Print what `ros2 bag info` prints for BAG: a rosbag2 folder (metadata.yaml and its files) or an MCAP file.")
	topicsOnly := f.Bool("t", false, "print only the topic names")
	f.BoolVar(topicsOnly, "topic-name", false, "print only the topic names")
	storage := f.String("s", "", "storage id (mcap; guessed when empty)")
	f.StringVar(storage, "storage", "", "storage id (mcap; guessed when empty)")
	pos, err := f.parse(args, 1, 1)
	if err != nil {
		return err
	}
	if *storage != "" && *storage != "mcap" {
		return fmt.Errorf("storage %q: afor reads mcap bags only", *storage)
	}
	r, err := bag.Open(pos[0], bag.ReaderOptions{})
	if err != nil {
		return err
	}
	defer r.Close()
	for _, p := range r.Problems() {
		fmt.Fprintln(env.Stderr, "warning:", p)
	}
	m := r.Metadata()
	if *topicsOnly {
		names := make([]string, 0, len(m.Topics))
		for _, t := range m.Topics {
			if !bag.IsServiceEvent(t.Name, t.Type) {
				names = append(names, t.Name)
			}
		}
		slices.Sort(names)
		for _, n := range names {
			fmt.Fprintln(env.Stdout, n)
		}
		return nil
	}
	fmt.Fprintln(env.Stdout, bag.FormatInfo(m, time.Local))
	return nil
}

// storageConfig is the subset of rosbag2's MCAP storage configuration
// (--storage-config-file) afor understands.
type storageConfig struct {
	Compression      string `yaml:"compression"`      // None, Lz4, Zstd
	CompressionLevel string `yaml:"compressionLevel"` // Fastest, Fast, Default, Slow, Slowest
	ChunkSize        int64  `yaml:"chunkSize"`
	NoChunking       bool   `yaml:"noChunking"`
	NoChunkCRC       *bool  `yaml:"noChunkCRC"`
}

// writerOptions applies a storage preset profile and configuration file,
// as rosbag2's MCAP plugin does (the file over the preset).
func writerOptions(preset, configFile string) (bag.WriterOptions, error) {
	var o bag.WriterOptions
	switch preset {
	case "", "none":
	case "fastwrite":
		o.ChunkSize = -1
	case "zstd_fast":
		o.Compression, o.CompressionLevel, o.NoChunkCRC = bag.CompressionZstd, bag.LevelFastest, true
	case "zstd_small":
		o.Compression, o.CompressionLevel, o.ChunkSize = bag.CompressionZstd, bag.LevelSlowest, 4<<20
	default:
		return o, fmt.Errorf("%w: unknown MCAP storage preset profile %q (valid: none, fastwrite, zstd_fast, zstd_small)", ErrUsage, preset)
	}
	if configFile == "" {
		return o, nil
	}
	b, err := os.ReadFile(configFile)
	if err != nil {
		return o, err
	}
	var c storageConfig
	if err := yaml.Unmarshal(b, &c); err != nil {
		return o, fmt.Errorf("--storage-config-file %s: %w", configFile, err)
	}
	switch strings.ToLower(c.Compression) {
	case "":
	case "none":
		o.Compression = bag.CompressionNone
	case "zstd":
		o.Compression = bag.CompressionZstd
	case "lz4":
		o.Compression = bag.CompressionLZ4
	default:
		return o, fmt.Errorf("--storage-config-file %s: compression %q (want None, Lz4 or Zstd)", configFile, c.Compression)
	}
	levels := map[string]bag.CompressionLevel{"fastest": bag.LevelFastest, "fast": bag.LevelFast, "default": bag.LevelDefault, "slow": bag.LevelSlow, "slowest": bag.LevelSlowest}
	if c.CompressionLevel != "" {
		l, ok := levels[strings.ToLower(c.CompressionLevel)]
		if !ok {
			return o, fmt.Errorf("--storage-config-file %s: compressionLevel %q", configFile, c.CompressionLevel)
		}
		o.CompressionLevel = l
	}
	if c.ChunkSize > 0 {
		o.ChunkSize = c.ChunkSize
	}
	if c.NoChunking {
		o.ChunkSize = -1
	}
	if c.NoChunkCRC != nil {
		o.NoChunkCRC = *c.NoChunkCRC
	}
	return o, nil
}

func compileRegex(flag, s string) (*regexp.Regexp, error) {
	if s == "" {
		return nil, nil
	}
	re, err := regexp.Compile(s)
	if err != nil {
		return nil, fmt.Errorf("%w: %s %q: %v", ErrUsage, flag, s, err)
	}
	return re, nil
}

func bagRecord(ctx context.Context, env *Env, args []string) error {
	f := newFlags(env, "bag record", "[TOPIC...] [flags]", "Record topics to a bag folder of MCAP files until Ctrl-C, as `ros2 bag record` does:\n"+
		"the named TOPICs, those matching -e, or with -a all of them (new topics are subscribed to as they appear),\n"+
		"each with the QoS its publishers offer.")
	rf := f.ros(true)
	all := f.Bool("a", false, "record all topics (hidden ones too with --include-hidden-topics)")
	f.BoolVar(all, "all", false, "record all topics")
	f.BoolVar(all, "all-topics", false, "record all topics")
	regex := f.String("e", "", "record the topics matching this regular expression")
	f.StringVar(regex, "regex", "", "record the topics matching this regular expression")
	exclude := f.String("exclude-regex", "", "leave out the topics matching this regular expression")
	f.StringVar(exclude, "x", "", "leave out the topics matching this regular expression")
	output := f.String("o", "", "the bag folder to create (default: rosbag2_YYYY_MM_DD-HH_MM_SS)")
	f.StringVar(output, "output", "", "the bag folder to create")
	storage := f.String("s", "mcap", "storage id: mcap")
	f.StringVar(storage, "storage", "mcap", "storage id: mcap")
	maxSize := f.Int64("b", 0, "split the bag into files of this many bytes (0: no split)")
	f.Int64Var(maxSize, "max-bag-size", 0, "split the bag into files of this many bytes")
	maxDur := f.Int64("d", 0, "split the bag into files of this many seconds (0: no split)")
	f.Int64Var(maxDur, "max-bag-duration", 0, "split the bag into files of this many seconds")
	preset := f.String("storage-preset-profile", "", "MCAP preset: none, fastwrite, zstd_fast, zstd_small")
	config := f.String("storage-config-file", "", "MCAP storage options (YAML: compression, compressionLevel, chunkSize, noChunking, noChunkCRC)")
	hiddenTopics := f.Bool("include-hidden-topics", false, "record hidden topics (a name part starting with _) too")
	noDiscovery := f.Bool("no-discovery", false, "record only the topics found at start")
	simTime := f.Bool("use-sim-time", false, "stamp messages with /clock's time")
	cache := f.Int64("max-cache-size", 0, "bytes of messages queued for the writer before dropping (default 512 MiB)")
	pos, err := f.parse(args, 0, -1)
	if err != nil {
		return err
	}
	if *storage != "mcap" {
		return fmt.Errorf("%w: storage %q: afor writes mcap bags only", ErrUsage, *storage)
	}
	if !*all && *regex == "" && len(pos) == 0 {
		return fmt.Errorf("%w: name TOPICs, or give -a or -e REGEX", ErrUsage)
	}
	o, err := writerOptions(*preset, *config)
	if err != nil {
		return err
	}
	o.MaxFileSize, o.MaxFileDuration = *maxSize, time.Duration(*maxDur)*time.Second
	o.ROSDistro = env.getenv("ROS_DISTRO")
	ro := bag.RecordOptions{Topics: pos, IncludeHidden: *hiddenTopics, NoDiscovery: *noDiscovery, UseSimTime: *simTime, QueueBytes: *cache, Logger: env.logger()}
	if ro.Regex, err = compileRegex("-e", *regex); err != nil {
		return err
	}
	if ro.Exclude, err = compileRegex("--exclude-regex", *exclude); err != nil {
		return err
	}
	if *all {
		ro.Topics, ro.Regex = nil, nil
	}
	if reg, err := rf.registry(); err == nil {
		o.Definitions = bag.NewDefinitionsFrom(reg)
	}
	dir := *output
	if dir == "" {
		dir = "rosbag2_" + time.Now().Format("2006_01_02-15_04_05")
	}
	cn, err := rf.open(ctx)
	if err != nil {
		return err
	}
	defer cn.Close()
	w, err := bag.Create(dir, o)
	if err != nil {
		return err
	}
	rec, err := bag.Record(ctx, cn.node, w, ro)
	if err != nil {
		_ = w.Close()
		return err
	}
	fmt.Fprintf(env.Stderr, "Recording to %s (Ctrl-C to stop)\n", dir)
	<-ctx.Done()
	rerr := rec.Close()
	werr := w.Close()
	st := rec.Stats()
	fmt.Fprintf(env.Stderr, "Recorded %d messages on %d topics to %s (%d dropped)\n", st.Written, st.Topics, dir, st.Dropped)
	if werr != nil {
		return werr
	}
	return rerr
}

func bagPlay(ctx context.Context, env *Env, args []string) error {
	f := newFlags(env, "bag play", "BAG [flags]", "Publish the messages of BAG (a rosbag2 folder or an MCAP file) at their recorded pace, as `ros2 bag play` does,\n"+
		"each topic with the QoS its recorded publishers offered.")
	rf := f.ros(true)
	rate := f.Float64("r", 1, "play at this multiple of the recorded pace")
	f.Float64Var(rate, "rate", 1, "play at this multiple of the recorded pace")
	loop := f.Bool("l", false, "play the bag again and again")
	f.BoolVar(loop, "loop", false, "play the bag again and again")
	clock := f.Float64("clock", 0, "publish /clock at this rate in Hz (ros2's --clock alone is 40)")
	startOffset := f.Float64("start-offset", 0, "start this many seconds into the bag")
	duration := f.Float64("playback-duration", 0, "play this many seconds of the bag (0: all)")
	delay := f.Float64("delay", 0, "wait this many seconds before playing (for subscriptions to match)")
	f.Float64Var(delay, "D", 0, "wait this many seconds before playing")
	var topics, remaps stringsFlag
	f.Var(&topics, "topics", "play only this topic; repeatable, or comma separated")
	regex := f.String("e", "", "play only the topics matching this regular expression")
	f.StringVar(regex, "regex", "", "play only the topics matching this regular expression")
	exclude := f.String("x", "", "leave out the topics matching this regular expression")
	f.StringVar(exclude, "exclude-regex", "", "leave out the topics matching this regular expression")
	f.Var(&remaps, "remap", "publish a topic under another name: FROM:=TO; repeatable")
	pos, err := f.parse(args, 1, 1)
	if err != nil {
		return err
	}
	if *rate <= 0 {
		return fmt.Errorf("%w: --rate %v: want more than 0", ErrUsage, *rate)
	}
	o := bag.PlayOptions{Rate: *rate, Loop: *loop, ClockHz: *clock, StartOffset: seconds(*startOffset),
		Duration: seconds(*duration), Delay: seconds(*delay), Remap: map[string]string{}, Logger: env.logger()}
	for _, t := range topics {
		for p := range strings.SplitSeq(t, ",") {
			if p = strings.TrimSpace(p); p != "" {
				o.Topics = append(o.Topics, p)
			}
		}
	}
	for _, r := range remaps {
		from, to, ok := strings.Cut(r, ":=")
		if !ok || from == "" || to == "" {
			return fmt.Errorf("%w: --remap %q: want FROM:=TO", ErrUsage, r)
		}
		o.Remap[from] = to
	}
	if o.Regex, err = compileRegex("-e", *regex); err != nil {
		return err
	}
	if o.Exclude, err = compileRegex("-x", *exclude); err != nil {
		return err
	}
	r, err := bag.Open(pos[0], bag.ReaderOptions{})
	if err != nil {
		return err
	}
	defer r.Close()
	for _, p := range r.Problems() {
		fmt.Fprintln(env.Stderr, "warning:", p)
	}
	cn, err := rf.open(ctx)
	if err != nil {
		return err
	}
	defer cn.Close()
	st, err := bag.Play(ctx, cn.node, r, o)
	if errors.Is(err, context.Canceled) {
		err = nil
	}
	fmt.Fprintf(env.Stderr, "Played %d messages (%v of the bag in %v)\n", st.Published, st.BagTime.Round(time.Millisecond), st.Elapsed.Round(time.Millisecond))
	return err
}

func seconds(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }
