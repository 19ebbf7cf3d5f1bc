package bag

import (
	"bufio"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"github.com/afor-go/afor/ros/bag/internal/mcap"
)

// Library is the MCAP library string of the files this package writes.
const Library = "afor ros/bag"

// Compression is the compression of a bag's MCAP chunks.
type Compression string

// The chunk compressions. rosbag2 writes uncompressed chunks unless its
// storage preset profile or configuration asks for zstd or lz4.
const (
	CompressionNone Compression = ""
	CompressionZstd Compression = "zstd"
	CompressionLZ4  Compression = "lz4"
)

// CompressionLevel is a compression effort, as rosbag2's MCAP storage
// configuration names them.
type CompressionLevel int

// Compression levels.
const (
	LevelDefault CompressionLevel = iota
	LevelFastest
	LevelFast
	LevelSlow
	LevelSlowest
)

// WriterOptions configure a [Writer]. The zero value writes what rosbag2
// writes by default: uncompressed chunks of 768 KiB, one file.
type WriterOptions struct {
	Compression      Compression
	CompressionLevel CompressionLevel
	// ChunkSize closes a chunk once it holds this many bytes; 0 means
	// 768 KiB; a negative size writes no chunks (rosbag2's "fastwrite"
	// preset: messages unindexed, in the data section).
	ChunkSize int64
	// NoChunkCRC leaves out the chunks' CRCs, as rosbag2 does by default.
	// With them (the default here) a reader detects a damaged chunk.
	NoChunkCRC bool
	// MaxFileSize starts a new file once the current one holds this many
	// bytes; 0 never splits on size.
	MaxFileSize int64
	// MaxFileDuration starts a new file once a message's receive time is
	// this far from the first of the current file; 0 never splits on
	// time.
	MaxFileDuration time.Duration
	// ROSDistro is written to the metadata ("jazzy", "kilted"); rosbag2
	// takes it from ROS_DISTRO.
	ROSDistro  string
	CustomData map[string]string
	// Definitions finds the schemas of the topics' types; nil uses the
	// interfaces shipped with afor.
	Definitions *Definitions
}

// Topic is what a bag records of a topic.
type Topic struct {
	Name string // "/chatter"
	Type string // "std_msgs/msg/String"
	// SerializationFormat is the message encoding; "" means "cdr".
	SerializationFormat string
	// OfferedQoS lists the topic's publishers' QoS profiles.
	OfferedQoS []QoS
	// TypeHash is the type's RIHS01 hash, "" when unknown.
	TypeHash string
	// SchemaEncoding and Schema give the type's definition; when both are
	// empty the writer finds it in its Definitions (no definition found
	// leaves the schema empty, as rosbag2 does).
	SchemaEncoding string
	Schema         []byte
}

// Writer writes a bag: a folder holding MCAP files and metadata.yaml, as
// `ros2 bag record` with the MCAP storage writes it. Create one with
// [Create]. It is safe for concurrent use.
type Writer struct {
	dir  string
	base string
	opts WriterOptions
	defs *Definitions

	mu       sync.Mutex
	file     *os.File
	buf      *bufio.Writer
	mw       *mcap.Writer
	meta     Metadata
	topics   []*writerTopic
	byName   map[string]*writerTopic
	schemas  map[string]uint16 // type -> schema ID in the current file
	first    bool              // no message written yet
	fileMsgs bool              // the current file has messages
	closed   bool
	err      error
}

type writerTopic struct {
	Topic
	channel uint16 // in the current file
	info    *TopicInfo
}

// ErrExists is matched by the error of [Create] for a folder that exists:
// a bag is never written over.
var ErrExists = errors.New("bag: folder exists")

// Create creates the bag folder dir (which must not exist) and its first
// file, "<name of dir>_0.mcap". Close writes metadata.yaml.
func Create(dir string, o WriterOptions) (*Writer, error) {
	if _, err := os.Stat(dir); err == nil {
		return nil, fmt.Errorf("%w: %s", ErrExists, dir)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("bag: %w", err)
	}
	defs := o.Definitions
	if defs == nil {
		var err error
		if defs, err = NewDefinitions(); err != nil {
			return nil, err
		}
	}
	w := &Writer{dir: dir, base: filepath.Base(filepath.Clean(dir)), opts: o, defs: defs,
		byName: map[string]*writerTopic{}, first: true}
	w.meta = Metadata{Version: MetadataVersion, StorageIdentifier: "mcap", CustomData: o.CustomData,
		ROSDistro: o.ROSDistro, StartingTime: time.Unix(0, math.MaxInt64)}
	if err := w.openFile(); err != nil {
		return nil, err
	}
	return w, nil
}

