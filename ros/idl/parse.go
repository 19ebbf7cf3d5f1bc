package idl

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// MaxFileSize is the largest interface file the parsers accept, in bytes.
// Every allocation of the parser is bounded by the size of its input.
const MaxFileSize = 1 << 20

// MaxBound is the largest N accepted in T[N], T[<=N] and string<=N.
const MaxBound = 1<<31 - 1

// ParseMessage parses the text of a .msg file defining the message
// pkg/msg/name. Errors name the file as "pkg/msg/name.msg".
func ParseMessage(pkg, name string, src []byte) (*Message, error) {
	return parseMessageFile(pkg+"/msg/"+name+".msg", pkg, name, src)
}

// ParseService parses the text of a .srv file defining the service
// pkg/srv/name: a request and a response separated by a line "---".
// Errors name the file as "pkg/srv/name.srv".
func ParseService(pkg, name string, src []byte) (*Service, error) {
	return parseServiceFile(pkg+"/srv/"+name+".srv", pkg, name, src)
}

// ParseAction parses the text of a .action file defining the action
// pkg/action/name: goal, result and feedback separated by lines "---".
// Errors name the file as "pkg/action/name.action".
func ParseAction(pkg, name string, src []byte) (*Action, error) {
	return parseActionFile(pkg+"/action/"+name+".action", pkg, name, src)
}

func parseMessageFile(file, pkg, name string, src []byte) (*Message, error) {
	lines, err := splitSource(file, pkg, name, src)
	if err != nil {
		return nil, err
	}
	m := &Message{Package: pkg, Namespace: "msg", Name: name, File: file}
	if err := parseBody(m, lines, 1); err != nil {
		return nil, err
	}
	return m, nil
}

func parseServiceFile(file, pkg, name string, src []byte) (*Service, error) {
	lines, err := splitSource(file, pkg, name, src)
	if err != nil {
		return nil, err
	}
	seps := separators(lines)
	if len(seps) != 1 {
		return nil, &SyntaxError{Pos: Pos{File: file, Line: sepLine(seps, 1, len(lines)), Col: 1},
			Msg: fmt.Sprintf("a service needs exactly one %q line between request and response, found %d", "---", len(seps))}
	}
	s := &Service{Package: pkg, Namespace: "srv", Name: name, File: file}
	s.Request = &Message{Package: pkg, Namespace: "srv", Name: name + "_Request", File: file}
	s.Response = &Message{Package: pkg, Namespace: "srv", Name: name + "_Response", File: file}
	if err := parseBody(s.Request, lines[:seps[0]], 1); err != nil {
		return nil, err
	}
	if err := parseBody(s.Response, lines[seps[0]+1:], seps[0]+2); err != nil {
		return nil, err
	}
	return s, nil
}

func parseActionFile(file, pkg, name string, src []byte) (*Action, error) {
	lines, err := splitSource(file, pkg, name, src)
	if err != nil {
		return nil, err
	}
	seps := separators(lines)
	if len(seps) != 2 {
		return nil, &SyntaxError{Pos: Pos{File: file, Line: sepLine(seps, 2, len(lines)), Col: 1},
			Msg: fmt.Sprintf("an action needs exactly two %q lines between goal, result and feedback, found %d", "---", len(seps))}
	}
	a := &Action{Package: pkg, Name: name, File: file}
	a.Goal = &Message{Package: pkg, Namespace: "action", Name: name + "_Goal", File: file}
	a.Result = &Message{Package: pkg, Namespace: "action", Name: name + "_Result", File: file}
	a.Feedback = &Message{Package: pkg, Namespace: "action", Name: name + "_Feedback", File: file}
	if err := parseBody(a.Goal, lines[:seps[0]], 1); err != nil {
		return nil, err
	}
	if err := parseBody(a.Result, lines[seps[0]+1:seps[1]], seps[0]+2); err != nil {
		return nil, err
	}
	if err := parseBody(a.Feedback, lines[seps[1]+1:], seps[1]+2); err != nil {
		return nil, err
	}
	return a, nil
}

// sepLine picks the line to blame for a wrong number of separators: the
// first one too many, or the end of the file when some are missing.
func sepLine(seps []int, want, nlines int) int {
	if len(seps) > want {
		return seps[want] + 1
	}
	return max(nlines, 1)
}

