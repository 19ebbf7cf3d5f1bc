package scenario

// The image scenario: a camera publishing sensor_msgs/Image at 30 Hz to
// a subscriber in another process, over pure-Go Zenoh (mode afor) and over
// a bare TCP connection moving the same bytes (the floor). Both sides are
// children of the harness (this executable started again), so that each
// process's CPU time (getrusage) and allocations (runtime.MemStats) count
// only its side.

import (
	"bufio"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"runtime"
	"slices"
	"sync"
	"time"

	"github.com/afor-go/afor/ros/cdr"
	"github.com/afor-go/afor/ros/msgs/sensor_msgs"
	"github.com/afor-go/afor/ros/msgs/std_msgs"
	"github.com/afor-go/afor/transport/zenoh"
)

// ImageFormat is one of the image scenario's camera images.
type ImageFormat struct {
	Name     string `json:"name"`
	Width    int    `json:"width"`
	Height   int    `json:"height"`
	Encoding string `json:"encoding"`
	Channels int    `json:"channels"`
}

// ImageFormats returns the image scenario's images: 1280x720 mono8
// (0.9 MB) and 1920x1080 rgb8 (6.2 MB).
func ImageFormats() []ImageFormat {
	return []ImageFormat{
		{Name: "720p-mono8", Width: 1280, Height: 720, Encoding: "mono8", Channels: 1},
		{Name: "1080p-rgb8", Width: 1920, Height: 1080, Encoding: "rgb8", Channels: 3},
	}
}

// Bytes returns the size of the image's pixels.
func (f ImageFormat) Bytes() int { return f.Width * f.Height * f.Channels }

// ImageHz is the camera's rate.
const ImageHz = 30

// imageKey is the image topic (under the run's prefix).
const imageKey = "camera/image"

// maxImageFrame bounds a floor frame of the image scenario.
const maxImageFrame = 64 << 20

// ImageConfig configures [RunImage].
type ImageConfig struct {
	Format ImageFormat
	// Floor runs the floor: the same two processes, images and loops over
	// a bare TCP connection (a 4-byte length, then the CDR), no afor, no
	// Zenoh.
	Floor bool
	// Warmup is the time the stream runs before the window opens.
	Warmup time.Duration
	// Window is the time over which latency, CPU and allocations are
	// measured.
	Window   time.Duration
	Progress Progress
}

// Image is the outcome of one image row.
type Image struct {
	Format ImageFormat   `json:"format"`
	Bytes  int           `json:"cdr_bytes"` // a message's CDR payload
	Window time.Duration `json:"window_ns"`
	// Sent and Received count the images of the window.
	Sent     int64 `json:"sent"`
	Received int64 `json:"received"`
	// Latency is from the stamp in the image's header (the publisher's
	// wall clock before encoding) to the subscriber's loop body (after
	// decoding and the hand-off to the loop).
	Latency *Latency `json:"latency,omitempty"`
	// PubCPU and SubCPU are each process's CPU time (getrusage) over the
	// window, in % of one core.
	PubCPU float64 `json:"pub_cpu_percent"`
	SubCPU float64 `json:"sub_cpu_percent"`
	// PubAlloc and SubAlloc are the bytes each process allocated per
	// image over the window (runtime.MemStats.TotalAlloc).
	PubAlloc float64 `json:"pub_alloc_bytes_per_msg"`
	SubAlloc float64 `json:"sub_alloc_bytes_per_msg"`
}

// imageReport is what an image child prints when asked: its counts since
// the last "mark" line.
type imageReport struct {
	Side       string  `json:"side"`
	Published  int64   `json:"published"`
	Received   int64   `json:"received"`
	Latency    []int64 `json:"latency_ns,omitempty"`
	CPU        int64   `json:"cpu_ns"`
	AllocBytes uint64  `json:"alloc_bytes"`
	Bytes      int     `json:"cdr_bytes"`
}