// Dir returns the bag's folder.
func (w *Writer) Dir() string { return w.dir }

func (w *Writer) openFile() error {
	name := w.base + "_" + strconv.Itoa(len(w.meta.RelativeFilePaths)) + ".mcap"
	f, err := os.OpenFile(filepath.Join(w.dir, name), os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
	if err != nil {
		return fmt.Errorf("bag: %w", err)
	}
	buf := bufio.NewWriterSize(f, 256<<10)
	mw, err := mcap.NewWriter(buf, mcap.WriterOptions{Profile: "ros2", Library: Library,
		ChunkSize: w.opts.ChunkSize, Compression: mcap.Compression(w.opts.Compression),
		Level: mcap.Level(w.opts.CompressionLevel), NoChunkCRC: w.opts.NoChunkCRC})
	if err != nil {
		_ = f.Close()
		return fmt.Errorf("bag: %s: %w", name, err)
	}
	w.file, w.buf, w.mw = f, buf, mw
	w.schemas = map[string]uint16{}
	w.fileMsgs = false
	w.meta.RelativeFilePaths = append(w.meta.RelativeFilePaths, name)
	w.meta.Files = append(w.meta.Files, FileInfo{Path: name, StartingTime: time.Unix(0, math.MaxInt64)})
	if err := w.writeMetadataRecord(); err != nil {
		return err
	}
	for _, t := range w.topics {
		if err := w.addChannel(t); err != nil {
			return err
		}
	}
	return nil
}

// writeMetadataRecord writes the metadata as it stands to the current
// file, as rosbag2 does when it opens and closes one.
func (w *Writer) writeMetadataRecord() error {
	w.refreshTopics()
	return w.mw.WriteMetadata(mcap.Metadata{Name: "rosbag2", Metadata: map[string]string{"serialized_metadata": w.meta.MarshalYAML()}})
}

func (w *Writer) refreshTopics() {
	w.meta.Topics = w.meta.Topics[:0]
	w.meta.MessageCount = 0
	for _, t := range w.topics {
		w.meta.Topics = append(w.meta.Topics, *t.info)
		w.meta.MessageCount += t.info.MessageCount
	}
}

func (w *Writer) addChannel(t *writerTopic) error {
	sid, ok := w.schemas[t.Type]
	if !ok {
		var err error
		if sid, err = w.mw.AddSchema(t.Type, t.SchemaEncoding, t.Schema); err != nil {
			return err
		}
		w.schemas[t.Type] = sid
	}
	md := map[string]string{"offered_qos_profiles": FormatQoSProfiles(t.OfferedQoS), "topic_type_hash": t.TypeHash}
	id, err := w.mw.AddChannel(sid, t.Name, t.SerializationFormat, md)
	t.channel = id
	return err
}

// AddTopic adds a topic to the bag. Adding a topic already there does
// nothing.
func (w *Writer) AddTopic(t Topic) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if err := w.check(); err != nil {
		return err
	}
	if _, ok := w.byName[t.Name]; ok {
		return nil
	}
	if t.SerializationFormat == "" {
		t.SerializationFormat = "cdr"
	}
	if t.SchemaEncoding == "" && len(t.Schema) == 0 {
		if enc, data, err := w.defs.Schema(t.Type); err == nil {
			t.SchemaEncoding, t.Schema = enc, data
		}
	}
	wt := &writerTopic{Topic: t, info: &TopicInfo{Name: t.Name, Type: t.Type, SerializationFormat: t.SerializationFormat,
		OfferedQoS: t.OfferedQoS, TypeHash: t.TypeHash}}
	if err := w.addChannel(wt); err != nil {
		return w.fail(err)
	}
	w.topics = append(w.topics, wt)
	w.byName[t.Name] = wt
	return nil
}

// ErrClosed is matched by the errors of a closed writer.
var ErrClosed = errors.New("bag: closed")

// ErrUnknownTopic is matched by the error for a message on a topic the
// writer was not given.
var ErrUnknownTopic = errors.New("bag: unknown topic")

func (w *Writer) check() error {
	if w.closed {
		return ErrClosed
	}
	return w.err
}

