package lifecycle

import "github.com/afor-go/afor/ros/msgs/lifecycle_msgs"

// State is a state of the managed-node state machine: its id and label, as
// lifecycle_msgs/msg/State carries them ({3, "active"}).
type State = lifecycle_msgs.State

// Transition is a transition of the state machine: its id and label, as
// lifecycle_msgs/msg/Transition carries them ({3, "activate"}).
type Transition = lifecycle_msgs.Transition

// TransitionDescription is a transition with its start and goal states, as
// the get_available_transitions and get_transition_graph services list
// them.
type TransitionDescription = lifecycle_msgs.TransitionDescription

// The states of rcl_lifecycle's default state machine: the primary states,
// where a node rests, and the transition states, where it runs a handler.
var (
	Unknown      = State{ID: lifecycle_msgs.StatePrimaryStateUnknown, Label: "unknown"}
	Unconfigured = State{ID: lifecycle_msgs.StatePrimaryStateUnconfigured, Label: "unconfigured"}
	Inactive     = State{ID: lifecycle_msgs.StatePrimaryStateInactive, Label: "inactive"}
	Active       = State{ID: lifecycle_msgs.StatePrimaryStateActive, Label: "active"}
	Finalized    = State{ID: lifecycle_msgs.StatePrimaryStateFinalized, Label: "finalized"}

	Configuring     = State{ID: lifecycle_msgs.StateTransitionStateConfiguring, Label: "configuring"}
	CleaningUp      = State{ID: lifecycle_msgs.StateTransitionStateCleaningup, Label: "cleaningup"}
	ShuttingDown    = State{ID: lifecycle_msgs.StateTransitionStateShuttingdown, Label: "shuttingdown"}
	Activating      = State{ID: lifecycle_msgs.StateTransitionStateActivating, Label: "activating"}
	Deactivating    = State{ID: lifecycle_msgs.StateTransitionStateDeactivating, Label: "deactivating"}
	ErrorProcessing = State{ID: lifecycle_msgs.StateTransitionStateErrorprocessing, Label: "errorprocessing"}
)

// The labels of the transitions out of a transition state, taken by the
// result of its handler.
const (
	LabelSuccess = "transition_success"
	LabelFailure = "transition_failure"
	LabelError   = "transition_error"
)

// The transitions a caller asks for, from the primary states. The three
// shutdown transitions share the label "shutdown": asking by label takes
// the one of the current state.
var (
	Configure            = Transition{ID: lifecycle_msgs.TransitionTransitionConfigure, Label: "configure"}
	Cleanup              = Transition{ID: lifecycle_msgs.TransitionTransitionCleanup, Label: "cleanup"}
	Activate             = Transition{ID: lifecycle_msgs.TransitionTransitionActivate, Label: "activate"}
	Deactivate           = Transition{ID: lifecycle_msgs.TransitionTransitionDeactivate, Label: "deactivate"}
	UnconfiguredShutdown = Transition{ID: lifecycle_msgs.TransitionTransitionUnconfiguredShutdown, Label: "shutdown"}
	InactiveShutdown     = Transition{ID: lifecycle_msgs.TransitionTransitionInactiveShutdown, Label: "shutdown"}
	ActiveShutdown       = Transition{ID: lifecycle_msgs.TransitionTransitionActiveShutdown, Label: "shutdown"}
	// Shutdown names the shutdown transition of whatever primary state the
	// node is in, by label only.
	Shutdown = Transition{Label: "shutdown"}
)

// states lists every state, in rcl_lifecycle's order (get_available_states
// answers them so).
var states = []State{Unknown, Unconfigured, Inactive, Active, Finalized,
	Configuring, CleaningUp, ShuttingDown, Activating, Deactivating, ErrorProcessing}

// graph is rcl_lifecycle's default transition graph, in its order
// (get_transition_graph answers it so): from each primary state the
// transition into a transition state, then the three transitions out of
// that transition state by the handler's result.
var graph = buildGraph()

func buildGraph() []TransitionDescription {
	var g []TransitionDescription
	add := func(id uint8, label string, start, goal State) {
		g = append(g, TransitionDescription{Transition: Transition{ID: id, Label: label}, StartState: start, GoalState: goal})
	}
	// results adds the transitions out of a transition state: ids base,
	// base+1, base+2 to the goals of success, failure and error.
	results := func(base uint8, from, success, failure, err State) {
		add(base, LabelSuccess, from, success)
		add(base+1, LabelFailure, from, failure)
		add(base+2, LabelError, from, err)
	}
	add(Configure.ID, Configure.Label, Unconfigured, Configuring)
	results(lifecycle_msgs.TransitionTransitionOnConfigureSuccess, Configuring, Inactive, Unconfigured, ErrorProcessing)
	add(Cleanup.ID, Cleanup.Label, Inactive, CleaningUp)
	results(lifecycle_msgs.TransitionTransitionOnCleanupSuccess, CleaningUp, Unconfigured, Inactive, ErrorProcessing)
	add(Activate.ID, Activate.Label, Inactive, Activating)
	results(lifecycle_msgs.TransitionTransitionOnActivateSuccess, Activating, Active, Inactive, ErrorProcessing)
	add(Deactivate.ID, Deactivate.Label, Active, Deactivating)
	results(lifecycle_msgs.TransitionTransitionOnDeactivateSuccess, Deactivating, Inactive, Active, ErrorProcessing)
	add(UnconfiguredShutdown.ID, UnconfiguredShutdown.Label, Unconfigured, ShuttingDown)
	add(InactiveShutdown.ID, InactiveShutdown.Label, Inactive, ShuttingDown)
	add(ActiveShutdown.ID, ActiveShutdown.Label, Active, ShuttingDown)
	results(lifecycle_msgs.TransitionTransitionOnShutdownSuccess, ShuttingDown, Finalized, Finalized, ErrorProcessing)
	results(lifecycle_msgs.TransitionTransitionOnErrorSuccess, ErrorProcessing, Unconfigured, Finalized, Finalized)
	return g
}

// States returns every state of the state machine, in the order
// get_available_states lists them.
func States() []State { return append([]State(nil), states...) }

// Graph returns every transition of the state machine, in the order
// get_transition_graph lists them.
func Graph() []TransitionDescription { return append([]TransitionDescription(nil), graph...) }

// AvailableTransitions returns the transitions out of state s, in the
// order get_available_transitions lists them.
func AvailableTransitions(s State) []TransitionDescription {
	var out []TransitionDescription
	for _, t := range graph {
		if t.StartState.ID == s.ID {
			out = append(out, t)
		}
	}
	return out
}

// IsTransitionState reports whether s is a transition state, where a node
// runs a handler (configuring, activating, ...), rather than a primary
// state.
func IsTransitionState(s State) bool { return s.ID >= Configuring.ID }

// byID returns the transition out of from whose id is id.
func byID(from State, id uint8) (TransitionDescription, bool) {
	for _, t := range graph {
		if t.StartState.ID == from.ID && t.Transition.ID == id {
			return t, true
		}
	}
	return TransitionDescription{}, false
}

// byLabel returns the transition out of from whose label is label.
func byLabel(from State, label string) (TransitionDescription, bool) {
	for _, t := range graph {
		if t.StartState.ID == from.ID && t.Transition.Label == label {
			return t, true
		}
	}
	return TransitionDescription{}, false
}

// stateByID returns the state whose id is id.
func stateByID(id uint8) (State, bool) {
	for _, s := range states {
		if s.ID == id {
			return s, true
		}
	}
	return State{}, false
}
