//go:build darwin || freebsd || netbsd || openbsd || dragonfly

package dds

import "syscall"

const soReusePort = syscall.SO_REUSEPORT
