// Package ddspeer starts the reference DDS peers that transport/dds's interop
// tests play against: small writer and reader programs of our own
// (transport/dds/testdata) on Cyclone DDS through its Python binding
// ([Cyclone]), on rclpy with Fast DDS ([Rclpy]), and on Cyclone DDS's C API
// from Debian ([C]), plus Cyclone's benchmark tool ([DDSPerf]).
//
// Every peer takes the same [Options] (role, topic, QoS, count, period,
// payload size, domain) and prints the same JSON lines, decoded as [Event]s:
// "ready", "matched", "incompatible", "sample" (with its index and length,
// not its payload) and "done". The payload of sample i is [Payload](i, size),
// so a Go writer can feed a reference reader and the other way round.
//
// A VOLATILE reader drops the samples written before it matched the writer,
// and the two sides match at different moments: a test that counts every
// sample starts the writer with [Options.WaitGo] and calls [Peer.Go] once
// both have printed "matched".
//
// The peers are found through internal/peers: missing ones skip the test,
// or fail it in CI. They must run inside the loopback-only network namespace
// of internal/netns: call netns.Exec from the package's TestMain. A peer
// ends with its test; its stderr is logged when the test failed.
package ddspeer
