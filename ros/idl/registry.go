package idl

import (
	"errors"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"
	"sync"
)

// Registry holds message, service and action definitions of any number of
// packages and resolves the nested types they refer to. Adding the parts of
// services and actions registers the messages synthesized from them too
// (S_Request, S_Response, S_Event; A_Goal, A_Result, A_Feedback,
// A_SendGoal, A_GetResult, A_FeedbackMessage and their parts).
//
// A Registry is safe for concurrent use. The definitions it returns are
// shared: do not modify them.
type Registry struct {
	mu      sync.RWMutex
	msgs    map[string]*Message
	srvs    map[string]*Service
	actions map[string]*Action
	hashes  map[string]string
}

// NewRegistry returns an empty registry.
func NewRegistry() *Registry {
	return &Registry{
		msgs:    make(map[string]*Message),
		srvs:    make(map[string]*Service),
		actions: make(map[string]*Action),
		hashes:  make(map[string]string),
	}
}

// taken reports whether a type of that full name is registered. Called with
// r.mu held.
func (r *Registry) taken(name string) bool {
	_, m := r.msgs[name]
	_, s := r.srvs[name]
	_, a := r.actions[name]
	return m || s || a
}

func (r *Registry) checkFree(names ...string) error {
	for _, n := range names {
		if r.taken(n) {
			return fmt.Errorf("%w: %s", ErrDuplicate, n)
		}
	}
	return nil
}

// AddMessage registers a message. It fails with [ErrDuplicate] when a type
// of the same full name is already registered.
func (r *Registry) AddMessage(m *Message) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if err := r.checkFree(m.FullName()); err != nil {
		return err
	}
	r.msgs[m.FullName()] = m
	clear(r.hashes)
	return nil
}

// AddService registers a service with its request, response and event
// messages. It fails with [ErrDuplicate] when one of those names is taken.
func (r *Registry) AddService(s *Service) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if err := r.addService(s); err != nil {
		return err
	}
	clear(r.hashes)
	return nil
}

func (r *Registry) addService(s *Service) error {
	ev := s.Event()
	if err := r.checkFree(s.FullName(), s.Request.FullName(), s.Response.FullName(), ev.FullName()); err != nil {
		return err
	}
	r.srvs[s.FullName()] = s
	r.msgs[s.Request.FullName()] = s.Request
	r.msgs[s.Response.FullName()] = s.Response
	r.msgs[ev.FullName()] = ev
	return nil
}

// AddAction registers an action with its goal, result and feedback
// messages and the services and messages derived from them. It fails with
// [ErrDuplicate] when one of those names is taken.
func (r *Registry) AddAction(a *Action) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	send, get, fb := a.SendGoal(), a.GetResult(), a.FeedbackMessage()
	names := []string{a.FullName(), a.Goal.FullName(), a.Result.FullName(), a.Feedback.FullName(), fb.FullName()}
	for _, s := range []*Service{send, get} {
		names = append(names, s.FullName(), s.Request.FullName(), s.Response.FullName(), s.Event().FullName())
	}
	if err := r.checkFree(names...); err != nil {
		return err
	}
	r.actions[a.FullName()] = a
	for _, m := range []*Message{a.Goal, a.Result, a.Feedback, fb} {
		r.msgs[m.FullName()] = m
	}
	for _, s := range []*Service{send, get} {
		if err := r.addService(s); err != nil {
			return err // unreachable: names checked above
		}
	}
	clear(r.hashes)
	return nil
}

// AddFile parses one interface file of package pkg and registers what it
// defines. The base name of file gives the interface name and its
// extension (.msg, .srv or .action) the kind; file also names the source in
// errors.
func (r *Registry) AddFile(pkg, file string, src []byte) error {
	base := path.Base(file)
	ext := path.Ext(base)
	name := strings.TrimSuffix(base, ext)
	switch ext {
	case ".msg":
		m, err := parseMessageFile(file, pkg, name, src)
		if err != nil {
			return err
		}
		return r.AddMessage(m)
	case ".srv":
		s, err := parseServiceFile(file, pkg, name, src)
		if err != nil {
			return err
		}
		return r.AddService(s)
	case ".action":
		a, err := parseActionFile(file, pkg, name, src)
		if err != nil {
			return err
		}
		return r.AddAction(a)
	}
	return fmt.Errorf("%w: %s: not a .msg, .srv or .action file", ErrBadName, file)
}

// LoadFS registers every interface file of fsys laid out as
// "<pkg>/msg/<Name>.msg", "<pkg>/srv/<Name>.srv" and
// "<pkg>/action/<Name>.action" (at any depth: the two directories above a
// file name its package and kind). Other files are ignored. Files larger
// than [MaxFileSize] fail with [ErrTooLarge] before being read whole.
func (r *Registry) LoadFS(fsys fs.FS) error {
	return fs.WalkDir(fsys, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			return nil
		}
		kind := strings.TrimPrefix(path.Ext(p), ".")
		dir := path.Dir(p)
		if (kind != "msg" && kind != "srv" && kind != "action") || path.Base(dir) != kind {
			return nil
		}
		pkg := path.Base(path.Dir(dir))
		if info, err := d.Info(); err == nil && info.Size() > MaxFileSize {
			return fmt.Errorf("%w: %s is %d bytes, the limit is %d", ErrTooLarge, p, info.Size(), MaxFileSize)
		}
		src, err := fs.ReadFile(fsys, p)
		if err != nil {
			return err
		}
		return r.AddFile(pkg, p, src)
	})
}

