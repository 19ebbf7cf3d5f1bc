package bag

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/afor-go/afor/ros/dynmsg"
	"github.com/afor-go/afor/ros/idl"
	"github.com/afor-go/afor/ros/interfaces"
)

// Schema encodings of message definitions in MCAP files.
const (
	EncodingROS2Msg = "ros2msg"
	EncodingROS2IDL = "ros2idl"
)

// definitionDelimiter starts each dependency's block in a ros2msg schema.
const definitionDelimiter = "================================================================================\n"

// ErrNoDefinition is matched by the error for a type whose definition
// cannot be found or read.
var ErrNoDefinition = errors.New("bag: no definition")

// Definitions finds the .msg text of message types and writes the
// complete definitions rosbag2 stores as MCAP schemas: the type's .msg
// file, then each type it uses, recursively, once each, after a line of
// 80 "=" and a line "MSG: pkg/Name", in rosbag2's order. The text of each
// file is used as it is: the shipped interfaces (package interfaces) carry
// no comments, so their schemas are shorter than a ROS install's, with
// the same fields.
//
// It is safe for concurrent use.
type Definitions struct {
	reg *idl.Registry

	mu    sync.Mutex
	texts map[string]string // "pkg/Name" -> .msg text
}

// NewDefinitions finds definitions in the interface folders dirs (laid out
// as for [dynmsg.NewRegistry]: "<pkg>/msg/<Name>.msg" at any depth, such
// as a ROS install's share folders) and in the interfaces shipped with
// afor. The error lists the files that could not be read; the others are
// used.
func NewDefinitions(dirs ...string) (*Definitions, error) {
	reg, err := dynmsg.NewRegistry(dirs...)
	return NewDefinitionsFrom(reg), err
}

// NewDefinitionsFrom finds definitions in reg, a registry made by
// [dynmsg.NewRegistry] (whose messages name their files).
func NewDefinitionsFrom(reg *idl.Registry) *Definitions {
	return &Definitions{reg: reg, texts: map[string]string{}}
}

// Registry returns the registry the definitions come from.
func (d *Definitions) Registry() *idl.Registry { return d.reg }

var (
	typeNameRE  = regexp.MustCompile(`^([a-zA-Z0-9_]+)/(?:msg/|srv/)?([a-zA-Z0-9_]+)$`)
	fieldTypeRE = regexp.MustCompile(`(?:^|\n)\s*([a-zA-Z0-9_/]+)(?:\[[^\]]*\])?\s+`)
	primitives  = []string{"bool", "byte", "char", "float32", "float64", "int8", "uint8",
		"int16", "uint16", "int32", "uint32", "int64", "uint64", "string"}
)

// msgDependencies returns the types a .msg text uses, as rosbag2 finds
// them: the first word of each line that is not a primitive type, with
// the package of the text added to a bare name; sorted, once each.
func msgDependencies(text, pkg string) []string {
	var deps []string
	for _, m := range fieldTypeRE.FindAllStringSubmatch(text, -1) {
		t := m[1]
		if slices.Contains(primitives, t) {
			continue
		}
		if !strings.Contains(t, "/") {
			t = pkg + "/" + t
		}
		if !slices.Contains(deps, t) {
			deps = append(deps, t)
		}
	}
	slices.Sort(deps)
	return deps
}

// text returns the .msg text of a type named as rosbag2 names it
// ("pkg/Name" or "pkg/msg/Name") and its package.
func (d *Definitions) text(typ string) (string, string, error) {
	m := typeNameRE.FindStringSubmatch(typ)
	if m == nil {
		return "", "", fmt.Errorf("%w: type name %q not understood", ErrNoDefinition, typ)
	}
	pkg, name := m[1], m[2]
	key := pkg + "/" + name
	d.mu.Lock()
	t, ok := d.texts[key]
	d.mu.Unlock()
	if ok {
		return t, pkg, nil
	}
	msg, err := d.reg.Message(pkg + "/msg/" + name)
	if err != nil {
		return "", "", fmt.Errorf("%w: %s: %w", ErrNoDefinition, typ, err)
	}
	var src []byte
	switch {
	case msg.File == "":
		src = msg.Format()
	case filepath.IsAbs(msg.File):
		src, err = os.ReadFile(msg.File)
	default:
		src, err = fs.ReadFile(interfaces.FS(), msg.File)
	}
	if err != nil {
		return "", "", fmt.Errorf("%w: %s: %w", ErrNoDefinition, typ, err)
	}
	t = string(src)
	d.mu.Lock()
	d.texts[key] = t
	d.mu.Unlock()
	return t, pkg, nil
}

// maxDefinitionDepth bounds the nesting of definitions, as rosbag2 does.
const maxDefinitionDepth = 50

// Schema returns the complete definition of a message type
// ("sensor_msgs/msg/Image"), in the ros2msg encoding, as rosbag2 writes it
// to an MCAP schema. A type that cannot be found gives an error matching
// ErrNoDefinition; rosbag2 then stores an empty schema, as [Writer] does.
func (d *Definitions) Schema(typ string) (encoding string, data []byte, err error) {
	seen := map[string]bool{}
	var walk func(typ string, depth int) (string, error)
	walk = func(typ string, depth int) (string, error) {
		if depth <= 0 {
			return "", fmt.Errorf("%w: definitions nested deeper than %d", ErrNoDefinition, maxDefinitionDepth)
		}
		text, pkg, err := d.text(typ)
		if err != nil {
			return "", err
		}
		var b strings.Builder
		b.WriteString(text)
		for _, dep := range msgDependencies(text, pkg) {
			if seen[dep] {
				continue
			}
			seen[dep] = true
			sub, err := walk(dep, depth-1)
			if err != nil {
				return "", err
			}
			b.WriteString("\n" + definitionDelimiter + "MSG: " + dep + "\n")
			b.WriteString(sub)
		}
		return b.String(), nil
	}
	s, err := walk(typ, maxDefinitionDepth)
	if err != nil {
		return "", nil, err
	}
	return EncodingROS2Msg, []byte(s), nil
}

// splitSchema splits a ros2msg schema into its blocks: the root type's
// text, then each dependency's name ("pkg/Name" or "pkg/msg/Name") and
// text.
func splitSchema(root string, data []byte) (names, texts []string) {
	s := string(data)
	name := root
	for {
		i := strings.Index(s, definitionDelimiter)
		var block string
		if i < 0 {
			block, s = s, ""
		} else {
			block, s = s[:i], s[i+len(definitionDelimiter):]
		}
		if name != "" {
			names = append(names, name)
			texts = append(texts, block)
		}
		if i < 0 {
			return names, texts
		}
		line, rest, _ := strings.Cut(s, "\n")
		s = rest
		name = ""
		if n, ok := strings.CutPrefix(line, "MSG: "); ok {
			name = strings.TrimSpace(n)
		}
	}
}

// registryOf builds a registry of the message types a ros2msg schema of
// root defines.
func registryOf(root string, data []byte) (*idl.Registry, error) {
	reg := idl.NewRegistry()
	names, texts := splitSchema(root, data)
	var errs []error
	for i, n := range names {
		m := typeNameRE.FindStringSubmatch(n)
		if m == nil {
			errs = append(errs, fmt.Errorf("%w: block %q in the schema of %s", ErrNoDefinition, n, root))
			continue
		}
		if err := reg.AddFile(m[1], m[2]+".msg", []byte(texts[i])); err != nil && !errors.Is(err, idl.ErrDuplicate) {
			errs = append(errs, err)
		}
	}
	return reg, errors.Join(errs...)
}
