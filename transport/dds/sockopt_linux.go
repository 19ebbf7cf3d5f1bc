package dds

// soReusePort is SO_REUSEPORT, which package syscall does not define on Linux.
const soReusePort = 0xf
