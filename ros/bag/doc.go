// Package bag records and plays ROS 2 bags in the layout of rosbag2's MCAP
// storage, in pure Go: folders that `ros2 bag info` and `ros2 bag play`
// accept and Foxglove opens, and bags written by rosbag2 or any MCAP
// writer with the ros2 profile.
//
// # Files
//
// A bag is a folder holding MCAP files ("<folder name>_0.mcap", "_1", ...
// when split by size or duration) and metadata.yaml (rosbag2's version 9:
// topics with their message counts, offered QoS profiles and type hashes,
// files, duration, starting time, custom data, ROS distribution). Each MCAP
// file has the ros2 profile; schemas are the types' definitions as
// rosbag2 stores them (ros2msg: the .msg text, then each type it uses after
// a line of 80 "=" and "MSG: pkg/Name"); channels carry the cdr encoding
// and rosbag2's offered_qos_profiles and topic_type_hash metadata; messages
// are in chunks (uncompressed, zstd or lz4) followed by their message
// indexes, and the summary repeats schemas and channels and holds the
// statistics, chunk and metadata indexes and summary offsets. A "rosbag2"
// metadata record in each file holds the bag's metadata, as rosbag2 writes
// it.
//
// [Writer] writes bags ([Create]); [Reader] reads them ([Open]), or a
// single MCAP file, by topic and time range, in receive-time order across
// chunks and files (chunks whose times overlap are merged), reading chunks
// as it needs them: memory is bounded by the chunks that overlap, never
// by the file. Payloads are the messages' CDR bytes: [Decode] decodes them
// into generated types (package ros/msgs), [Reader.Type] into
// dynamic messages (package ros/dynmsg) from the definitions the bag
// stores.
//
// # Damaged files
//
// A file whose recording did not finish (no summary), or whose summary is
// damaged, is scanned instead of indexed. Every length read from a file is
// checked against what remains and against [Limits] before anything is
// allocated. [Reader.Messages] yields every intact message, in order, and
// reports each damage (a chunk failing its CRC or not decompressing to its
// size, a file cut short) as an error in its place.
//
// # Live systems
//
// [Record] subscribes to the topics of a ROS 2 graph (package ros, over DDS
// or Zenoh) as `ros2 bag record` does: all topics, a list or a regular
// expression, discovering new topics as they appear, each with the QoS its
// publishers offer (TRANSIENT_LOCAL kept), queueing payloads as received
// (bounded in bytes) for a single writer goroutine. [Play] publishes a
// bag's messages at their recorded pace (or a multiple), looped, from an
// offset, with the recorded QoS, and publishes /clock for nodes on sim
// time.
//
// Package bagtest makes bags test fixtures.
package bag
