//go:build !(386 || amd64 || arm || arm64 || loong64 || mips64le || mipsle || ppc64le || riscv64 || wasm)

package cdr

// nativeLittle reports whether this host stores integers little-endian, in
// which case little-endian numeric slices are copied in bulk.
const nativeLittle = false
