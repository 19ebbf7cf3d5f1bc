package ros

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/afor-go/afor"
	"github.com/afor-go/afor/ros/internal/names"
	"github.com/afor-go/afor/ros/msgs/builtin_interfaces"
	"github.com/afor-go/afor/ros/msgs/rcl_interfaces"
)

// Errors of the parameter API.
var (
	// ErrParameterNotDeclared is matched by the errors for a parameter the
	// node has not declared.
	ErrParameterNotDeclared = errors.New("ros: parameter not declared")
	// ErrParameterAlreadyDeclared is matched by the error of declaring a
	// parameter twice.
	ErrParameterAlreadyDeclared = errors.New("ros: parameter already declared")
	// ErrParameterType is matched by the errors for a value of the wrong
	// type: a Go value that is no parameter type, a getter of another type,
	// a value of another type for a statically typed parameter.
	ErrParameterType = errors.New("ros: wrong parameter type")
	// ErrParameterRejected is matched by the errors for a value that was
	// refused: read-only, out of its range, or rejected by a callback
	// ([Node.OnSetParameters]). The error's text is the reason given to
	// remote clients.
	ErrParameterRejected = errors.New("ros: parameter value rejected")
	// ErrInvalidParameters is matched by the errors for a malformed
	// "-p name:=value" override or parameters file: the error names the
	// file and line.
	ErrInvalidParameters = names.ErrInvalidParams
)

// ParameterOption configures a parameter's descriptor in
// [Node.DeclareParameter].
type ParameterOption func(*paramDecl)

type paramDecl struct {
	desc           rcl_interfaces.ParameterDescriptor
	ignoreOverride bool
}

// ParamDescription sets the parameter's description.
func ParamDescription(s string) ParameterOption {
	return func(d *paramDecl) { d.desc.Description = s }
}

// ParamConstraints sets the descriptor's additional_constraints text.
func ParamConstraints(s string) ParameterOption {
	return func(d *paramDecl) { d.desc.AdditionalConstraints = s }
}

// ParamReadOnly makes the parameter read-only: set once by its default or
// override, never changed after.
func ParamReadOnly() ParameterOption { return func(d *paramDecl) { d.desc.ReadOnly = true } }

// ParamDynamicTyping lets the parameter change type, and be undeclared by
// setting it to nil (PARAMETER_NOT_SET).
func ParamDynamicTyping() ParameterOption {
	return func(d *paramDecl) { d.desc.DynamicTyping = true }
}

// ParamIntegerRange limits an integer parameter to [from, to], in steps
// of step from from (step 0: any value); to itself is always allowed.
func ParamIntegerRange(from, to int64, step uint64) ParameterOption {
	return func(d *paramDecl) {
		d.desc.IntegerRange = []rcl_interfaces.IntegerRange{{FromValue: from, ToValue: to, Step: step}}
	}
}

// ParamFloatRange limits a double parameter to [from, to], in steps of
// step from from (step 0: any value); to itself is always allowed.
func ParamFloatRange(from, to, step float64) ParameterOption {
	return func(d *paramDecl) {
		d.desc.FloatingPointRange = []rcl_interfaces.FloatingPointRange{{FromValue: from, ToValue: to, Step: step}}
	}
}

// ParamIgnoreOverride declares the parameter with its default even when
// the command line or a parameters file gives it a value.
func ParamIgnoreOverride() ParameterOption { return func(d *paramDecl) { d.ignoreOverride = true } }

// paramEntry is a declared parameter.
type paramEntry struct {
	value rcl_interfaces.ParameterValue
	desc  rcl_interfaces.ParameterDescriptor
}

// paramState is a node's parameters.
type paramState struct {
	setMu sync.Mutex // serialises changes and the callbacks they run

	mu        sync.Mutex
	declared  map[string]*paramEntry
	overrides map[string]rcl_interfaces.ParameterValue
	callbacks []*paramCallback
	watchers  []*afor.Sub[[]Parameter]
	post      []func([]Parameter) // internal hooks after a change (use_sim_time)

	events *Publisher[rcl_interfaces.ParameterEvent, *rcl_interfaces.ParameterEvent]
}

