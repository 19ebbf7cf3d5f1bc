package bag

import (
	"errors"
	"fmt"
	"iter"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/afor-go/afor/ros/bag/internal/mcap"
	"github.com/afor-go/afor/ros/cdr"
	"github.com/afor-go/afor/ros/dynmsg"
	"github.com/afor-go/afor/ros/idl"
)

// Limits bound what a reader allocates, whatever lengths a file
// announces. A zero field takes its default.
type Limits struct {
	// MaxRecord bounds a record read whole outside a chunk (a schema, a
	// metadata record, a message written unchunked). Default 512 MiB.
	MaxRecord int64
	// MaxChunk bounds a chunk, compressed and uncompressed. Default 512 MiB.
	MaxChunk int64
	// MaxSummary bounds a file's summary section. Default 256 MiB.
	MaxSummary int64
	// MaxBuffered bounds the uncompressed chunks held at once to merge
	// chunks whose times overlap. Default 1 GiB.
	MaxBuffered int64
}

// ReaderOptions configure [Open].
type ReaderOptions struct {
	Limits Limits
}

// Reader reads a bag: a rosbag2 folder (metadata.yaml and its MCAP files)
// or a single MCAP file, written by rosbag2, by afor or by any MCAP writer
// with the ros2 profile. Messages are read from the files as they are
// needed, never the whole file at once. Open one with [Open].
type Reader struct {
	path  string
	meta  *Metadata
	files []*bagFile

	topics []TopicInfo
	byName map[string]*topicState

	mu    sync.Mutex
	types map[string]*dynmsg.Type // topic -> decoder of its schema
}

type bagFile struct {
	path string
	f    *os.File
	r    *mcap.Reader
}

// topicState is what the reader knows of a topic across its files.
type topicState struct {
	info   TopicInfo
	schema *mcap.Schema // the first file's schema of the topic
}

// Open opens the bag at path: a folder written by rosbag2 (or [Writer]),
// read through its metadata.yaml, or without one, through the MCAP files
// it holds; or one MCAP file. Files whose summary is damaged or missing (a
// recording that did not finish) are scanned instead: Problems lists what
// was found, and [Reader.Messages] reports it after the messages it could
// read.
func Open(path string, o ReaderOptions) (*Reader, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("bag: %w", err)
	}
	r := &Reader{path: path, byName: map[string]*topicState{}, types: map[string]*dynmsg.Type{}}
	var paths []string
	if st.IsDir() {
		if b, err := readLimited(filepath.Join(path, MetadataFile)); err == nil {
			if r.meta, err = ParseMetadata(b); err != nil {
				return nil, fmt.Errorf("bag: %s: %w", filepath.Join(path, MetadataFile), err)
			}
			if r.meta.CompressionMode != "" {
				return nil, fmt.Errorf("%w: %s: rosbag2's %s compression (%s) of whole files or messages: decompress it first (MCAP's own chunk compression is read)",
					ErrUnsupported, path, r.meta.CompressionMode, r.meta.CompressionFormat)
			}
			for _, p := range r.meta.RelativeFilePaths {
				full := filepath.Join(path, p)
				if _, err := os.Stat(full); err != nil {
					// rosbag2 before Humble wrote the folder's name in front.
					full = filepath.Join(path, filepath.Base(p))
				}
				paths = append(paths, full)
			}
		} else if !errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("bag: %w", err)
		} else {
			paths, _ = filepath.Glob(filepath.Join(path, "*.mcap"))
			sort.Strings(paths)
			if len(paths) == 0 {
				return nil, fmt.Errorf("bag: %s: no %s and no .mcap file", path, MetadataFile)
			}
		}
	} else {
		paths = []string{path}
	}
	lim := mcap.Limits(o.Limits)
	for _, p := range paths {
		f, err := os.Open(p)
		if err != nil {
			r.Close()
			return nil, fmt.Errorf("bag: %w", err)
		}
		st, err := f.Stat()
		if err != nil {
			f.Close()
			r.Close()
			return nil, fmt.Errorf("bag: %w", err)
		}
		mr, err := mcap.Open(f, st.Size(), lim)
		if err != nil {
			f.Close()
			r.Close()
			return nil, fmt.Errorf("bag: %s: %w", p, err)
		}
		r.files = append(r.files, &bagFile{path: p, f: f, r: mr})
	}
	r.collect()
	return r, nil
}

