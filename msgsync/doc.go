// Package msgsync matches messages of several subs by their stamps, as
// ROS's message_filters do: a camera image with the laser scan of the same
// instant, an image with its camera info.
//
// A synchronizer works on any [afor.Sub], given the function that reads a
// value's stamp ([Input]), and is itself a sub of the sets it matches:
//
//   - [Exact] (and [Exact3], [ExactN]) emits a set when every input has a
//     message with exactly the same stamp (message_filters' ExactTime);
//   - [Approximate] (and [Approximate3], [ApproximateN]) finds the best sets
//     of messages whose stamps differ, with message_filters'
//     ApproximateTime algorithm and parameters.
//
// Like [afor.Map], a synchronizer runs in the producer goroutines of its
// inputs (no goroutine of its own, none per message), keeps a bounded
// number of messages ([QueueSize]), and counts what it drops ([Sync.Stats]).
// Closing it detaches it from its inputs; closing an input closes it.
//
// A [Cache] keeps the latest messages of a sub by stamp (message_filters'
// Cache) for lookups by time, and waits for a message at or after a time.
//
// For ROS 2 messages, package rossync reads the stamp of a message's
// header; this package does not depend on package ros.
package msgsync