type paramCallback struct {
	f func([]Parameter) error
}

// initParams loads the node's overrides.
func (n *Node) initParams(overrides []names.Override) {
	n.params.declared = map[string]*paramEntry{}
	n.params.overrides = map[string]rcl_interfaces.ParameterValue{}
	fqn := n.FullyQualifiedName()
	for _, o := range overrides { // later ones win
		if names.MatchNode(o.Node, fqn) {
			n.params.overrides[o.Name] = valueFromOverride(o.Value)
		}
	}
}

// DeclareParameter declares a parameter with a default value (a Go value
// of a parameter type, see [Parameter]) and returns its value: the
// override from the command line or a parameters file ([WithArgs]) if one
// is given for this node, else def. The parameter's type is the value's,
// and later values must keep it unless [ParamDynamicTyping] is given. A nil
// def with no override declares an unset parameter, which needs
// ParamDynamicTyping.
//
// The value is checked against the descriptor's range and passed to the
// [Node.OnSetParameters] callbacks, which can refuse it; the declaration is
// then an error matching ErrParameterRejected. Declaring a name twice is an
// error matching ErrParameterAlreadyDeclared. A declared parameter is
// announced on /parameter_events.
func (n *Node) DeclareParameter(name string, def any, opts ...ParameterOption) (any, error) {
	if err := names.ValidateParamName(name); err != nil {
		return nil, fmt.Errorf("ros: declare parameter: %w: %w", ErrInvalidName, err)
	}
	d := paramDecl{}
	for _, o := range opts {
		o(&d)
	}
	pv, err := ParameterValueOf(def)
	if err != nil {
		return nil, fmt.Errorf("ros: declare parameter %q: %w", name, err)
	}
	p := &n.params
	p.setMu.Lock()
	defer p.setMu.Unlock()
	p.mu.Lock()
	_, dup := p.declared[name]
	ov, hasOverride := p.overrides[name]
	p.mu.Unlock()
	if dup {
		return nil, fmt.Errorf("ros: declare parameter %q: %w", name, ErrParameterAlreadyDeclared)
	}
	if hasOverride && !d.ignoreOverride {
		pv = cloneValue(ov)
	}
	d.desc.Name = name
	d.desc.Type = pv.Type
	if pv.Type == uint8(ParameterNotSet) && !d.desc.DynamicTyping {
		return nil, fmt.Errorf("ros: declare parameter %q: %w: no default, no override, and no dynamic typing", name, ErrParameterType)
	}
	if hasOverride && !d.ignoreOverride && def != nil && !d.desc.DynamicTyping {
		if want, _ := ParameterValueOf(def); want.Type != pv.Type {
			return nil, fmt.Errorf("ros: declare parameter %q: %w: the override is %s, the default %s", name, ErrParameterType, ParameterType(pv.Type), ParameterType(want.Type))
		}
	}
	if reason := checkRange(name, &d.desc, pv); reason != "" {
		return nil, fmt.Errorf("ros: declare parameter %q: %w: %s", name, ErrParameterRejected, reason)
	}
	params := []Parameter{{Name: name, Value: ParameterValueToGo(pv)}}
	if err := n.runCallbacks(params); err != nil {
		return nil, fmt.Errorf("ros: declare parameter %q: %w", name, err)
	}
	p.mu.Lock()
	p.declared[name] = &paramEntry{value: pv, desc: d.desc}
	p.mu.Unlock()
	n.afterChange(params, &rcl_interfaces.ParameterEvent{NewParameters: []rcl_interfaces.Parameter{{Name: name, Value: cloneValue(pv)}}})
	return ParameterValueToGo(pv), nil
}

