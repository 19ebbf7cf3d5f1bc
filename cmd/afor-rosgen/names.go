package main

import (
	"strings"
	"unicode"
)

// initialism returns the capitalized spelling of a word that Go names spell
// in capitals ("id" -> "ID"), or "".
func initialism(w string) string {
	switch w {
	case "id", "uuid", "gid", "url", "uri", "dof", "roi", "api", "json", "http":
		return strings.ToUpper(w)
	}
	return ""
}

// isReserved reports whether n names a method of generated types; a field
// with such a Go name gets a trailing underscore.
func isReserved(n string) bool {
	switch n {
	case "AppendCDR", "UnmarshalCDR", "EncodeCDR", "DecodeCDR",
		"TypeName", "DDSTypeName", "TypeHash", "SetDefaults":
		return true
	}
	return false
}

// fieldName turns a lower_snake_case field name into an exported Go name:
// "frame_id" -> "FrameID", "int8_value" -> "Int8Value".
func fieldName(snake string) string {
	n := camel(strings.ToLower(snake))
	if isReserved(n) {
		n += "_"
	}
	return n
}

// camel joins the '_'-separated words of s, capitalizing each.
func camel(s string) string {
	var b strings.Builder
	for _, w := range strings.Split(s, "_") {
		if w == "" {
			continue
		}
		if up := initialism(w); up != "" {
			b.WriteString(up)
			continue
		}
		r := []rune(w)
		r[0] = unicode.ToUpper(r[0])
		b.WriteString(string(r))
	}
	return b.String()
}

// typeName turns a ROS type name into a Go type name: "Header" -> "Header",
// "AddTwoInts_Request" -> "AddTwoIntsRequest".
func typeName(ros string) string {
	var b strings.Builder
	for _, w := range strings.Split(ros, "_") {
		if w == "" {
			continue
		}
		r := []rune(w)
		r[0] = unicode.ToUpper(r[0])
		b.WriteString(string(r))
	}
	return b.String()
}

// constName turns the UPPER_SNAKE_CASE constant c of the Go type owner into
// a Go constant name: ("GoalStatus", "STATUS_UNKNOWN") ->
// "GoalStatusStatusUnknown".
func constName(owner, c string) string {
	return owner + camel(strings.ToLower(c))
}

// fileName turns a ROS type name into a lower_snake_case file base name:
// "PointCloud2" -> "point_cloud2", "AddTwoInts" -> "add_two_ints".
func fileName(ros string) string {
	var b strings.Builder
	rs := []rune(ros)
	for i, r := range rs {
		if unicode.IsUpper(r) {
			if i > 0 && (unicode.IsLower(rs[i-1]) || unicode.IsDigit(rs[i-1]) ||
				(i+1 < len(rs) && unicode.IsLower(rs[i+1]) && unicode.IsUpper(rs[i-1]))) {
				b.WriteByte('_')
			}
			b.WriteRune(unicode.ToLower(r))
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// goFileName returns the Go file name of base: base + ".go", or base +
// "_type.go" where the go tool would read a suffix of base as a build
// constraint ("srv_self_test": a test file; "msg_linux", "msg_arm":
// files for one system or architecture only).
func goFileName(base string) string {
	last := base[strings.LastIndexByte(base, '_')+1:]
	if last == "test" || knownOS[last] || knownArch[last] {
		return base + "_type.go"
	}
	return base + ".go"
}

// knownOS and knownArch are the GOOS and GOARCH values the go tool knows
// (go/build's lists, which it also honours for systems it cannot build
// for).
var (
	knownOS = map[string]bool{"aix": true, "android": true, "darwin": true, "dragonfly": true,
		"freebsd": true, "hurd": true, "illumos": true, "ios": true, "js": true, "linux": true,
		"nacl": true, "netbsd": true, "openbsd": true, "plan9": true, "solaris": true,
		"wasip1": true, "windows": true, "zos": true}
	knownArch = map[string]bool{"386": true, "amd64": true, "amd64p32": true, "arm": true,
		"armbe": true, "arm64": true, "arm64be": true, "loong64": true, "mips": true,
		"mipsle": true, "mips64": true, "mips64le": true, "mips64p32": true, "mips64p32le": true,
		"ppc": true, "ppc64": true, "ppc64le": true, "riscv": true, "riscv64": true, "s390": true,
		"s390x": true, "sparc": true, "sparc64": true, "wasm": true}
)
