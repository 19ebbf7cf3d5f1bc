//go:build unix

package bag_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/afor-go/afor"
	"github.com/afor-go/afor/internal/netns"
	"github.com/afor-go/afor/internal/peers"
	"github.com/afor-go/afor/ros"
	"github.com/afor-go/afor/ros/bag"
	"github.com/afor-go/afor/ros/cdr"
	"github.com/afor-go/afor/ros/msgs/sensor_msgs"
	"github.com/afor-go/afor/transport/dds"
	"github.com/afor-go/afor/transport/zenoh"
)

// envLong enables TestRecordCamera, which records 30 s of 6 MB images
// (5.6 GB on disk in a temporary folder): AFOR_BAG_LONG=1 go test -run
// TestRecordCamera -v ./ros/bag. AFOR_BAG_SECONDS shortens it;
// AFOR_BAG_DIR puts the bag elsewhere (/dev/shm measures the recorder
// without the disk, which must take 187 MB/s for it).
const envLong = "AFOR_BAG_LONG"

// envCameraChild makes the test binary the camera process of
// TestRecordCamera (TestCameraChild).
const envCameraChild = "AFOR_BAG_CAMERA_CHILD"

const (
	camWidth, camHeight = 1920, 1080 // rgb8: 6,220,800 bytes
	camHz               = 30
)

// cameraMiddleware is the middleware of TestRecordCamera: rmw_zenoh's
// conventions over TCP (the recorder listens, the camera connects to it),
// or with AFOR_BAG_RMW=dds, DDS. Over DDS on a loaded 2-core machine the
// link itself loses images (a KEEP_LAST writer's history moves on before
// a slow reader has every fragment), which the recorder never sees.
func cameraMiddleware(domain int, connect string) []ros.Option {
	mw := ros.DDS(dds.Config{Range: dds.RangeSubnet, Getenv: func(string) string { return "" }})
	if os.Getenv("AFOR_BAG_RMW") != "dds" {
		if connect == "" {
			mw = ros.Zenoh(zenoh.Config{Listen: []string{"tcp/127.0.0.1:0"}})
		} else {
			mw = ros.Zenoh(zenoh.Config{Connect: []string{connect}})
		}
	}
	return []ros.Option{ros.WithMiddleware(mw), ros.WithDomainID(domain), ros.WithLogger(slog.New(slog.DiscardHandler))}
}

// cameraQoS is the camera's profile: reliable, keep last 5 over DDS; keep
// all over Zenoh (rmw_zenoh then blocks the publisher instead of dropping
// when the link is full).
func cameraQoS() ros.QoS {
	if os.Getenv("AFOR_BAG_RMW") != "dds" {
		return ros.QoSKeepAll()
	}
	return ros.QoSKeepLast(5)
}

// TestCameraChild is the camera of TestRecordCamera, in another process:
// it publishes AFOR_BAG_FRAMES images (cameraQoS) at 30 Hz
// once the recorder subscribes, each numbered in its first bytes, then
// prints "done N".
func TestCameraChild(t *testing.T) {
	if os.Getenv(envCameraChild) == "" {
		t.Skip("the camera process of TestRecordCamera")
	}
	domain, _ := strconv.Atoi(os.Getenv("ROS_DOMAIN_ID"))
	frames, _ := strconv.Atoi(os.Getenv("AFOR_BAG_FRAMES"))
	ctx := context.Background()
	c, err := ros.Open(ctx, cameraMiddleware(domain, os.Getenv("AFOR_BAG_CONNECT"))...)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	n, err := c.NewNode("camera")
	if err != nil {
		t.Fatal(err)
	}
	pub, err := ros.NewPublisher[sensor_msgs.Image](n, "/camera/image_raw", cameraQoS())
	if err != nil {
		t.Fatal(err)
	}
	if err := pub.WaitForSubscriptions(ctx, 1); err != nil {
		t.Fatal(err)
	}
	time.Sleep(500 * time.Millisecond)
	img := sensor_msgs.Image{Height: camHeight, Width: camWidth, Encoding: "rgb8", Step: 3 * camWidth, Data: make([]byte, 3*camWidth*camHeight)}
	for i := range img.Data {
		img.Data[i] = byte(i * 7)
	}
	rate, err := afor.NewRate(camHz)
	if err != nil {
		t.Fatal(err)
	}
	defer rate.Close()
	sent := 0
	for range rate.ListenReliable(ctx) {
		binary.LittleEndian.PutUint32(img.Data, uint32(sent))
		img.Header.FrameID = strconv.Itoa(sent)
		if err := pub.Publish(ctx, &img); err != nil {
			t.Fatal(err)
		}
		sent++
		if sent == frames {
			break
		}
	}
	fmt.Printf("done %d\n", sent)
	time.Sleep(2 * time.Second) // let the last frames be acknowledged
}

func rusage() (cpu time.Duration, maxRSS int64) {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), ru.Maxrss << 10
}