// RunImage runs one image row: a publisher child sending cfg.Format at
// ImageHz to a subscriber child, over Zenoh (peers linked over TCP on
// 127.0.0.1, the subscriber an afor.Sub fed by zenoh.SubscribeCodec and
// consumed by a ListenReliable loop) or, with cfg.Floor, over a bare TCP
// connection (a reader goroutine decoding each frame and handing it to
// the loop over a channel).
func RunImage(ctx context.Context, cfg ImageConfig) (r Result) {
	f := cfg.Format
	r = Result{Scenario: "image", Transport: "zenoh-proc", Mode: ModeAfor, Size: f.Bytes(),
		Note: fmt.Sprintf("%s %dx%d %s at %d Hz, two processes", f.Name, f.Width, f.Height, f.Encoding, ImageHz)}
	if cfg.Floor {
		r.Transport, r.Mode = string(FloorTCPProc), ModeFloor
	}
	if cfg.Window <= 0 || cfg.Warmup < 0 || f.Bytes() <= 0 {
		r.Error, r.Failed = fmt.Sprintf("%v: window %v, warm-up %v, image %+v", ErrBadConfig, cfg.Window, cfg.Warmup, f), 1
		return r
	}
	img, err := runImage(ctx, cfg, r.Name())
	if err != nil {
		r.Error, r.Failed = err.Error(), 1
		return r
	}
	r.Image = img
	r.Ops, r.Elapsed, r.Sent = img.Received, img.Window, img.Sent
	r.Rate = float64(img.Received) / img.Window.Seconds()
	r.BytesPerSec = r.Rate * float64(img.Bytes)
	r.CPU = img.PubCPU + img.SubCPU
	r.Latency = img.Latency
	if r.Latency != nil {
		r.NsPerOp = float64(r.Latency.P50)
	}
	return r
}

func runImage(ctx context.Context, cfg ImageConfig, row string) (*Image, error) {
	ctx, cancel := context.WithTimeout(ctx, cfg.Warmup+cfg.Window+runSlack+2*childTimeout)
	defer cancel()
	prefix := fmt.Sprintf("afor_bench/image/%d/", time.Now().UnixNano())
	base := childConfig{Role: "image", Prefix: prefix, Floor: cfg.Floor, Image: &cfg.Format}
	subCfg := base
	subCfg.Node = "sub"
	sub, addr, err := startNode(ctx, subCfg, 0)
	if err != nil {
		return nil, err
	}
	procs := []*nodeProc{sub}
	defer func() {
		for _, np := range procs {
			np.kill()
		}
	}()
	pubCfg := base
	pubCfg.Node, pubCfg.Peers = "pub", []string{addr}
	pub, _, err := startNode(ctx, pubCfg, 0)
	if err != nil {
		return nil, err
	}
	procs = append(procs, pub)
	deadline := time.Now().Add(childTimeout)
	for { // until images flow
		rep, err := imageReportOf(ctx, sub)
		if err != nil {
			return nil, err
		}
		if rep.Received > 0 {
			break
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("%w: no image received in %v", ErrUnexpected, childTimeout)
		}
		if err := pause(ctx, 50*time.Millisecond, "", nil); err != nil { // poll: the sides are other processes
			return nil, err
		}
	}
	if err := pause(ctx, cfg.Warmup, row, nil); err != nil {
		return nil, err
	}
	for _, np := range procs {
		if err := np.send("mark"); err != nil {
			return nil, err
		}
	}
	t0 := time.Now()
	if err := pause(ctx, cfg.Window, row, cfg.Progress); err != nil {
		return nil, err
	}
	pr, err := imageReportOf(ctx, pub)
	if err != nil {
		return nil, err
	}
	sr, err := imageReportOf(ctx, sub)
	if err != nil {
		return nil, err
	}
	window := time.Since(t0)
	// The publisher ends first: a subscriber that closed its connection
	// first would make the publisher's next write fail.
	var errs []error
	running := procs
	procs = nil
	for _, np := range slices.Backward(running) {
		_ = np.stdin.Close()
		if err := np.finish(); err != nil {
			errs = append(errs, err)
		}
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	lat := make([]time.Duration, len(sr.Latency))
	for i, v := range sr.Latency {
		lat[i] = time.Duration(v)
	}
	img := &Image{Format: cfg.Format, Bytes: pr.Bytes, Window: window, Sent: pr.Published, Received: sr.Received,
		Latency: Summarize(lat),
		PubCPU:  100 * time.Duration(pr.CPU).Seconds() / window.Seconds(),
		SubCPU:  100 * time.Duration(sr.CPU).Seconds() / window.Seconds()}
	if pr.Published > 0 {
		img.PubAlloc = float64(pr.AllocBytes) / float64(pr.Published)
	}
	if sr.Received > 0 {
		img.SubAlloc = float64(sr.AllocBytes) / float64(sr.Received)
	}
	if img.Latency == nil {
		return nil, fmt.Errorf("%w: no image received in the window of %v", ErrUnexpected, window)
	}
	return img, nil
}

// imageReportOf asks an image child for its counts.
func imageReportOf(ctx context.Context, np *nodeProc) (imageReport, error) {
	var rep imageReport
	if err := np.send("report"); err != nil {
		return rep, err
	}
	line, err := np.next(ctx)
	if err == nil {
		err = json.Unmarshal([]byte(line), &rep)
	}
	if err != nil {
		return rep, np.fail(err)
	}
	return rep, nil
}

// imageStats counts one image child's traffic, CPU time and allocations
// since the last mark.
type imageStats struct {
	mu        sync.Mutex
	published int64
	received  int64
	latency   []int64
	cpu0      time.Duration
	alloc0    uint64
	bytes     int
}

func (s *imageStats) pub(n int) {
	s.mu.Lock()
	s.published++
	s.bytes = n
	s.mu.Unlock()
}

func (s *imageStats) recv(img *sensor_msgs.Image) {
	st := img.Header.Stamp
	lat := time.Now().UnixNano() - (int64(st.Sec)*1e9 + int64(st.Nanosec))
	s.mu.Lock()
	s.received++
	if len(s.latency) < maxNodeSamples {
		s.latency = append(s.latency, lat)
	}
	s.mu.Unlock()
}

func totalAlloc() uint64 {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.TotalAlloc
}

func (s *imageStats) mark() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.published, s.received, s.latency = 0, 0, s.latency[:0]
	s.cpu0, s.alloc0 = cpuTime(), totalAlloc()
}

