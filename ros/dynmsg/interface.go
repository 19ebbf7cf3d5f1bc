package dynmsg

import (
	"errors"
	"io/fs"
	"os"
	"regexp"
	"strings"

	"github.com/afor-go/afor/ros/idl"
	"github.com/afor-go/afor/ros/interfaces"
)

// ListInterfaces returns the lines `ros2 interface list` prints for the
// types of reg: "Messages:", then each message type ("pkg/msg/Name")
// indented by four spaces, then "Services:" and "Actions:" likewise, each
// group sorted by package and name. The parts of services and actions are
// not listed as messages, nor the services of actions as services.
func ListInterfaces(reg *idl.Registry) []string {
	out := []string{"Messages:"}
	for _, m := range reg.Messages() {
		if m.Namespace == "msg" {
			out = append(out, "    "+m.FullName())
		}
	}
	out = append(out, "Services:")
	for _, s := range reg.Services() {
		if s.Namespace == "srv" {
			out = append(out, "    "+s.FullName())
		}
	}
	out = append(out, "Actions:")
	for _, a := range reg.Actions() {
		out = append(out, "    "+a.FullName())
	}
	return out
}

// ShowInterface returns what `ros2 interface show` prints for the message,
// service or action name ("geometry_msgs/msg/PoseStamped", or the short
// form "geometry_msgs/PoseStamped"): the lines of its file as written
// (comments and blank lines included), each line that declares a field of a
// message type followed by that message's definition indented one more tab
// (without its comments and blank lines), recursively. The shipped files
// hold no comments. When the file cannot be read again (a definition added
// to reg by hand), the definition is printed from its parsed form, nested
// types qualified ("geometry_msgs/Point").
func ShowInterface(reg *idl.Registry, name string) (string, error) {
	file, pkg, fallback, err := lookupInterface(reg, name)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	lines, ok := readLines(file)
	if !ok {
		lines = strings.Split(strings.TrimSuffix(string(fallback), "\n"), "\n")
	}
	for _, l := range lines {
		b.WriteString(l)
		b.WriteByte('\n')
		showNested(&b, reg, pkg, l, 1, 0)
	}
	return b.String(), nil
}

// lookupInterface finds the file, package and formatted definition of name.
func lookupInterface(reg *idl.Registry, name string) (file, pkg string, text []byte, err error) {
	if m, err := reg.Message(name); err == nil && m.Namespace == "msg" {
		return m.File, m.Package, m.Format(), nil
	}
	if s, err := reg.Service(name); err == nil {
		return s.File, s.Package, s.Format(), nil
	}
	if a, err := reg.Action(name); err == nil {
		return a.File, a.Package, a.Format(), nil
	}
	_, err = reg.Message(name)
	if err == nil || !errors.Is(err, idl.ErrUnknownType) {
		err = errors.Join(ErrUnknownType, err)
	}
	return "", "", nil, err
}

// readLines reads an interface file again, from the shipped files when its
// name is relative, else from disk, and returns its lines right-trimmed.
func readLines(file string) ([]string, bool) {
	if file == "" {
		return nil, false
	}
	var src []byte
	var err error
	if fs.ValidPath(file) {
		src, err = fs.ReadFile(interfaces.FS(), file)
	} else {
		src, err = os.ReadFile(file)
	}
	if err != nil || len(src) > idl.MaxFileSize {
		return nil, false
	}
	text := strings.ReplaceAll(string(src), "\r\n", "\n")
	text = strings.TrimSuffix(text, "\n")
	if text == "" {
		return nil, true // an empty message: nothing to print
	}
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " \t\r\f\v")
	}
	return lines, true
}