// splitName splits "pkg/ns/Name" or "pkg/Name" into its parts; ns is "" in
// the short form.
func splitName(full string) (pkg, ns, name string, err error) {
	parts := strings.Split(full, "/")
	switch len(parts) {
	case 2:
		pkg, name = parts[0], parts[1]
	case 3:
		pkg, ns, name = parts[0], parts[1], parts[2]
	default:
		return "", "", "", fmt.Errorf("%w: %q is not pkg/msg/Name, pkg/srv/Name, pkg/action/Name or pkg/Name", ErrBadName, full)
	}
	if pkg == "" || name == "" || (len(parts) == 3 && ns != "msg" && ns != "srv" && ns != "action") {
		return "", "", "", fmt.Errorf("%w: %q", ErrBadName, full)
	}
	return pkg, ns, name, nil
}

// canonical returns the registered full name for full, which may be in the
// short form "pkg/Name" (tried as msg, then srv, then action). Called with
// r.mu held.
func (r *Registry) canonical(full string) (string, error) {
	pkg, ns, name, err := splitName(full)
	if err != nil {
		return "", err
	}
	if ns != "" {
		if r.taken(full) {
			return full, nil
		}
	} else {
		for _, ns := range [...]string{"msg", "srv", "action"} {
			if n := pkg + "/" + ns + "/" + name; r.taken(n) {
				return n, nil
			}
		}
	}
	return "", fmt.Errorf("%w: %s", ErrUnknownType, full)
}

// Message returns the message of that full name ("std_msgs/msg/Header",
// or the short form "std_msgs/Header"), including the parts of services
// and actions ("example_interfaces/srv/AddTwoInts_Request").
func (r *Registry) Message(fullName string) (*Message, error) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	n, err := r.canonical(fullName)
	if err != nil {
		return nil, err
	}
	if m, ok := r.msgs[n]; ok {
		return m, nil
	}
	return nil, fmt.Errorf("%w: %s is not a message", ErrUnknownType, fullName)
}

// Service returns the service of that full name ("std_srvs/srv/SetBool" or
// "std_srvs/SetBool"), including the services derived from actions
// ("example_interfaces/action/Fibonacci_SendGoal").
func (r *Registry) Service(fullName string) (*Service, error) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	n, err := r.canonical(fullName)
	if err != nil {
		return nil, err
	}
	if s, ok := r.srvs[n]; ok {
		return s, nil
	}
	return nil, fmt.Errorf("%w: %s is not a service", ErrUnknownType, fullName)
}

// Action returns the action of that full name
// ("example_interfaces/action/Fibonacci" or "example_interfaces/Fibonacci").
func (r *Registry) Action(fullName string) (*Action, error) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	n, err := r.canonical(fullName)
	if err != nil {
		return nil, err
	}
	if a, ok := r.actions[n]; ok {
		return a, nil
	}
	return nil, fmt.Errorf("%w: %s is not an action", ErrUnknownType, fullName)
}

// Resolve returns the message a Nested type refers to.
func (r *Registry) Resolve(t Type) (*Message, error) {
	if t.Kind != Nested {
		return nil, fmt.Errorf("%w: %s is not a nested type", ErrUnknownType, t)
	}
	r.mu.RLock()
	defer r.mu.RUnlock()
	if m, ok := r.msgs[t.FullName()]; ok {
		return m, nil
	}
	return nil, fmt.Errorf("%w: %s", ErrUnknownType, t.FullName())
}

func sortedValues[T any](m map[string]T) []T {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	out := make([]T, len(keys))
	for i, k := range keys {
		out[i] = m[k]
	}
	return out
}

// Messages returns every registered message, including the parts of
// services and actions and the synthesized ones, sorted by full name.
func (r *Registry) Messages() []*Message {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return sortedValues(r.msgs)
}

// Services returns every registered service, including those derived from
// actions, sorted by full name.
func (r *Registry) Services() []*Service {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return sortedValues(r.srvs)
}

// Actions returns every registered action, sorted by full name.
func (r *Registry) Actions() []*Action {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return sortedValues(r.actions)
}

// Check verifies that every nested type of every registered message is
// registered too ([ErrUnknownType], naming the field) and that no message
// contains itself ([ErrCycle]). It returns all problems joined.
func (r *Registry) Check() error {
	r.mu.RLock()
	defer r.mu.RUnlock()
	var errs []error
	for _, m := range sortedValues(r.msgs) {
		for _, f := range m.Fields {
			if f.Type.Kind != Nested {
				continue
			}
			if _, ok := r.msgs[f.Type.FullName()]; !ok {
				errs = append(errs, fmt.Errorf("%w: %s (field %s of %s)", ErrUnknownType, f.Type.FullName(), f.Name, m.FullName()))
			}
		}
	}
	// Depth-first search for cycles: 1 = on the stack, 2 = done.
	state := make(map[string]int, len(r.msgs))
	var visit func(name string, stack []string)
	visit = func(name string, stack []string) {
		switch state[name] {
		case 1:
			i := slices.Index(stack, name)
			errs = append(errs, fmt.Errorf("%w: %s", ErrCycle, strings.Join(append(stack[i:], name), " -> ")))
			return
		case 2:
			return
		}
		m, ok := r.msgs[name]
		if !ok {
			return
		}
		state[name] = 1
		for _, f := range m.Fields {
			if f.Type.Kind == Nested {
				visit(f.Type.FullName(), append(stack, name))
			}
		}
		state[name] = 2
	}
	for _, m := range sortedValues(r.msgs) {
		visit(m.FullName(), nil)
	}
	return errors.Join(errs...)
}