func (s *imageStats) report(side string) imageReport {
	cpu, alloc := cpuTime(), totalAlloc()
	s.mu.Lock()
	defer s.mu.Unlock()
	return imageReport{Side: side, Published: s.published, Received: s.received, Latency: append([]int64(nil), s.latency...),
		CPU: int64(cpu - s.cpu0), AllocBytes: alloc - s.alloc0, Bytes: s.bytes}
}

// newCameraImage returns the camera's frame of format f.
func newCameraImage(f ImageFormat) sensor_msgs.Image {
	return sensor_msgs.Image{Header: std_msgs.Header{FrameID: "camera"}, Height: uint32(f.Height), Width: uint32(f.Width),
		Encoding: f.Encoding, Step: uint32(f.Width * f.Channels), Data: make([]uint8, f.Bytes())}
}

// runImageNode is an image child: the publisher ("pub", connecting to
// cfg.Peers[0]) or the subscriber ("sub", listening on an ephemeral port
// of 127.0.0.1). It prints "ready ENDPOINT", then runs until stdin closes;
// "mark" starts its window, "report" prints its imageReport.
func runImageNode(cfg childConfig, stdin io.Reader, stdout io.Writer) error {
	if cfg.Image == nil {
		return fmt.Errorf("%w: image child without an image", ErrBadConfig)
	}
	st := &imageStats{}
	st.mark()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var (
		addr string
		run  func(context.Context) error
		stop func()
		err  error
	)
	switch {
	case cfg.Node == "sub" && cfg.Floor:
		addr, run, stop, err = imageFloorSub(st)
	case cfg.Node == "sub":
		addr, run, stop, err = imageZenohSub(cfg, st)
	case cfg.Node == "pub" && len(cfg.Peers) == 1:
		addr, run, stop, err = imagePub(cfg, st)
	default:
		err = fmt.Errorf("%w: image child %q", ErrBadConfig, cfg.Node)
	}
	if err != nil {
		return err
	}
	defer stop()
	fmt.Fprintln(stdout, childReady, addr)
	done := make(chan error, 1)
	go func() { done <- run(ctx) }()
	enc := json.NewEncoder(stdout)
	in := bufio.NewScanner(stdin)
	for in.Scan() {
		switch in.Text() {
		case "mark":
			st.mark()
		case "report":
			if err := enc.Encode(st.report(cfg.Node)); err != nil {
				cancel()
				return errors.Join(err, <-done)
			}
		}
	}
	cancel()
	return <-done
}

