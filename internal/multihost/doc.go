// Package multihost holds the multi-host test suite: Go nodes, rclpy on
// Fast DDS and the Rust Zenoh router on simulated hosts (package
// internal/netns/hosts), over LANs that lose, duplicate, reorder and
// delay datagrams, cap bandwidth or break. It has no code of its own; its
// tests run with go test like any other package's, and set up their hosts
// themselves.
//
// Set AFOR_MULTIHOST_REPORT to a file name to have the measuring tests
// append their results there (one tab-separated row per scenario and
// peer: delivered, lost, duplicated, latency percentiles, rediscovery
// time).
package multihost
