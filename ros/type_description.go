package ros

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"
	"sync"

	"github.com/afor-go/afor/ros/idl"
	"github.com/afor-go/afor/ros/interfaces"
	"github.com/afor-go/afor/ros/msgs/type_description_interfaces"
)

// The type description service: every node serves ~/get_type_description
// (type_description_interfaces/srv/GetTypeDescription), as rclpy's nodes
// do since Jazzy, for the types its entities use (rcl's node type cache),
// looked up by RIHS01 hash. The descriptions come from the interface
// definitions the context knows: those shipped in package interfaces, and
// those given with [WithInterfaces]. The parameter
// start_type_description_service (read-only, true by default) turns the
// service off with "-p start_type_description_service:=false".

var (
	// ErrTypeDescription is matched by the error of a
	// [TypeDescriptionClient.Get] that the node answered as unsuccessful;
	// the error carries the node's reason ("Type not currently in use by
	// this node").
	ErrTypeDescription = errors.New("ros: type description not available")
	// ErrTypeHashMismatch is matched by the error of a type description
	// whose RIHS01 hash is not the one asked for.
	ErrTypeHashMismatch = errors.New("ros: type description does not match its hash")
)

// startTypeDescriptionParam is the parameter that turns the service on.
const startTypeDescriptionParam = "start_type_description_service"

// WithInterfaces gives the context interface definitions beyond the
// shipped ones, laid out as "<pkg>/msg/<Name>.msg", "<pkg>/srv/<Name>.srv"
// and "<pkg>/action/<Name>.action" (os.DirFS of a folder, an embed.FS, a
// ROS install's share folder): the nodes describe the types they use from
// them on ~/get_type_description, with the files as type sources. They
// are read when a node is first asked; a file that does not parse is
// logged and left out. A context option.
func WithInterfaces(fsys fs.FS) Option {
	return func(o *options) {
		o.interfaces = append(o.interfaces, fsys)
		o.contextOnly = append(o.contextOnly, "WithInterfaces")
	}
}

// typeLibrary is a context's interface definitions, loaded on first use.
type typeLibrary struct {
	once    sync.Once
	extra   []fs.FS
	user    *idl.Registry // from WithInterfaces, nil without
	userFS  []fs.FS
	shipped *idl.Registry
	err     error
}

func (l *typeLibrary) load(c *Context) {
	l.once.Do(func() {
		l.shipped, l.err = interfaces.Registry()
		if len(l.extra) == 0 {
			return
		}
		// The given definitions, then the shipped ones they may refer to
		// (a given type of a shipped name wins).
		l.user = idl.NewRegistry()
		for _, f := range append(slices.Clone(l.extra), interfaces.FS()) {
			if err := loadEach(l.user, f); err != nil {
				c.logger.Warn("ros: WithInterfaces: an interface does not load", "err", err)
			}
			l.userFS = append(l.userFS, f)
		}
	})
}

// loadEach registers the interface files of fsys in reg, as LoadFS does,
// but goes on past a file that does not load (the first error is
// returned) and skips the types reg holds already.
func loadEach(reg *idl.Registry, fsys fs.FS) error {
	var first error
	err := fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		kind := strings.TrimPrefix(path.Ext(p), ".")
		dir := path.Dir(p)
		if (kind != "msg" && kind != "srv" && kind != "action") || path.Base(dir) != kind {
			return nil
		}
		if info, err := d.Info(); err != nil || info.Size() > idl.MaxFileSize {
			return nil
		}
		src, err := fs.ReadFile(fsys, p)
		if err == nil {
			err = reg.AddFile(path.Base(path.Dir(dir)), p, src)
		}
		if err != nil && !errors.Is(err, idl.ErrDuplicate) && first == nil {
			first = err
		}
		return nil
	})
	return errors.Join(err, first)
}