// TestRecordCamera records a camera (1920x1080 rgb8, 6.2 MB, at 30 Hz for
// 30 s) published by another process (cameraMiddleware) and checks that
// no image was dropped; it reports the recorder's CPU and memory, then the read
// throughput of the bag by afor and by Python's mcap reader in the same
// run. Opt-in: AFOR_BAG_LONG=1.
func TestRecordCamera(t *testing.T) {
	if os.Getenv(envLong) == "" {
		t.Skipf("set %s=1 to record 30 s of 6 MB images at 30 Hz", envLong)
	}
	netns.Require(t)
	seconds := 30
	if s, err := strconv.Atoi(os.Getenv("AFOR_BAG_SECONDS")); err == nil && s > 0 {
		seconds = s
	}
	frames := seconds * camHz
	domain := 230
	ctx, cancel := context.WithTimeout(context.Background(), time.Duration(seconds)*time.Second+3*time.Minute)
	defer cancel()
	c, err := ros.Open(ctx, cameraMiddleware(domain, "")...)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	connect := ""
	if addrs := c.ListenAddrs(); len(addrs) > 0 {
		connect = addrs[0]
	}
	node, err := c.NewNode("recorder")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if d := os.Getenv("AFOR_BAG_DIR"); d != "" { // e.g. /dev/shm: the recorder, not the disk
		var err error
		if dir, err = os.MkdirTemp(d, "camera"); err != nil {
			t.Fatal(err)
		}
		defer os.RemoveAll(dir)
	}
	path := filepath.Join(dir, "camera")
	w, err := bag.Create(path, bag.WriterOptions{})
	if err != nil {
		t.Fatal(err)
	}
	rec, err := bag.Record(ctx, node, w, bag.RecordOptions{Topics: []string{"/camera/image_raw"}})
	if err != nil {
		t.Fatal(err)
	}
	child := exec.CommandContext(ctx, os.Args[0], "-test.run", "^TestCameraChild$", "-test.v")
	child.Env = append(os.Environ(), envCameraChild+"=1", "ROS_DOMAIN_ID="+strconv.Itoa(domain), "AFOR_BAG_FRAMES="+strconv.Itoa(frames), "AFOR_BAG_CONNECT="+connect)
	var out bytes.Buffer
	child.Stdout, child.Stderr = &out, &out
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, ctx, func() bool { return rec.Stats().Received > 0 }, "the first image")
	cpu0, _ := rusage()
	wall0 := time.Now()
	var heapPeak uint64
	var ms runtime.MemStats
	var queuePeak int64
	for rec.Stats().Written < uint64(frames) && ctx.Err() == nil {
		time.Sleep(250 * time.Millisecond)
		runtime.ReadMemStats(&ms)
		heapPeak = max(heapPeak, ms.HeapInuse)
		queuePeak = max(queuePeak, rec.Stats().Queued)
		if time.Since(wall0) > time.Duration(seconds)*time.Second+20*time.Second {
			break // images lost: the checks below say how many
		}
	}
	wall := time.Since(wall0)
	cpu1, maxRSS := rusage()
	if err := child.Wait(); err != nil {
		t.Fatalf("camera process: %v\n%s", err, out.String())
	}
	closeErr := rec.Close()
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	st := rec.Stats()
	t.Logf("camera process: %s", strings.TrimSpace(lastLine(out.String(), "done ")))
	t.Logf("recorder: %d images received, %d written, %d dropped in %v; CPU %.1f%% of a core (user+system of this process, reception by the middleware included); Go heap in use peak %.0f MiB; write queue peak %.0f MiB; max RSS %.0f MiB",
		st.Received, st.Written, st.Dropped, wall.Round(time.Millisecond), 100*float64(cpu1-cpu0)/float64(wall), float64(heapPeak)/(1<<20),
		float64(queuePeak)/(1<<20), float64(maxRSS)/(1<<20))
	if st.Written != uint64(frames) || st.Dropped != 0 || closeErr != nil {
		t.Fatalf("wrote %d of %d images (%d dropped): %v", st.Written, frames, st.Dropped, closeErr)
	}

	// Every image, in order, from afor's reader: its throughput.
	r, err := bag.Open(path, bag.ReaderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	start := time.Now()
	var bytesRead int64
	next := uint32(0)
	for m, err := range r.Messages(bag.ReadOptions{}) {
		if err != nil {
			t.Fatal(err)
		}
		var img sensor_msgs.Image // decoded in place: Data is a view of the payload
		if err := cdr.UnmarshalAlias(m.Data, &img); err != nil {
			t.Fatal(err)
		}
		if got := binary.LittleEndian.Uint32(img.Data); got != next {
			t.Fatalf("image %d where %d was due", got, next)
		}
		next++
		bytesRead += int64(len(m.Data))
	}
	goRate := float64(bytesRead) / time.Since(start).Seconds() / (1 << 20)
	if next != uint32(frames) {
		t.Fatalf("read %d images", next)
	}
	py := peers.Python(t, "mcap")
	script := "import sys,time\nfrom mcap.reader import make_reader\nt=time.monotonic();n=0;b=0\n" +
		"with open(sys.argv[1],'rb') as f:\n  for s,c,m in make_reader(f).iter_messages(log_time_order=True):\n    n+=1;b+=len(m.data)\n" +
		"print(n,b,time.monotonic()-t)\n"
	pyOut, err := exec.Command(py, "-c", script, filepath.Join(path, "camera_0.mcap")).Output()
	if err != nil {
		t.Fatal(err)
	}
	var pn, pb int64
	var ps float64
	if _, err := fmt.Sscan(string(pyOut), &pn, &pb, &ps); err != nil || pn != int64(frames) {
		t.Fatalf("python read %q: %v", pyOut, err)
	}
	pyRate := float64(pb) / ps / (1 << 20)
	t.Logf("read %d images (%.1f GB) in log-time order: afor %.0f MiB/s (each decoded into a sensor_msgs/Image, Data aliased), Python mcap %.0f MiB/s (raw payloads): %.2fx",
		frames, float64(bytesRead)/1e9, goRate, pyRate, goRate/pyRate)
}

// lastLine returns the last line of s holding sub.
func lastLine(s, sub string) string {
	lines := strings.Split(s, "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if strings.Contains(lines[i], sub) {
			return lines[i]
		}
	}
	return ""
}