func readLimited(name string) ([]byte, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if st.Size() > maxMetadataSize {
		return nil, fmt.Errorf("%w: %s is %d bytes, the limit is %d", ErrMetadata, name, st.Size(), maxMetadataSize)
	}
	b := make([]byte, st.Size())
	_, err = f.ReadAt(b, 0)
	return b, err
}

// collect gathers the topics of the files, and the metadata when the bag
// has no metadata.yaml, as rosbag2's MCAP plugin does: from the files'
// statistics, channels and "rosbag2" metadata record.
func (r *Reader) collect() {
	var fromFiles Metadata
	var start, end uint64
	var haveTime bool
	for _, bf := range r.files {
		mr := bf.r
		if r.meta == nil {
			// The last "rosbag2" record of a file has the bag's metadata
			// as it stood when the file was closed.
			var last *mcap.Metadata
			for i := range mr.Metadata {
				if mr.Metadata[i].Name == "rosbag2" {
					last = &mr.Metadata[i]
				}
			}
			if last != nil {
				if d, ok := last.Metadata["ROS_DISTRO"]; ok {
					fromFiles.ROSDistro = d
				}
				if m, err := ParseMetadata([]byte(last.Metadata["serialized_metadata"])); err == nil {
					if m.ROSDistro != "" {
						fromFiles.ROSDistro = m.ROSDistro
					}
					fromFiles.CompressionFormat, fromFiles.CompressionMode = m.CompressionFormat, m.CompressionMode
					fromFiles.CustomData = m.CustomData
				}
			}
		}
		st := mr.Statistics
		if st.MessageCount > 0 {
			if !haveTime || st.StartTime < start {
				start = st.StartTime
			}
			if !haveTime || st.EndTime > end {
				end = st.EndTime
			}
			haveTime = true
		}
		fromFiles.MessageCount += st.MessageCount
		fi := FileInfo{Path: filepath.Base(bf.path), MessageCount: st.MessageCount}
		if st.MessageCount > 0 {
			fi.StartingTime, fi.Duration = time.Unix(0, int64(st.StartTime)), time.Duration(st.EndTime-st.StartTime)
		}
		fromFiles.Files = append(fromFiles.Files, fi)
		fromFiles.RelativeFilePaths = append(fromFiles.RelativeFilePaths, filepath.Base(bf.path))
		for _, id := range mr.ChannelsOf() {
			ch := mr.Channels[id]
			ts := r.byName[ch.Topic]
			if ts == nil {
				ts = &topicState{info: TopicInfo{Name: ch.Topic, SerializationFormat: ch.MessageEncoding,
					TypeHash: ch.Metadata["topic_type_hash"]}}
				if s := mr.Schemas[ch.SchemaID]; s != nil {
					ts.info.Type, ts.schema = s.Name, s
				}
				ts.info.OfferedQoS, _ = ParseQoSProfiles(ch.Metadata["offered_qos_profiles"])
				r.byName[ch.Topic] = ts
				r.topics = append(r.topics, ts.info)
			}
			ts.info.MessageCount += st.ChannelMessageCounts[id]
		}
	}
	for i := range r.topics {
		r.topics[i].MessageCount = r.byName[r.topics[i].Name].info.MessageCount
	}
	slices.SortFunc(r.topics, func(a, b TopicInfo) int { return strings.Compare(a.Name, b.Name) })
	// The bag's size: its folder's files, as rosbag2 measures it, or the
	// file's.
	var size uint64
	if entries, err := os.ReadDir(r.path); err == nil {
		for _, e := range entries {
			if info, err := e.Info(); err == nil && info.Mode().IsRegular() {
				size += uint64(info.Size())
			}
		}
	} else {
		for _, bf := range r.files {
			if st, err := bf.f.Stat(); err == nil {
				size += uint64(st.Size())
			}
		}
	}
	if r.meta == nil {
		fromFiles.Version = MetadataVersion
		fromFiles.StorageIdentifier = "mcap"
		if haveTime {
			fromFiles.StartingTime = time.Unix(0, int64(start))
			fromFiles.Duration = time.Duration(end - start)
		}
		fromFiles.Topics = r.topics
		r.meta = &fromFiles
	}
	r.meta.BagSize = size
}