// describe returns the description of the type named name whose hash is
// hash, and the registry and file system that describe it.
func (l *typeLibrary) describe(c *Context, name, hash string) (*idl.TypeDescription, *idl.Registry, []fs.FS, error) {
	l.load(c)
	for _, src := range []struct {
		reg *idl.Registry
		fss []fs.FS
	}{{l.user, l.userFS}, {l.shipped, []fs.FS{interfaces.FS()}}} {
		if src.reg == nil {
			continue
		}
		d, err := src.reg.TypeDescription(name)
		if err != nil {
			continue
		}
		if d.Hash() == hash {
			return d, src.reg, src.fss, nil
		}
	}
	if l.err != nil {
		return nil, nil, nil, l.err
	}
	return nil, nil, nil, fmt.Errorf("%w: no definition of %s with hash %s", ErrTypeDescription, name, hash)
}

// typeSources returns the sources of d's types as rcl gives them: the file
// of each message, service and action ("msg", "srv", "action"), and
// "implicit" with no text for the parts of services and actions.
func typeSources(d *idl.TypeDescription, reg *idl.Registry, fss []fs.FS) []type_description_interfaces.TypeSource {
	names := []string{d.Type.TypeName}
	for _, r := range d.Referenced {
		names = append(names, r.TypeName)
	}
	out := make([]type_description_interfaces.TypeSource, 0, len(names))
	for _, name := range names {
		src := type_description_interfaces.TypeSource{TypeName_: name, Encoding: "implicit"}
		file := ""
		if m, err := reg.Message(name); err == nil && m.Namespace == "msg" {
			src.Encoding, file = "msg", m.File
		} else if s, err := reg.Service(name); err == nil && s.FullName() == name {
			src.Encoding, file = "srv", s.File
		} else if a, err := reg.Action(name); err == nil && a.FullName() == name {
			src.Encoding, file = "action", a.File
		}
		if file != "" {
			for _, f := range fss {
				if b, err := fs.ReadFile(f, file); err == nil && len(b) <= idl.MaxFileSize {
					src.RawFileContents = string(b)
					break
				}
			}
		}
		out = append(out, src)
	}
	return out
}

// startTypeDescriptionService declares start_type_description_service
// and, when it is true, serves ~/get_type_description.
func (n *Node) startTypeDescriptionService() error {
	on, err := n.DeclareParameter(startTypeDescriptionParam, true, ParamReadOnly(),
		ParamDescription("If enabled, start the ~/get_type_description service."))
	if err != nil {
		return err
	}
	if b, ok := on.(bool); !ok || !b {
		if !ok {
			n.logger.Error(fmt.Sprintf("Invalid type for parameter '%s' should be bool", startTypeDescriptionParam))
		}
		return nil
	}
	srv, err := NewServer(n, "~/get_type_description", type_description_interfaces.GetTypeDescription{})
	if err != nil {
		return err
	}
	go func() {
		for r := range srv.ListenReliable(context.Background()) {
			_ = r.Respond(n.describeType(r.Request))
		}
	}()
	return nil
}

// describeType answers a GetTypeDescription request as rcl does.
func (n *Node) describeType(req type_description_interfaces.GetTypeDescriptionRequest) type_description_interfaces.GetTypeDescriptionResponse {
	var res type_description_interfaces.GetTypeDescriptionResponse
	hash, ok := parseTypeHash(req.TypeHash_)
	if !ok {
		n.logger.Debug("ros: failed to parse type hash", "hash", req.TypeHash_)
		res.FailureReason = "Failed to parse type hash"
		return res
	}
	name, ok := n.types.lookup(hash)
	if !ok {
		res.FailureReason = "Type not currently in use by this node"
		return res
	}
	d, reg, fss, err := n.ctx.types.describe(n.ctx, name, hash)
	if err != nil {
		n.logger.Debug("ros: no description of a type in use", "type", name, "err", err)
		res.FailureReason = "Failed to populate TypeDescription to response."
		return res
	}
	res.TypeDescription = TypeDescriptionToMsg(d)
	if req.IncludeTypeSources {
		res.TypeSources = typeSources(d, reg, fss)
	}
	res.Successful = true
	return res
}