// separators returns the indexes of the lines that are exactly "---".
func separators(lines []string) []int {
	var seps []int
	for i, l := range lines {
		if l == "---" {
			seps = append(seps, i)
		}
	}
	return seps
}

// splitSource checks the size, encoding and names of a source file and
// splits it into lines (without their "\n" or "\r\n" ends).
func splitSource(file, pkg, name string, src []byte) ([]string, error) {
	if len(src) > MaxFileSize {
		return nil, fmt.Errorf("%w: %s is %d bytes, the limit is %d", ErrTooLarge, file, len(src), MaxFileSize)
	}
	if !validPackageName(pkg) {
		return nil, fmt.Errorf("%w: package name %q in %s", ErrBadName, pkg, file)
	}
	if !validMessageName(name) {
		return nil, fmt.Errorf("%w: interface name %q in %s", ErrBadName, name, file)
	}
	if !utf8.Valid(src) {
		line, col := 1, 1
		for i := 0; i < len(src); {
			r, n := utf8.DecodeRune(src[i:])
			if r == utf8.RuneError && n <= 1 {
				break
			}
			if r == '\n' {
				line, col = line+1, 1
			} else {
				col += n
			}
			i += n
		}
		return nil, &SyntaxError{Pos: Pos{File: file, Line: line, Col: col}, Msg: "invalid UTF-8"}
	}
	return splitLines(string(src)), nil
}

// splitLines splits text at the line boundaries of Python's str.splitlines,
// which rosidl uses: "\n", "\r\n", "\r", "\v", "\f", "\x1c", "\x1d",
// "\x1e", U+0085, U+2028 and U+2029. A final boundary does not start an
// extra line.
func splitLines(text string) []string {
	lines := make([]string, 0, strings.Count(text, "\n")+1)
	start := 0
	for i := 0; i < len(text); {
		r, n := utf8.DecodeRuneInString(text[i:])
		switch r {
		case '\n', '\r', '\v', '\f', 0x1c, 0x1d, 0x1e, 0x85, 0x2028, 0x2029:
			lines = append(lines, text[start:i])
			if r == '\r' && i+1 < len(text) && text[i+1] == '\n' {
				n = 2
			}
			start = i + n
		}
		i += n
	}
	if start < len(text) {
		lines = append(lines, text[start:])
	}
	return lines
}

// parseBody parses the lines of one message into m. first is the number
// of the first line in its file.
func parseBody(m *Message, lines []string, first int) error {
	p := bodyParser{msg: m, names: make(map[string]int)}
	for i, raw := range lines {
		p.line = first + i
		if err := p.parseLine(raw); err != nil {
			return err
		}
	}
	return nil
}

type bodyParser struct {
	msg   *Message
	line  int
	names map[string]int // field and constant names: the line they are on
}

func (p *bodyParser) errorf(col int, format string, args ...any) error {
	return &SyntaxError{Pos: Pos{File: p.msg.File, Line: p.line, Col: col}, Msg: fmt.Sprintf(format, args...)}
}

func (p *bodyParser) parseLine(raw string) error {
	// Tabs count as spaces, as in rosidl; the replacement keeps columns.
	line := strings.TrimRightFunc(strings.ReplaceAll(raw, "\t", " "), isSpace)
	if i := strings.IndexByte(line, '#'); i >= 0 {
		line = strings.TrimRightFunc(line[:i], isSpace)
	}
	if line == "" {
		return nil
	}
	typeStr, rest, _ := strings.Cut(line, " ")
	if typeStr == "" {
		return p.errorf(1, "a definition must start at the beginning of the line")
	}
	rest = strings.TrimLeftFunc(rest, isSpace)
	if rest == "" {
		return p.errorf(len(line)+1, "missing name after type %q", typeStr)
	}
	restCol := len(line) - len(rest) + 1
	if eq := strings.IndexByte(rest, '='); eq >= 0 {
		name := strings.TrimRightFunc(rest[:eq], isSpace)
		value := strings.TrimLeftFunc(rest[eq+1:], isSpace)
		valueCol := restCol + len(rest) - len(value)
		return p.constant(typeStr, name, restCol, value, valueCol)
	}
	name, def, _ := strings.Cut(rest, " ")
	def = strings.TrimLeftFunc(def, isSpace)
	defCol := restCol + len(rest) - len(def)
	return p.field(typeStr, name, restCol, def, defCol)
}