// Path returns the path the bag was opened from.
func (r *Reader) Path() string { return r.path }

// Metadata returns the bag's metadata: its metadata.yaml, or what its
// files say when it has none (a single MCAP file). It must not be
// modified.
func (r *Reader) Metadata() *Metadata { return r.meta }

// Topics returns the topics of the bag's files, sorted by name, with their
// message counts as the files count them.
func (r *Reader) Topics() []TopicInfo { return slices.Clone(r.topics) }

// Topic returns what the bag holds of a topic.
func (r *Reader) Topic(name string) (TopicInfo, bool) {
	ts := r.byName[name]
	if ts == nil {
		return TopicInfo{}, false
	}
	return ts.info, true
}

// Schema returns the encoding and definition the bag stores for a topic's
// type ("ros2msg" and .msg text with its dependencies), empty when none.
func (r *Reader) Schema(topic string) (encoding string, data []byte) {
	ts := r.byName[topic]
	if ts == nil || ts.schema == nil {
		return "", nil
	}
	return ts.schema.Encoding, ts.schema.Data
}

// Problems lists the damage found in the bag's files when they were
// opened (a missing or damaged summary, a truncated file), each naming its
// file.
func (r *Reader) Problems() []error {
	var out []error
	for _, bf := range r.files {
		for _, p := range bf.r.Problems {
			out = append(out, fmt.Errorf("%s: %w", filepath.Base(bf.path), p))
		}
	}
	return out
}

// Close closes the bag's files.
func (r *Reader) Close() error {
	var errs []error
	for _, bf := range r.files {
		errs = append(errs, bf.f.Close())
	}
	r.files = nil
	return errors.Join(errs...)
}

// Message is one recorded message.
type Message struct {
	Topic string
	Type  string // "std_msgs/msg/String"
	// Received is when the recorder received it: the bag's time
	// (rosbag2's recv_timestamp, MCAP's log time).
	Received time.Time
	// Published is when it was published, as the publisher stamped it
	// (send_timestamp, MCAP's publish time).
	Published time.Time
	Sequence  uint32
	// Data is the message's CDR payload (encapsulation header included).
	// It is read-only and the caller may keep it.
	Data []byte
}

// ReadOptions select the messages [Reader.Messages] yields.
type ReadOptions struct {
	// Topics lists the topics to read; empty reads them all.
	Topics []string
	// Start and End bound the receive times read: Start <= t < End. Zero
	// values leave that side open.
	Start, End time.Time
}

// Messages yields the selected messages of every file in receive-time
// order (messages of equal times in file order), merging the chunks of a
// file and the files of a bag whose times overlap. Damage is yielded as an
// error in its place and the iteration goes on with what is intact: a
// chunk that fails its CRC or does not decompress, then, after the last
// message, a file that ends early. Stop at the first error to read only
// what came before it.
func (r *Reader) Messages(o ReadOptions) iter.Seq2[Message, error] {
	return func(yield func(Message, error) bool) {
		var mo mcap.ReadOptions
		if !o.Start.IsZero() && o.Start.UnixNano() > 0 {
			mo.Start = uint64(o.Start.UnixNano())
		}
		if !o.End.IsZero() {
			if o.End.UnixNano() <= 0 {
				return
			}
			mo.End = uint64(o.End.UnixNano())
		}
		type source struct {
			next func() (mcap.Message, error, bool)
			stop func()
			file *bagFile
			m    mcap.Message
		}
		var srcs []*source
		defer func() {
			for _, s := range srcs {
				s.stop()
			}
		}()
		for _, bf := range r.files {
			fo := mo
			if len(o.Topics) > 0 {
				fo.Channels = bf.r.ChannelsOf(o.Topics...)
				if len(fo.Channels) == 0 && len(bf.r.Problems) == 0 {
					continue
				}
				if fo.Channels == nil {
					fo.Channels = []uint16{} // none of them: only the file's problems
				}
			}
			next, stop := iter.Pull2(bf.r.Messages(fo))
			srcs = append(srcs, &source{next: next, stop: stop, file: bf})
		}
		// Prime each source; an error is yielded at once.
		advance := func(s *source) (ok bool, cont bool) {
			for {
				m, err, more := s.next()
				if !more {
					return false, true
				}
				if err != nil {
					if !yield(Message{}, fmt.Errorf("bag: %s: %w", filepath.Base(s.file.path), err)) {
						return false, false
					}
					continue
				}
				s.m = m
				return true, true
			}
		}
		var live []*source
		for _, s := range srcs {
			ok, cont := advance(s)
			if !cont {
				return
			}
			if ok {
				live = append(live, s)
			}
		}
		for len(live) > 0 {
			best := 0
			for i, s := range live[1:] {
				if s.m.LogTime < live[best].m.LogTime {
					best = i + 1
				}
			}
			s := live[best]
			ch := s.file.r.Channels[s.m.ChannelID]
			msg := Message{Topic: ch.Topic, Received: time.Unix(0, int64(s.m.LogTime)),
				Published: time.Unix(0, int64(s.m.PublishTime)), Sequence: s.m.Sequence, Data: s.m.Data}
			if sc := s.file.r.Schemas[ch.SchemaID]; sc != nil {
				msg.Type = sc.Name
			}
			if !yield(msg, nil) {
				return
			}
			ok, cont := advance(s)
			if !cont {
				return
			}
			if !ok {
				live = slices.Delete(live, best, best+1)
			}
		}
	}
}

