package rmwzenoh

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/afor-go/afor/ros/internal/rmw"
)

// livelinessPrefix starts every rmw_zenoh liveliness token.
const livelinessPrefix = "@ros2_lv"

// mangle replaces every '/' of s with '%', as rmw_zenoh writes names in
// liveliness tokens.
func mangle(s string) string { return strings.ReplaceAll(s, "/", "%") }

// demangle undoes mangle.
func demangle(s string) string { return strings.ReplaceAll(s, "%", "/") }

// zidString formats a Zenoh ID as rmw_zenoh writes it in tokens: the hex of
// the 128-bit number whose little-endian bytes are the wire ID (so the
// bytes reversed), lowercase, with leading zeros dropped.
func zidString(wire []byte) string {
	const digits = "0123456789abcdef"
	b := make([]byte, 0, 2*len(wire))
	for i := len(wire) - 1; i >= 0; i-- {
		b = append(b, digits[wire[i]>>4], digits[wire[i]&0xf])
	}
	s := strings.TrimLeft(string(b), "0")
	if s == "" {
		return "0"
	}
	return s
}

// zidFromSession turns transport/zenoh's Session.ZID (reversed bytes in hex,
// zeros kept) into rmw_zenoh's form.
func zidFromSession(hexZID string) string {
	s := strings.TrimLeft(hexZID, "0")
	if s == "" {
		return "0"
	}
	return s
}

// dataKey is the key expression of a topic's or service's data:
// "<domain>/<name without its outer slashes>/<DDS type>/<type hash>".
func dataKey(domain int, name, ddsType, hash string) string {
	var b strings.Builder
	b.Grow(24 + len(name) + len(ddsType) + len(hash))
	b.WriteString(strconv.Itoa(domain))
	b.WriteByte('/')
	b.WriteString(strings.Trim(name, "/"))
	b.WriteByte('/')
	b.WriteString(ddsType)
	b.WriteByte('/')
	b.WriteString(hash)
	return b.String()
}

// checkName rejects what cannot become a key expression chunk or a token
// part: package ros validates ROS names, this only guards the encoding.
func checkName(what, s string) error {
	if s == "" {
		return fmt.Errorf("%w: empty %s", ErrInvalid, what)
	}
	if strings.ContainsAny(s, "*$?#%") {
		return fmt.Errorf("%w: %s %q has a character rmw_zenoh cannot carry", ErrInvalid, what, s)
	}
	return nil
}

// checkType rejects a type whose DDS name or hash cannot be a key chunk.
func checkType(t rmw.Type) error {
	if err := checkName("DDS type name", t.DDSName); err != nil {
		return err
	}
	if strings.Contains(t.DDSName, "/") {
		return fmt.Errorf("%w: DDS type name %q has a '/'", ErrInvalid, t.DDSName)
	}
	if err := checkName("type hash", t.Hash); err != nil {
		return err
	}
	if strings.Contains(t.Hash, "/") {
		return fmt.Errorf("%w: type hash %q has a '/'", ErrInvalid, t.Hash)
	}
	return nil
}

// rosTypeName turns a DDS type name ("std_msgs::msg::dds_::String_") into
// its ROS name ("std_msgs/msg/String"). Names of another shape are
// returned as they are.
func rosTypeName(dds string) string {
	parts := strings.Split(dds, "::")
	if len(parts) != 4 || parts[2] != "dds_" || !strings.HasSuffix(parts[3], "_") || len(parts[3]) < 2 {
		return dds
	}
	return parts[0] + "/" + parts[1] + "/" + strings.TrimSuffix(parts[3], "_")
}