func (w *Writer) fail(err error) error {
	if w.err == nil {
		w.err = fmt.Errorf("bag: %s: %w", w.dir, err)
	}
	return w.err
}

// Write adds one message of a topic added before: its CDR payload, when
// it was received (the bag's time) and published. seq is the
// publisher's sequence number (0 when unknown). The payload is copied.
func (w *Writer) Write(topic string, received, published time.Time, seq uint32, payload []byte) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if err := w.check(); err != nil {
		return err
	}
	t := w.byName[topic]
	if t == nil {
		return fmt.Errorf("%w: %s", ErrUnknownTopic, topic)
	}
	if published.IsZero() {
		published = received
	}
	if w.fileMsgs && w.shouldSplit(received) {
		if err := w.split(); err != nil {
			return w.fail(err)
		}
	}
	if err := w.mw.WriteMessage(mcap.Message{ChannelID: t.channel, Sequence: seq,
		LogTime: uint64(received.UnixNano()), PublishTime: uint64(published.UnixNano()), Data: payload}); err != nil {
		return w.fail(err)
	}
	w.fileMsgs = true
	if w.first || received.Before(w.meta.StartingTime) {
		if !w.first {
			w.meta.Duration += w.meta.StartingTime.Sub(received)
		}
		w.meta.StartingTime = received
		w.first = false
	}
	w.meta.Duration = max(w.meta.Duration, received.Sub(w.meta.StartingTime))
	f := &w.meta.Files[len(w.meta.Files)-1]
	if f.MessageCount == 0 || received.Before(f.StartingTime) {
		if f.MessageCount != 0 {
			f.Duration += f.StartingTime.Sub(received)
		}
		f.StartingTime = received
	}
	f.Duration = max(f.Duration, received.Sub(f.StartingTime))
	f.MessageCount++
	t.info.MessageCount++
	return nil
}

func (w *Writer) shouldSplit(t time.Time) bool {
	if w.opts.MaxFileSize > 0 && int64(w.mw.Size()) >= w.opts.MaxFileSize {
		return true
	}
	f := &w.meta.Files[len(w.meta.Files)-1]
	return w.opts.MaxFileDuration > 0 && f.MessageCount > 0 && t.Sub(f.StartingTime) > w.opts.MaxFileDuration
}

func (w *Writer) split() error {
	if err := w.closeFile(); err != nil {
		return err
	}
	return w.openFile()
}

func (w *Writer) closeFile() error {
	err := w.writeMetadataRecord()
	if err == nil {
		err = w.mw.Close()
	}
	if err == nil {
		err = w.buf.Flush()
	}
	if cerr := w.file.Close(); err == nil {
		err = cerr
	}
	return err
}

// Flush writes the open chunk and the buffered bytes to the current
// file, so that they can be read from it (without its summary) if the
// process stops.
func (w *Writer) Flush() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if err := w.check(); err != nil {
		return err
	}
	if err := w.mw.Flush(); err != nil {
		return w.fail(err)
	}
	if err := w.buf.Flush(); err != nil {
		return w.fail(err)
	}
	return nil
}

// Metadata returns the bag's metadata as it stands.
func (w *Writer) Metadata() Metadata {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.refreshTopics()
	m := w.meta
	m.Topics = append([]TopicInfo(nil), m.Topics...)
	m.Files = append([]FileInfo(nil), m.Files...)
	m.RelativeFilePaths = append([]string(nil), m.RelativeFilePaths...)
	if w.first {
		m.StartingTime = time.Time{}
	}
	return m
}

// Close finishes the current file (its summary and footer) and writes
// metadata.yaml. Close is idempotent.
func (w *Writer) Close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.closed {
		return w.err
	}
	w.closed = true
	if w.first {
		w.meta.StartingTime = time.Unix(0, 0)
		for i := range w.meta.Files {
			w.meta.Files[i].StartingTime = time.Unix(0, 0)
		}
	}
	err := w.closeFile()
	var size uint64
	for _, p := range w.meta.RelativeFilePaths {
		if st, err := os.Stat(filepath.Join(w.dir, p)); err == nil {
			size += uint64(st.Size())
		}
	}
	w.meta.BagSize = size
	w.refreshTopics()
	if werr := os.WriteFile(filepath.Join(w.dir, MetadataFile), []byte(w.meta.FileYAML()), 0o644); err == nil {
		err = werr
	}
	if err != nil {
		return w.fail(err)
	}
	return w.err
}