// parseTypeHash checks a RIHS01 hash string ("RIHS01_" and 64 hex digits)
// and returns it in lower case.
func parseTypeHash(s string) (string, bool) {
	const prefix = "RIHS01_"
	if len(s) != len(prefix)+64 || !strings.HasPrefix(s, prefix) {
		return "", false
	}
	for _, c := range s[len(prefix):] {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
			return "", false
		}
	}
	return prefix + strings.ToLower(s[len(prefix):]), true
}

// TypeDescriptionToMsg converts a type description to its message.
func TypeDescriptionToMsg(d *idl.TypeDescription) type_description_interfaces.TypeDescription {
	m := type_description_interfaces.TypeDescription{
		TypeDescription:            individualToMsg(&d.Type),
		ReferencedTypeDescriptions: make([]type_description_interfaces.IndividualTypeDescription, len(d.Referenced)),
	}
	for i := range d.Referenced {
		m.ReferencedTypeDescriptions[i] = individualToMsg(&d.Referenced[i])
	}
	return m
}

func individualToMsg(t *idl.IndividualTypeDescription) type_description_interfaces.IndividualTypeDescription {
	m := type_description_interfaces.IndividualTypeDescription{TypeName_: t.TypeName, Fields: make([]type_description_interfaces.Field, len(t.Fields))}
	for i, f := range t.Fields {
		m.Fields[i] = type_description_interfaces.Field{
			Name: f.Name,
			Type: type_description_interfaces.FieldType{
				TypeID: uint8(f.TypeID), Capacity: uint64(f.Capacity), StringCapacity: uint64(f.StringCapacity),
				NestedTypeName: f.NestedTypeName,
			},
			DefaultValue: f.DefaultValue,
		}
	}
	return m
}

// maxDescribedCapacity bounds the capacities a received description may
// give (array sizes and string bounds): beyond, it is refused.
const maxDescribedCapacity = 1 << 30

// TypeDescriptionFromMsg converts a received type description message.
// It refuses capacities beyond what a ROS type can hold; the structure of
// the types (names, references, cycles, sizes) is for its user to check
// (dynmsg.NewTypeFromDescription does).
func TypeDescriptionFromMsg(m *type_description_interfaces.TypeDescription) (*idl.TypeDescription, error) {
	d := &idl.TypeDescription{Referenced: make([]idl.IndividualTypeDescription, len(m.ReferencedTypeDescriptions))}
	var err error
	if d.Type, err = individualFromMsg(&m.TypeDescription); err != nil {
		return nil, err
	}
	for i := range m.ReferencedTypeDescriptions {
		if d.Referenced[i], err = individualFromMsg(&m.ReferencedTypeDescriptions[i]); err != nil {
			return nil, err
		}
	}
	return d, nil
}

func individualFromMsg(m *type_description_interfaces.IndividualTypeDescription) (idl.IndividualTypeDescription, error) {
	t := idl.IndividualTypeDescription{TypeName: m.TypeName_, Fields: make([]idl.FieldDescription, len(m.Fields))}
	for i, f := range m.Fields {
		if f.Type.Capacity > maxDescribedCapacity || f.Type.StringCapacity > maxDescribedCapacity {
			return t, fmt.Errorf("%w: field %q of %q: capacity %d, string capacity %d", ErrInvalidType,
				f.Name, m.TypeName_, f.Type.Capacity, f.Type.StringCapacity)
		}
		t.Fields[i] = idl.FieldDescription{
			Name: f.Name, TypeID: int(f.Type.TypeID), Capacity: int(f.Type.Capacity),
			StringCapacity: int(f.Type.StringCapacity), NestedTypeName: f.Type.NestedTypeName,
			DefaultValue: f.DefaultValue,
		}
	}
	return t, nil
}

// TypeSource is the source a node gives for one type of a description:
// the interface file's text, with its encoding ("msg", "srv", "action",
// or "implicit" and no text for the parts of services and actions).
type TypeSource struct {
	TypeName string
	Encoding string
	Contents string
}