// UndeclareParameter removes a parameter: an error matching
// ErrParameterNotDeclared if it is not declared, ErrParameterRejected if it
// is read-only or statically typed (as rclcpp refuses).
func (n *Node) UndeclareParameter(name string) error {
	p := &n.params
	p.setMu.Lock()
	defer p.setMu.Unlock()
	p.mu.Lock()
	e, ok := p.declared[name]
	if !ok {
		p.mu.Unlock()
		return fmt.Errorf("ros: undeclare parameter %q: %w", name, ErrParameterNotDeclared)
	}
	if e.desc.ReadOnly {
		p.mu.Unlock()
		return fmt.Errorf("ros: undeclare parameter %q: %w", name, paramErr(ErrParameterRejected, "Trying to set a read-only parameter: %s.", name))
	}
	if !e.desc.DynamicTyping {
		p.mu.Unlock()
		return fmt.Errorf("ros: undeclare parameter %q: %w", name, paramErr(ErrParameterRejected, "Static parameter cannot be undeclared"))
	}
	delete(p.declared, name)
	p.mu.Unlock()
	n.afterChange([]Parameter{{Name: name}}, &rcl_interfaces.ParameterEvent{DeletedParameters: []rcl_interfaces.Parameter{{Name: name}}})
	return nil
}

// HasParameter reports whether the parameter is declared.
func (n *Node) HasParameter(name string) bool {
	n.params.mu.Lock()
	defer n.params.mu.Unlock()
	_, ok := n.params.declared[name]
	return ok
}

