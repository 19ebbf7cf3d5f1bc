// Package cdrtest holds the independent CDR oracles of the ROS 2 codec that
// need a C toolchain: its test compiles a small C program of ours
// (testdata/driver.c) against the C types that Cyclone DDS's idlc generates
// from testdata/oracle.idl, and checks that Cyclone's serializer reads our
// bytes and that we read its bytes. It has no non-test code.
package cdrtest