// TypeInfo is what a node's ~/get_type_description service answers: the
// description, the sources when asked for, and any extra information.
type TypeInfo struct {
	Description *idl.TypeDescription
	Sources     []TypeSource
	Extra       map[string]string
}

// TypeDescriptionClient asks another node for the descriptions of the
// types it uses, through its ~/get_type_description service. Create one
// with [NewTypeDescriptionClient]; it lives as long as its node.
type TypeDescriptionClient struct {
	target string
	cl     interface {
		Call(context.Context, type_description_interfaces.GetTypeDescriptionRequest) (type_description_interfaces.GetTypeDescriptionResponse, error)
		WaitForServer(context.Context) error
	}
}

// NewTypeDescriptionClient creates, on node n, a client of the type
// description service of the node named target ("/talker", or relative to
// n's namespace).
//
//	tc, err := ros.NewTypeDescriptionClient(node, "/talker")
//	info, err := tc.Get(ctx, e.Type, e.TypeHash, false) // e: an Endpoint of the graph
//	t, err := dynmsg.NewTypeFromDescription(info.Description)
func NewTypeDescriptionClient(n *Node, target string) (*TypeDescriptionClient, error) {
	target = strings.TrimSuffix(target, "/")
	full, err := n.ResolveServiceName(target)
	if err != nil {
		return nil, err
	}
	cl, err := NewClient(n, full+"/get_type_description", type_description_interfaces.GetTypeDescription{})
	if err != nil {
		return nil, err
	}
	return &TypeDescriptionClient{target: full, cl: cl}, nil
}

// Target returns the fully qualified name of the node asked.
func (c *TypeDescriptionClient) Target() string { return c.target }

// WaitReady waits until the target's type description service is in the
// graph.
func (c *TypeDescriptionClient) WaitReady(ctx context.Context) error {
	if err := c.cl.WaitForServer(ctx); err != nil {
		return fmt.Errorf("ros: type description service of %s: %w", c.target, err)
	}
	return nil
}

// Get asks the target for the description of the type typeName whose
// RIHS01 hash is typeHash (the graph gives both for every endpoint), with
// the type sources when sources is true. A node that does not use the type
// answers with an error matching [ErrTypeDescription]; a description that
// does not hash to typeHash is an error matching [ErrTypeHashMismatch].
func (c *TypeDescriptionClient) Get(ctx context.Context, typeName, typeHash string, sources bool) (*TypeInfo, error) {
	res, err := c.cl.Call(ctx, type_description_interfaces.GetTypeDescriptionRequest{
		TypeName_: typeName, TypeHash_: typeHash, IncludeTypeSources: sources,
	})
	if err != nil {
		return nil, fmt.Errorf("ros: type description of %s from %s: %w", typeName, c.target, err)
	}
	if !res.Successful {
		return nil, fmt.Errorf("%w: %s from %s: %s", ErrTypeDescription, typeName, c.target, res.FailureReason)
	}
	d, err := TypeDescriptionFromMsg(&res.TypeDescription)
	if err != nil {
		return nil, fmt.Errorf("ros: type description of %s from %s: %w", typeName, c.target, err)
	}
	if h := d.Hash(); h != typeHash {
		return nil, fmt.Errorf("%w: %s from %s hashes to %s, not %s", ErrTypeHashMismatch, typeName, c.target, h, typeHash)
	}
	info := &TypeInfo{Description: d}
	for _, s := range res.TypeSources {
		info.Sources = append(info.Sources, TypeSource{TypeName: s.TypeName_, Encoding: s.Encoding, Contents: s.RawFileContents})
	}
	if len(res.ExtraInformation) > 0 {
		info.Extra = make(map[string]string, len(res.ExtraInformation))
		for _, kv := range res.ExtraInformation {
			info.Extra[kv.Key] = kv.Value
		}
	}
	return info, nil
}