// ParameterNames returns the names of the declared parameters, sorted.
func (n *Node) ParameterNames() []string {
	n.params.mu.Lock()
	defer n.params.mu.Unlock()
	out := make([]string, 0, len(n.params.declared))
	for k := range n.params.declared {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// ParameterValue returns a declared parameter's value as a Go value (see
// [Parameter]), or an error matching ErrParameterNotDeclared.
func (n *Node) ParameterValue(name string) (any, error) {
	pv, _, err := n.parameter(name)
	if err != nil {
		return nil, err
	}
	return ParameterValueToGo(pv), nil
}

// DescribeParameter returns a declared parameter's descriptor.
func (n *Node) DescribeParameter(name string) (rcl_interfaces.ParameterDescriptor, error) {
	_, d, err := n.parameter(name)
	return d, err
}

func (n *Node) parameter(name string) (rcl_interfaces.ParameterValue, rcl_interfaces.ParameterDescriptor, error) {
	n.params.mu.Lock()
	defer n.params.mu.Unlock()
	e, ok := n.params.declared[name]
	if !ok {
		return rcl_interfaces.ParameterValue{}, rcl_interfaces.ParameterDescriptor{}, fmt.Errorf("ros: parameter %q: %w", name, ErrParameterNotDeclared)
	}
	return cloneValue(e.value), cloneDescriptor(e.desc), nil
}

func cloneDescriptor(d rcl_interfaces.ParameterDescriptor) rcl_interfaces.ParameterDescriptor {
	d.FloatingPointRange = slices.Clone(d.FloatingPointRange)
	d.IntegerRange = slices.Clone(d.IntegerRange)
	return d
}

// GetParameter returns a declared parameter's value as a T: an error
// matching ErrParameterNotDeclared if it is not declared, ErrParameterType
// if it holds another type.
//
//	speed, err := ros.GetParameter[float64](node, "max_speed")
func GetParameter[T ParameterKind](n *Node, name string) (T, error) {
	var zero T
	v, err := n.ParameterValue(name)
	if err != nil {
		return zero, err
	}
	t, ok := v.(T)
	if !ok {
		return zero, fmt.Errorf("ros: parameter %q: %w: it is %T, not %T", name, ErrParameterType, v, zero)
	}
	return t, nil
}

// OnSetParameters registers f to be called with every change of the
// node's parameters before it is made, declarations included: a non-nil
// error rejects the whole change, its text being the reason remote clients
// see. f runs with changes serialised and must not change parameters
// itself. remove unregisters f.
func (n *Node) OnSetParameters(f func([]Parameter) error) (remove func()) {
	cb := &paramCallback{f: f}
	n.params.mu.Lock()
	n.params.callbacks = append(n.params.callbacks, cb)
	n.params.mu.Unlock()
	return func() {
		n.params.mu.Lock()
		defer n.params.mu.Unlock()
		if i := slices.Index(n.params.callbacks, cb); i >= 0 {
			n.params.callbacks = slices.Delete(n.params.callbacks, i, i+1)
		}
	}
}

// ParameterUpdates returns a sub of the accepted changes of the node's
// parameters (declarations included; an undeclared parameter comes with a
// nil Value). Its first reliable consumer also gets the changes made since
// the call (up to [afor.DefaultQueueSize]). It closes with the node.
func (n *Node) ParameterUpdates(opts ...afor.Option) *afor.Sub[[]Parameter] {
	opts = append([]afor.Option{afor.WithName("ros parameters:" + n.FullyQualifiedName()), afor.WithLogger(n.logger), afor.WithBacklog(afor.DefaultQueueSize)}, opts...)
	s := afor.NewSub[[]Parameter](opts...)
	untrack, err := n.track(func() error { s.Close(); return nil })
	if err != nil {
		s.CloseWithError(err)
		return s
	}
	n.params.mu.Lock()
	n.params.watchers = append(n.params.watchers, s)
	n.params.mu.Unlock()
	s.OnClose(func() {
		untrack()
		n.params.mu.Lock()
		defer n.params.mu.Unlock()
		if i := slices.Index(n.params.watchers, s); i >= 0 {
			n.params.watchers = slices.Delete(n.params.watchers, i, i+1)
		}
	})
	return s
}

func (n *Node) runCallbacks(params []Parameter) error {
	n.params.mu.Lock()
	cbs := slices.Clone(n.params.callbacks)
	n.params.mu.Unlock()
	for _, cb := range cbs {
		if err := cb.f(params); err != nil {
			return paramErr(ErrParameterRejected, "%s", err.Error())
		}
	}
	return nil
}

// afterChange runs the internal hooks, feeds the watchers and publishes
// the event. setMu is held.
func (n *Node) afterChange(params []Parameter, ev *rcl_interfaces.ParameterEvent) {
	n.params.mu.Lock()
	post := slices.Clone(n.params.post)
	watchers := slices.Clone(n.params.watchers)
	events := n.params.events
	n.params.mu.Unlock()
	for _, f := range post {
		f(params)
	}
	for _, w := range watchers {
		w.Input(params)
	}
	if events == nil {
		return
	}
	ev.Node = n.FullyQualifiedName()
	ev.Stamp = timeMsg(n.Clock().Now())
	if err := events.Publish(context.Background(), ev); err != nil && !errors.Is(err, ErrClosed) {
		n.ctx.logger.Warn("ros: publishing a parameter event", "node", n.FullyQualifiedName(), "err", err)
	}
}

// SetParameters sets parameters one by one, as the set_parameters service
// does: each result is nil or the error that refused that one (matching
// ErrParameterNotDeclared, ErrParameterType or ErrParameterRejected). A nil
// Value undeclares a dynamically typed parameter.
func (n *Node) SetParameters(params ...Parameter) []error {
	errs := make([]error, len(params))
	for i, p := range params {
		errs[i] = n.SetParametersAtomically(p)
	}
	return errs
}

// SetParametersAtomically sets all of params or none: the first refusal is
// returned and nothing changes.
func (n *Node) SetParametersAtomically(params ...Parameter) error {
	msgs := make([]rcl_interfaces.Parameter, len(params))
	for i, p := range params {
		pv, err := ParameterValueOf(p.Value)
		if err != nil {
			return fmt.Errorf("ros: set parameter %q: %w", p.Name, err)
		}
		msgs[i] = rcl_interfaces.Parameter{Name: p.Name, Value: pv}
	}
	return n.setAtomically(msgs)
}

// setAtomically checks and applies a change of several parameters.
func (n *Node) setAtomically(msgs []rcl_interfaces.Parameter) error {
	p := &n.params
	p.setMu.Lock()
	defer p.setMu.Unlock()
	ev := &rcl_interfaces.ParameterEvent{}
	params := make([]Parameter, len(msgs))
	p.mu.Lock()
	for i, m := range msgs {
		e, ok := p.declared[m.Name]
		if !ok {
			p.mu.Unlock()
			// rclpy's reason, word for word (its list is always empty).
			return fmt.Errorf("ros: parameter %q: %w", m.Name, paramErr(ErrParameterNotDeclared, "Invalid access to undeclared parameter(s): []"))
		}
		if err := checkSet(m.Name, e, m.Value); err != nil {
			p.mu.Unlock()
			return err
		}
		params[i] = Parameter{Name: m.Name, Value: ParameterValueToGo(m.Value)}
	}
	p.mu.Unlock()
	if err := n.runCallbacks(params); err != nil {
		return err
	}
	p.mu.Lock()
	for _, m := range msgs {
		v := cloneValue(m.Value)
		if v.Type == uint8(ParameterNotSet) {
			if _, ok := p.declared[m.Name]; ok {
				delete(p.declared, m.Name)
				ev.DeletedParameters = append(ev.DeletedParameters, rcl_interfaces.Parameter{Name: m.Name})
			}
			continue
		}
		e := p.declared[m.Name]
		if e == nil { // undeclared earlier in this change, declared again
			continue
		}
		e.value = v
		if e.desc.DynamicTyping {
			e.desc.Type = v.Type
		}
		ev.ChangedParameters = append(ev.ChangedParameters, rcl_interfaces.Parameter{Name: m.Name, Value: cloneValue(v)})
	}
	p.mu.Unlock()
	n.afterChange(params, ev)
	return nil
}

// paramError is a refused parameter change: Reason is what remote
// clients are told.
type paramError struct {
	kind   error
	reason string
}

func (e *paramError) Error() string { return e.kind.Error() + ": " + e.reason }
func (e *paramError) Unwrap() error { return e.kind }

func paramErr(kind error, format string, args ...any) error {
	return &paramError{kind: kind, reason: fmt.Sprintf(format, args...)}
}

// reasonOf returns the reason to give a remote client for err.
func reasonOf(err error) string {
	var pe *paramError
	if errors.As(err, &pe) {
		return pe.reason
	}
	return err.Error()
}

// checkSet says why value cannot be given to the declared parameter e,
// with rclpy's checks in rclpy's order and its reasons.
func checkSet(name string, e *paramEntry, value rcl_interfaces.ParameterValue) error {
	if e.desc.ReadOnly {
		return paramErr(ErrParameterRejected, "Trying to set a read-only parameter: %s.", name)
	}
	if value.Type > uint8(ParameterStringArray) {
		return paramErr(ErrParameterType, "Unknown parameter type %d for %s", value.Type, name)
	}
	switch {
	case e.desc.DynamicTyping:
	case value.Type == uint8(ParameterNotSet):
		return paramErr(ErrParameterRejected, "Static parameter cannot be undeclared")
	case value.Type != e.desc.Type:
		return paramErr(ErrParameterType, "Wrong parameter type, expected '%d' got '%d'", e.desc.Type, value.Type)
	}
	if reason := checkRange(name, &e.desc, value); reason != "" {
		return paramErr(ErrParameterRejected, "%s", reason)
	}
	return nil
}

// paramRelTol is rclpy's relative tolerance for double ranges.
const paramRelTol = 1e-6

// checkRange says why value is outside the descriptor's range, or "", as
// rclpy checks: the ends (either way round) are always allowed, then the
// open interval, then the step from the lower end.
func checkRange(name string, d *rcl_interfaces.ParameterDescriptor, value rcl_interfaces.ParameterValue) string {
	if len(d.IntegerRange) > 0 && value.Type == uint8(ParameterInteger) {
		r, v := d.IntegerRange[0], value.IntegerValue
		lo, hi := min(r.FromValue, r.ToValue), max(r.FromValue, r.ToValue)
		switch {
		case v == lo || v == hi:
		case v < lo || v > hi:
			return fmt.Sprintf("Parameter %s out of range. Min: %d, Max: %d, value: %d", name, lo, hi, v)
		case r.Step != 0 && uint64(v-lo)%r.Step != 0:
			return fmt.Sprintf("The parameter value for %s is not a valid step. Min: %d, max: %d, value: %d, step: %d", name, lo, hi, v, r.Step)
		}
	}
	if len(d.FloatingPointRange) > 0 && value.Type == uint8(ParameterDouble) {
		r, v := d.FloatingPointRange[0], value.DoubleValue
		lo, hi := math.Min(r.FromValue, r.ToValue), math.Max(r.FromValue, r.ToValue)
		switch {
		case isClose(v, lo) || isClose(v, hi):
		case !(lo < v && v < hi):
			return fmt.Sprintf("Parameter %s out of range Min: %s, Max: %s, value: %s", name, pyFloat(lo), pyFloat(hi), pyFloat(v))
		case r.Step != 0 && !isClose(lo+math.Round((v-lo)/r.Step)*r.Step, v):
			return fmt.Sprintf("The parameter value for %s is not close enough to a valid step. Min: %s, max: %s, value: %s, step: %s",
				name, pyFloat(lo), pyFloat(hi), pyFloat(v), pyFloat(r.Step))
		}
	}
	return ""
}

// isClose is Python's math.isclose with rel_tol paramRelTol.
func isClose(a, b float64) bool {
	if a == b {
		return true
	}
	if math.IsInf(a, 0) || math.IsInf(b, 0) {
		return false
	}
	return math.Abs(a-b) <= paramRelTol*math.Max(math.Abs(a), math.Abs(b))
}

// pyFloat formats a float as Python's str does ("10.0", "0.25").
func pyFloat(f float64) string {
	switch a := math.Abs(f); {
	case math.IsNaN(f):
		return "nan"
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	case a >= 1e16 || a != 0 && a < 1e-4:
		return strconv.FormatFloat(f, 'e', -1, 64)
	}
	s := strconv.FormatFloat(f, 'f', -1, 64)
	if !strings.Contains(s, ".") {
		s += ".0"
	}
	return s
}

// listParameters answers list_parameters as rclpy does: with no prefixes,
// every name with fewer than depth dots (all for DEPTH_RECURSIVE); with
// prefixes, the names equal to one, or under it ("prefix.rest") with fewer
// than depth dots in rest (rclcpp counts the dot after the prefix too).
// Prefixes lists the distinct parents of the names.
func (n *Node) listParameters(prefixes []string, depth uint64) rcl_interfaces.ListParametersResult {
	var out rcl_interfaces.ListParametersResult
	out.Names, out.Prefixes = []string{}, []string{}
	within := func(s string) bool {
		return depth == rcl_interfaces.ListParametersRequestDepthRecursive || uint64(strings.Count(s, ".")) < depth
	}
	for _, name := range n.ParameterNames() {
		all := len(prefixes) == 0 && within(name)
		match := slices.ContainsFunc(prefixes, func(pre string) bool {
			if name == pre {
				return true
			}
			return strings.HasPrefix(name, pre+".") && within(name[len(pre)+1:])
		})
		if !all && !match {
			continue
		}
		out.Names = append(out.Names, name)
		if i := strings.LastIndexByte(name, '.'); i >= 0 && !slices.Contains(out.Prefixes, name[:i]) {
			out.Prefixes = append(out.Prefixes, name[:i])
		}
	}
	return out
}

// timeMsg converts a time to builtin_interfaces/Time, clamped to its
// range.
func timeMsg(t time.Time) builtin_interfaces.Time {
	ns := t.UnixNano()
	if t.IsZero() || ns < 0 {
		return builtin_interfaces.Time{}
	}
	sec := ns / 1e9
	if sec > math.MaxInt32 {
		return builtin_interfaces.Time{Sec: math.MaxInt32, Nanosec: 999999999}
	}
	return builtin_interfaces.Time{Sec: int32(sec), Nanosec: uint32(ns % 1e9)}
}

// timeFromMsg converts builtin_interfaces/Time to a time.
func timeFromMsg(m builtin_interfaces.Time) time.Time {
	return time.Unix(int64(m.Sec), int64(m.Nanosec)).UTC()
}