func (p *bodyParser) field(typeStr, name string, nameCol int, def string, defCol int) error {
	t, col, msg := parseType(typeStr, p.msg.Package)
	if msg != "" {
		return p.errorf(1+col, "%s", msg)
	}
	if !validFieldName(name) {
		return p.errorf(nameCol, "invalid field name %q: use lower_snake_case starting with a letter, without double or trailing underscore", name)
	}
	if line, dup := p.names[name]; dup {
		return p.errorf(nameCol, "duplicate field name %q (first at line %d)", name, line)
	}
	f := Field{Name: name, Type: t, Pos: Pos{File: p.msg.File, Line: p.line, Col: 1}}
	if def != "" {
		v, msg := parseValue(t, def)
		if msg != "" {
			return p.errorf(defCol, "default value %q of %s: %s", def, t, msg)
		}
		f.Default = &v
	}
	p.names[name] = p.line
	p.msg.Fields = append(p.msg.Fields, f)
	return nil
}

func (p *bodyParser) constant(typeStr, name string, nameCol int, value string, valueCol int) error {
	k, ok := primitiveKind(typeStr)
	if !ok {
		return p.errorf(1, "constant type %q is not a primitive type (bool, byte, char, float32, float64, int8..uint64, string, wstring)", typeStr)
	}
	if !validConstantName(name) {
		return p.errorf(nameCol, "invalid constant name %q: use UPPER_SNAKE_CASE starting with a letter", name)
	}
	if line, dup := p.names[name]; dup {
		return p.errorf(nameCol, "duplicate constant name %q (first at line %d)", name, line)
	}
	t := Type{Kind: k}
	v, msg := parseValue(t, value)
	if msg != "" {
		return p.errorf(valueCol, "value %q of %s constant: %s", value, t, msg)
	}
	p.names[name] = p.line
	p.msg.Constants = append(p.msg.Constants, Constant{
		Name: name, Type: t, Value: v, Pos: Pos{File: p.msg.File, Line: p.line, Col: 1},
	})
	return nil
}

func primitiveKind(s string) (Kind, bool) {
	switch s {
	case "bool":
		return Bool, true
	case "byte":
		return Byte, true
	case "char":
		return Char, true
	case "float32":
		return Float32, true
	case "float64":
		return Float64, true
	case "int8":
		return Int8, true
	case "uint8":
		return Uint8, true
	case "int16":
		return Int16, true
	case "uint16":
		return Uint16, true
	case "int32":
		return Int32, true
	case "uint32":
		return Uint32, true
	case "int64":
		return Int64, true
	case "uint64":
		return Uint64, true
	case "string":
		return String, true
	case "wstring":
		return WString, true
	}
	return Invalid, false
}

// ParseType parses a .msg type spelling such as "float64[36]",
// "string<=10[<=3]", "Header" or "geometry_msgs/Pose[]". pkg is the package
// unqualified nested types belong to. The error wraps [ErrSyntax].
func ParseType(s, pkg string) (Type, error) {
	t, col, msg := parseType(s, pkg)
	if msg != "" {
		return Type{}, fmt.Errorf("%w: type %q at offset %d: %s", ErrSyntax, s, col, msg)
	}
	return t, nil
}