// imagePub publishes the camera's images at ImageHz, encoded into one
// reused buffer: with a Zenoh Publisher.Put, or as floor frames written
// with one vectored write (the length, then the CDR).
func imagePub(cfg childConfig, st *imageStats) (string, func(context.Context) error, func(), error) {
	img := newCameraImage(*cfg.Image)
	var buf []byte
	var send func(ctx context.Context, b []byte) error
	var stop func()
	if cfg.Floor {
		c, err := net.Dial("tcp", cfg.Peers[0])
		if err != nil {
			return "", nil, nil, err
		}
		var hdr [frameHeader]byte
		bufs := make(net.Buffers, 0, 2)
		send = func(_ context.Context, b []byte) error {
			binary.LittleEndian.PutUint32(hdr[:], uint32(len(b)))
			bufs = append(bufs[:0], hdr[:], b)
			_, err := bufs.WriteTo(c)
			return err
		}
		stop = func() { c.Close() }
	} else {
		octx, ocancel := context.WithTimeout(context.Background(), childTimeout)
		s, err := zenoh.Open(octx, zenoh.Config{Connect: []string{cfg.Peers[0]}})
		ocancel()
		if err != nil {
			return "", nil, nil, err
		}
		p, err := s.DeclarePublisher(cfg.Prefix+imageKey, zenoh.WithEncoding(zenoh.EncodingCDR))
		if err != nil {
			s.Close()
			return "", nil, nil, err
		}
		wctx, wcancel := context.WithTimeout(context.Background(), childTimeout)
		err = p.WaitMatching(wctx)
		wcancel()
		if err != nil {
			s.Close()
			return "", nil, nil, err
		}
		send = func(ctx context.Context, b []byte) error { return p.Put(ctx, b) }
		stop = func() { s.Close() }
	}
	run := func(ctx context.Context) error {
		tick := time.NewTicker(time.Second / ImageHz)
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				return nil
			case <-tick.C:
			}
			nextImage(&img)
			var err error
			if buf, err = img.AppendCDR(buf[:0]); err != nil {
				return err
			}
			if err := send(ctx, buf); err != nil {
				if ctx.Err() != nil {
					return nil
				}
				return err
			}
			st.pub(len(buf))
		}
	}
	return "-", run, stop, nil
}

// imageZenohSub receives the images with an afor.Sub fed by
// zenoh.SubscribeCodec, in a ListenReliable loop.
func imageZenohSub(cfg childConfig, st *imageStats) (string, func(context.Context) error, func(), error) {
	s, err := zenoh.Open(context.Background(), zenoh.Config{Listen: []string{"tcp/127.0.0.1:0"}})
	if err != nil {
		return "", nil, nil, err
	}
	imgs, err := zenoh.SubscribeCodec(s, cfg.Prefix+imageKey, cdr.Codec[sensor_msgs.Image]())
	if err != nil {
		s.Close()
		return "", nil, nil, err
	}
	run := func(ctx context.Context) error {
		defer imgs.Close()
		for img := range imgs.ListenReliable(ctx) {
			st.recv(&img)
		}
		return nil
	}
	return s.ListenAddrs()[0], run, func() { s.Close() }, nil
}

// imageFloorSub accepts the publisher's TCP connection; a reader goroutine
// reads each frame into one reused buffer, decodes it and hands the image
// to the loop over a channel of ListenReliable's default capacity (the
// oldest dropped when full).
func imageFloorSub(st *imageStats) (string, func(context.Context) error, func(), error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, nil, err
	}
	codec := cdr.Codec[sensor_msgs.Image]()
	run := func(ctx context.Context) error {
		stopLn := context.AfterFunc(ctx, func() { ln.Close() })
		defer stopLn()
		ch := make(chan sensor_msgs.Image, reliableQueue)
		rerr := make(chan error, 1)
		go func() {
			defer close(ch)
			c, err := ln.Accept()
			if err != nil {
				rerr <- nil
				return
			}
			defer c.Close()
			stop := context.AfterFunc(ctx, func() { c.Close() })
			defer stop()
			br := bufio.NewReader(c)
			var hdr [frameHeader]byte
			var buf []byte
			for {
				if _, err := io.ReadFull(br, hdr[:]); err != nil {
					rerr <- nil // the publisher left, or ctx ended
					return
				}
				n := binary.LittleEndian.Uint32(hdr[:])
				if n > maxImageFrame {
					rerr <- fmt.Errorf("%w: %d bytes", ErrBadFrame, n)
					return
				}
				if cap(buf) < int(n) {
					buf = make([]byte, n)
				}
				buf = buf[:n]
				if _, err := io.ReadFull(br, buf); err != nil {
					rerr <- nil
					return
				}
				img, err := codec.Decode(buf)
				if err != nil {
					rerr <- fmt.Errorf("%w: %v", ErrBadFrame, err)
					return
				}
				offer(ch, img)
			}
		}()
		for img := range ch {
			st.recv(&img)
		}
		return <-rerr
	}
	return ln.Addr().String(), run, func() { ln.Close() }, nil
}