// showNested writes, when line declares a field of a message type, that
// message's lines indented by depth tabs (comments and blank lines left
// out), recursively.
func showNested(b *strings.Builder, reg *idl.Registry, pkg, line string, depth, guard int) {
	if guard > 32 {
		return // a recursive type that the registry let through
	}
	typ, ok := fieldType(line, pkg)
	if !ok || typ.Kind != idl.Nested {
		return
	}
	m, err := reg.Resolve(typ)
	if err != nil {
		return
	}
	lines, ok := readLines(m.File)
	if !ok {
		lines = strings.Split(strings.TrimSuffix(string(m.Format()), "\n"), "\n")
	}
	indent := strings.Repeat("\t", depth)
	for _, l := range lines {
		text, ok := nestedLine(l)
		if !ok {
			continue
		}
		b.WriteString(indent)
		b.WriteString(text)
		b.WriteByte('\n')
		showNested(b, reg, m.Package, l, depth+1, guard+1)
	}
}

// nestedLine returns how ros2 interface show prints a line of a nested
// definition, where comments are left out, or ok false to leave the line
// out. It follows what rosidl_adapter's parser makes of the line alone:
// blank lines and comment lines go; a line whose comment text is empty
// once processed ("#", "# [m]"), and an indented comment line, stay as
// they are; a trailing comment is cut where its processed text is first
// found in the line, minus one character, which leaves the '#'
// ("float64 x # the x" prints as "float64 x #"), as ros2interface does.
func nestedLine(raw string) (string, bool) {
	if raw == "" {
		return "", false
	}
	line := strings.ReplaceAll(raw, "\t", " ")
	if strings.HasPrefix(line, "#") {
		if len(processComment(strings.TrimLeft(line, "#"))) > 0 {
			return "", false // a comment line
		}
		return raw, true
	}
	i := len(stripComment(line)) // rosidl_adapter cuts at the first '#', even in a quoted default, and fails
	if i == len(line) {
		return raw, true
	}
	if strings.TrimSpace(line[:i]) == "" {
		return raw, true // an indented comment line: kept
	}
	c := processComment(strings.TrimLeft(line[i:], "#"))
	if len(c) == 0 {
		return raw, true
	}
	cut := strings.Index(raw, c[0]) - 1 // Python's text[:text.find(comment) - 1]
	if cut < 0 {
		cut += len(raw)
	}
	return strings.TrimSpace(raw[:max(cut, 0)]), true
}

// unitPattern finds a unit in brackets in a comment, as rosidl_adapter
// does ("[m]", "[rad/s]").
var unitPattern = regexp.MustCompile(`(\s*\[([^,\]]+)\])`)

// processComment is rosidl_adapter's process_comments for a one-line
// comment: a single unit in brackets removed, an empty line dropped, the
// rest dedented. It returns no line when nothing is left.
func processComment(c string) []string {
	if m := unitPattern.FindAllString(c, -1); len(m) == 1 {
		c = strings.ReplaceAll(c, m[0], "")
	}
	if c == "" {
		return nil
	}
	return []string{strings.TrimLeft(c, " \t")}
}

// fieldType returns the type of the field a .msg line declares, qualified
// with pkg; ok is false for comments, blank lines, constants and
// separators.
func fieldType(line, pkg string) (idl.Type, bool) {
	text := strings.TrimSpace(stripComment(line))
	typ, rest, ok := strings.Cut(text, " ")
	if !ok || typ == "" {
		return idl.Type{}, false
	}
	rest = strings.TrimSpace(rest)
	if i := strings.IndexAny(rest, " \t="); i >= 0 && strings.HasPrefix(strings.TrimLeft(rest[i:], " \t"), "=") {
		return idl.Type{}, false // a constant: NAME=VALUE
	}
	t, err := idl.ParseType(typ, pkg)
	if err != nil {
		return idl.Type{}, false
	}
	return t, true
}

// stripComment removes a '#' comment from a .msg line, leaving '#' inside
// quoted string values alone.
func stripComment(line string) string {
	var quote byte
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case quote != 0 && c == '\\':
			i++
		case quote != 0 && c == quote:
			quote = 0
		case quote == 0 && (c == '"' || c == '\''):
			quote = c
		case quote == 0 && c == '#':
			return line[:i]
		}
	}
	return line
}