// parseType returns the type, or a message and the byte offset in s that
// it is about.
func parseType(s, pkg string) (t Type, off int, msg string) {
	base := s
	if strings.HasSuffix(s, "]") {
		open := strings.LastIndexByte(s, '[')
		if open < 0 {
			return Type{}, len(s) - 1, "']' without '['"
		}
		inner := s[open+1 : len(s)-1]
		base = s[:open]
		switch {
		case inner == "":
			t.Array = UnboundedArray
		case strings.HasPrefix(inner, "<="):
			t.Array = BoundedArray
			inner = inner[2:]
		default:
			t.Array = FixedArray
		}
		if t.Array != UnboundedArray {
			n, ok := parseBound(inner)
			if !ok {
				return Type{}, open + 1, fmt.Sprintf("array size %q must be an integer from 1 to %d", inner, MaxBound)
			}
			t.Size = n
		}
	}
	if k, ok := primitiveKind(base); ok {
		t.Kind = k
		return t, 0, ""
	}
	for _, k := range [...]Kind{String, WString} {
		prefix := k.String() + "<="
		if strings.HasPrefix(base, prefix) {
			n, ok := parseBound(base[len(prefix):])
			if !ok {
				return Type{}, len(prefix), fmt.Sprintf("string bound %q must be an integer from 1 to %d", base[len(prefix):], MaxBound)
			}
			t.Kind, t.StringBound = k, n
			return t, 0, ""
		}
	}
	switch base {
	case "time", "duration":
		return Type{}, 0, fmt.Sprintf("%q is a ROS 1 type: use builtin_interfaces/%s", base, strings.ToUpper(base[:1])+base[1:])
	case "":
		return Type{}, 0, "missing type"
	}
	t.Kind, t.Namespace = Nested, "msg"
	if pkgName, name, ok := strings.Cut(base, "/"); ok {
		if strings.Contains(name, "/") {
			return Type{}, 0, fmt.Sprintf("type %q has more than one '/'", base)
		}
		t.Package, t.Name = pkgName, name
	} else if base == "Header" {
		t.Package, t.Name = "std_msgs", "Header"
	} else {
		t.Package, t.Name = pkg, base
	}
	if !validPackageName(t.Package) {
		return Type{}, 0, fmt.Sprintf("invalid package name %q in type %q", t.Package, base)
	}
	if !validMessageName(t.Name) {
		return Type{}, 0, fmt.Sprintf("unknown primitive or invalid message name %q: message names are CamelCase", t.Name)
	}
	return t, 0, ""
}

// parseBound parses the N of T[N], T[<=N] and string<=N as Python's int()
// does in base 10 (optional sign, underscores between digits), requiring
// 1 <= N <= MaxBound.
func parseBound(s string) (int, bool) {
	if strings.ContainsAny(s, "xXoObB") {
		return 0, false
	}
	neg, n, ok := parsePyInt(s)
	if !ok || neg || n < 1 || n > MaxBound {
		return 0, false
	}
	return int(n), true
}

// isSpace matches the characters Python's str.strip removes.
func isSpace(r rune) bool {
	switch r {
	case ' ', '\t', '\n', '\v', '\f', '\r', 0x1c, 0x1d, 0x1e, 0x1f, 0x85, 0xa0,
		0x1680, 0x2028, 0x2029, 0x202f, 0x205f, 0x3000:
		return true
	}
	return r >= 0x2000 && r <= 0x200a
}

// validPackageName applies rosidl's package (and field) name rule:
// ^[a-z][a-z0-9_]*$ without "__" and without a trailing '_'.
func validPackageName(s string) bool {
	if s == "" || s[0] < 'a' || s[0] > 'z' || s[len(s)-1] == '_' || strings.Contains(s, "__") {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_') {
			return false
		}
	}
	return true
}

func validFieldName(s string) bool { return validPackageName(s) }

// validMessageName applies rosidl's message name rule, ^[A-Z][A-Za-z0-9]*$,
// after removing a "Sample_" prefix and the suffixes of service and action
// parts.
func validMessageName(s string) bool {
	s = strings.TrimPrefix(s, "Sample_")
	for _, suffix := range [...]string{"_Request", "_Response", "_Goal", "_Result", "_Feedback"} {
		s = strings.TrimSuffix(s, suffix)
	}
	if s == "" || s[0] < 'A' || s[0] > 'Z' {
		return false
	}
	for i := 1; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// validConstantName applies rosidl's constant name rule,
// ^[A-Z]([A-Z0-9_]?[A-Z0-9]+)*$: upper case letters and digits, single
// underscores between them, starting with a letter.
func validConstantName(s string) bool {
	if s == "" || s[0] < 'A' || s[0] > 'Z' || s[len(s)-1] == '_' || strings.Contains(s, "__") {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_') {
			return false
		}
	}
	return true
}