// ErrUnsupported is matched by the error for a bag this package cannot
// read: rosbag2's file or message compression, a storage other than MCAP.
var ErrUnsupported = errors.New("bag: unsupported")

// ErrDecode is matched by the errors for a message that cannot be
// decoded.
var ErrDecode = errors.New("bag: cannot decode")

// Decode decodes a message's payload into a generated type (package
// ros/msgs or afor-rosgen's output), after checking that the message's
// type is T's.
func Decode[T any, PT interface {
	*T
	cdr.Message
}](m Message) (T, error) {
	var v T
	if m.Type != "" && m.Type != PT(&v).TypeName() {
		return v, fmt.Errorf("%w: %s is a %s, not a %s", ErrDecode, m.Topic, m.Type, PT(&v).TypeName())
	}
	if err := PT(&v).UnmarshalCDR(m.Data); err != nil {
		return v, fmt.Errorf("%w: %s: %w", ErrDecode, m.Topic, err)
	}
	return v, nil
}

// Type returns the decoder of a topic's messages, built from the
// definition stored in the bag (its ros2msg schema), or when the bag
// stores none that can be used (an empty schema, a ros2idl one), from the
// interfaces shipped with afor and those of fallback, which may be nil.
func (r *Reader) Type(topic string, fallback *idl.Registry) (*dynmsg.Type, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if t, ok := r.types[topic]; ok {
		return t, nil
	}
	ts := r.byName[topic]
	if ts == nil {
		return nil, fmt.Errorf("%w: %s", ErrUnknownTopic, topic)
	}
	var errs []error
	if s := ts.schema; s != nil && s.Encoding == EncodingROS2Msg && len(s.Data) > 0 {
		reg, err := registryOf(s.Name, s.Data)
		if err == nil {
			t, err := dynmsg.NewType(reg, s.Name)
			if err == nil {
				r.types[topic] = t
				return t, nil
			}
			errs = append(errs, fmt.Errorf("the bag's definition: %w", err))
		} else {
			errs = append(errs, fmt.Errorf("the bag's definition: %w", err))
		}
	}
	reg := fallback
	if reg == nil {
		var err error
		if reg, err = dynmsg.NewRegistry(); err != nil {
			return nil, err
		}
	}
	t, err := dynmsg.NewType(reg, ts.info.Type)
	if err != nil {
		errs = append(errs, err)
		return nil, fmt.Errorf("%w: %s (%s): %w", ErrDecode, topic, ts.info.Type, errors.Join(errs...))
	}
	r.types[topic] = t
	return t, nil
}

// DecodeDynamic decodes a message with the decoder of its topic
// ([Reader.Type] with no fallback).
func (r *Reader) DecodeDynamic(m Message) (dynmsg.Message, error) {
	t, err := r.Type(m.Topic, nil)
	if err != nil {
		return nil, err
	}
	v, err := t.Decode(m.Data)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrDecode, m.Topic, err)
	}
	return v, nil
}
