package lifecycle

import (
	"fmt"
	"strings"
	"testing"
)

// rclGraph is the transition graph of rcl_lifecycle 10.1.3 (Kilted), as
// rclpy's LifecycleNode state machine lists it (transition_graph):
// "id label start goal" per transition.
const rclGraph = `1 configure unconfigured configuring
10 transition_success configuring inactive
11 transition_failure configuring unconfigured
12 transition_error configuring errorprocessing
2 cleanup inactive cleaningup
20 transition_success cleaningup unconfigured
21 transition_failure cleaningup inactive
22 transition_error cleaningup errorprocessing
3 activate inactive activating
30 transition_success activating active
31 transition_failure activating inactive
32 transition_error activating errorprocessing
4 deactivate active deactivating
40 transition_success deactivating inactive
41 transition_failure deactivating active
42 transition_error deactivating errorprocessing
5 shutdown unconfigured shuttingdown
6 shutdown inactive shuttingdown
7 shutdown active shuttingdown
50 transition_success shuttingdown finalized
51 transition_failure shuttingdown finalized
52 transition_error shuttingdown errorprocessing
60 transition_success errorprocessing unconfigured
61 transition_failure errorprocessing finalized
62 transition_error errorprocessing finalized
`

// rclStates are its states (available_states), "id label".
const rclStates = `0 unknown
1 unconfigured
2 inactive
3 active
4 finalized
10 configuring
11 cleaningup
12 shuttingdown
13 activating
14 deactivating
15 errorprocessing
`

func TestGraphIsRclLifecycles(t *testing.T) {
	var b strings.Builder
	for _, td := range Graph() {
		fmt.Fprintf(&b, "%d %s %s %s\n", td.Transition.ID, td.Transition.Label, td.StartState.Label, td.GoalState.Label)
		s, ok := stateByID(td.StartState.ID)
		if !ok || s != td.StartState {
			t.Errorf("%v: start state not in the state list", td)
		}
	}
	if b.String() != rclGraph {
		t.Errorf("graph:\n%s\nrcl_lifecycle's:\n%s", b.String(), rclGraph)
	}
	b.Reset()
	for _, s := range States() {
		fmt.Fprintf(&b, "%d %s\n", s.ID, s.Label)
	}
	if b.String() != rclStates {
		t.Errorf("states:\n%s\nrcl_lifecycle's:\n%s", b.String(), rclStates)
	}
}

func TestAvailableTransitions(t *testing.T) {
	for _, tc := range []struct {
		s    State
		want string
	}{
		{Unconfigured, "configure shutdown"},
		{Inactive, "cleanup activate shutdown"},
		{Active, "deactivate shutdown"},
		{Finalized, ""},
		{Activating, "transition_success transition_failure transition_error"},
		{Unknown, ""},
	} {
		var got []string
		for _, td := range AvailableTransitions(tc.s) {
			got = append(got, td.Transition.Label)
		}
		if strings.Join(got, " ") != tc.want {
			t.Errorf("%s: %v, want %s", tc.s.Label, got, tc.want)
		}
	}
	// The shutdown label takes each state's own transition.
	for s, id := range map[State]uint8{Unconfigured: 5, Inactive: 6, Active: 7} {
		if td, ok := byLabel(s, "shutdown"); !ok || td.Transition.ID != id {
			t.Errorf("shutdown from %s: %v %v", s.Label, td, ok)
		}
	}
	if _, ok := byID(Inactive, UnconfiguredShutdown.ID); ok {
		t.Error("id 5 (unconfigured_shutdown) is available from inactive")
	}
}
