package bagtest

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/afor-go/afor"
	"github.com/afor-go/afor/ros"
	"github.com/afor-go/afor/ros/bag"
	"github.com/afor-go/afor/ros/cdr"
)

// RecorderOptions configure a [Recorder].
type RecorderOptions struct {
	// Dir is the folder the bag is created in. By default: the test's
	// artifact folder when go test runs with -artifacts (kept), else a
	// folder under the system's temporary folder, removed when the test
	// passes and kept, with its path logged, when it fails.
	Dir string
	// Keep keeps the bag when the test passes too.
	Keep bool
	// Writer configures the bag (compression, ...).
	Writer bag.WriterOptions
}

// Recorder records what a test sees into a bag, one topic per recorded
// sub. The bag is finished when the test ends; when the test failed, its
// path is logged, to open in Foxglove or replay. Create one with
// [NewRecorder]; it is safe for concurrent use.
type Recorder struct {
	t    testing
	w    *bag.Writer
	path string

	mu      sync.Mutex
	removes []func()
	errs    int
}

// NewRecorder creates a bag for the test's recording.
func NewRecorder(t testing, o RecorderOptions) *Recorder {
	t.Helper()
	name := strings.NewReplacer("/", "_", " ", "_").Replace(t.Name())
	dir, temp := o.Dir, false
	if dir == "" {
		ad, ok := t.(artifacts)
		if f := flag.Lookup("test.artifacts"); ok && f != nil && f.Value.String() == "true" {
			dir = ad.ArtifactDir()
		} else {
			var err error
			if dir, err = os.MkdirTemp("", "afor-bag-"); err != nil {
				t.Fatalf("bagtest: %v", err)
			}
			temp = true
		}
	}
	path := filepath.Join(dir, name+"_"+time.Now().Format("20060102-150405"))
	w, err := bag.Create(path, o.Writer)
	if err != nil {
		t.Fatalf("bagtest: %v", err)
	}
	r := &Recorder{t: t, w: w, path: path}
	t.Cleanup(func() {
		r.mu.Lock()
		removes := r.removes
		r.removes = nil
		r.mu.Unlock()
		for _, rm := range removes {
			rm()
		}
		if err := w.Close(); err != nil {
			t.Errorf("bagtest: %v", err)
		}
		switch {
		case t.Failed():
			t.Logf("bagtest: what the test saw is in %s (afor bag info, or open its .mcap in Foxglove)", path)
		case temp && !o.Keep:
			_ = os.RemoveAll(dir)
		}
	})
	return r
}

// Path returns the bag's folder.
func (r *Recorder) Path() string { return r.path }

// Write records one message of a topic: its CDR payload, received now.
// The topic is added on its first message.
func (r *Recorder) Write(topic, typ string, payload []byte) {
	r.add(topic, typ, "")
	if err := r.w.Write(topic, time.Now(), time.Time{}, 0, payload); err != nil {
		r.fail(err)
	}
}

func (r *Recorder) add(topic, typ, hash string) {
	if err := r.w.AddTopic(bag.Topic{Name: topic, Type: typ, TypeHash: hash,
		OfferedQoS: []bag.QoS{bag.QoSFromROS(ros.QoSDefault)}}); err != nil {
		r.fail(err)
	}
}

func (r *Recorder) fail(err error) {
	r.mu.Lock()
	r.errs++
	first := r.errs == 1
	r.mu.Unlock()
	if first {
		r.t.Errorf("bagtest: recording: %v", err)
	}
}

// RecordSub records every value sub receives from now on, as messages of
// topic (T is a generated message type), until the test ends.
func RecordSub[T any, PT interface {
	*T
	cdr.Message
}](r *Recorder, topic string, sub *afor.Sub[T]) {
	var zero T
	r.add(topic, PT(&zero).TypeName(), PT(&zero).TypeHash())
	typ := PT(&zero).TypeName()
	var mu sync.Mutex
	var buf []byte
	remove := sub.OnInput(func(v T) {
		mu.Lock()
		defer mu.Unlock()
		var err error
		if buf, err = PT(&v).AppendCDR(buf[:0]); err != nil {
			r.fail(fmt.Errorf("%s: %w", topic, err))
			return
		}
		r.Write(topic, typ, buf)
	})
	r.mu.Lock()
	r.removes = append(r.removes, remove)
	r.mu.Unlock()
}

// RecordRaw records every payload a raw subscription receives, as
// messages of topic and type typ, until the test ends; the receive times
// are the middleware's.
func RecordRaw(r *Recorder, topic, typ string, sub *afor.Sub[ros.RawMessage]) {
	r.add(topic, typ, "")
	remove := sub.OnInput(func(m ros.RawMessage) {
		at := m.Info.ReceivedTime
		if at.IsZero() {
			at = time.Now()
		}
		if err := r.w.Write(topic, at, m.Info.SourceTime, uint32(m.Info.Sequence), m.Payload); err != nil {
			r.fail(err)
		}
	})
	r.mu.Lock()
	r.removes = append(r.removes, remove)
	r.mu.Unlock()
}
