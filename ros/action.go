package ros

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"time"

	"github.com/afor-go/afor/ros/cdr"
)

// ActionType is implemented by the generated action types (such as
// example_interfaces.Fibonacci): it names the action, gives the codecs of
// its goals G, results R and feedback F, and names the types that carry
// them on the wire. [NewActionServer] and [NewActionClient] infer G, R and
// F from it.
type ActionType[G, R, F any, PG interface {
	*G
	cdr.Message
}, PR interface {
	*R
	cdr.Message
}, PF interface {
	*F
	cdr.Message
}] interface {
	cdr.Named
	ActionCodecs() (cdr.MessageCodec[G, PG], cdr.MessageCodec[R, PR], cdr.MessageCodec[F, PF])
	WireTypes() [7]cdr.Named
}

// GoalID identifies a goal: a UUID the client picks (unique_identifier_msgs/UUID).
type GoalID [16]byte

// NewGoalID returns a random (version 4) UUID.
func NewGoalID() GoalID {
	var id GoalID
	_, _ = rand.Read(id[:]) // crypto/rand.Read never fails
	id[6] = id[6]&0x0f | 0x40
	id[8] = id[8]&0x3f | 0x80
	return id
}

// String formats the ID as a UUID: "8-4-4-4-12" hex digits.
func (id GoalID) String() string {
	h := hex.EncodeToString(id[:])
	return h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}

// IsZero reports whether the ID is all zeros, which a cancel request uses
// for "every goal".
func (id GoalID) IsZero() bool { return id == GoalID{} }

// GoalStatus is the state of a goal, with the numbers of
// action_msgs/msg/GoalStatus.
type GoalStatus int8

// Goal states. A goal is accepted, then executing; a cancel request makes
// an accepted or executing goal canceling; it ends succeeded, canceled or
// aborted.
const (
	StatusUnknown   GoalStatus = 0
	StatusAccepted  GoalStatus = 1
	StatusExecuting GoalStatus = 2
	StatusCanceling GoalStatus = 3
	StatusSucceeded GoalStatus = 4
	StatusCanceled  GoalStatus = 5
	StatusAborted   GoalStatus = 6
)

// Terminal reports whether s is a final state: succeeded, canceled or
// aborted.
func (s GoalStatus) Terminal() bool {
	return s == StatusSucceeded || s == StatusCanceled || s == StatusAborted
}

// Active reports whether s is accepted, executing or canceling.
func (s GoalStatus) Active() bool {
	return s == StatusAccepted || s == StatusExecuting || s == StatusCanceling
}

func (s GoalStatus) String() string {
	switch s {
	case StatusUnknown:
		return "unknown"
	case StatusAccepted:
		return "accepted"
	case StatusExecuting:
		return "executing"
	case StatusCanceling:
		return "canceling"
	case StatusSucceeded:
		return "succeeded"
	case StatusCanceled:
		return "canceled"
	case StatusAborted:
		return "aborted"
	}
	return fmt.Sprintf("GoalStatus(%d)", int8(s))
}

// ActionGoalStatus is one entry of an action's status topic.
type ActionGoalStatus struct {
	ID       GoalID
	Accepted time.Time // when the server accepted the goal, by its clock
	Status   GoalStatus
}

var (
	// ErrGoalRejected is matched by the error of [ActionClient.SendGoal]
	// when the server rejects the goal, and returned by the methods of an
	// [ActionGoal] that was rejected.
	ErrGoalRejected = errors.New("ros: goal rejected")
	// ErrCancelRejected is matched by the error of [GoalHandle.Cancel] and
	// [ActionClient.CancelAll] when the server cancels nothing; the error
	// gives action_msgs' return code.
	ErrCancelRejected = errors.New("ros: cancel rejected")
	// ErrUnknownGoal is matched by the errors about a goal the server does
	// not know (never accepted, or its result expired).
	ErrUnknownGoal = errors.New("ros: unknown goal")
	// ErrGoalState is matched by the error of an [ActionGoal] method that
	// the goal's state does not allow, such as Succeed on a finished goal
	// or Canceled on a goal nobody asked to cancel.
	ErrGoalState = errors.New("ros: invalid goal state transition")
	// ErrCancelRequested is the cause (context.Cause) of the cancellation
	// of an [ActionGoal]'s context when a client asks to cancel the goal.
	ErrCancelRequested = errors.New("ros: goal cancel requested")
)

// DefaultResultTimeout is how long an action server keeps a finished
// goal's result (rcl's and rclpy's result_timeout).
const DefaultResultTimeout = 10 * time.Second

// ActionOption configures an [ActionServer].
type ActionOption func(*actionOptions)

type actionOptions struct {
	resultTimeout time.Duration
	cancelFilter  func(GoalID) bool
}

// WithCancelFilter makes the server ask accept, for every active goal a
// cancel request names, whether to cancel it; a goal it refuses goes on,
// and a request that cancels nothing is answered ERROR_REJECTED. The
// default accepts every cancel request (rclpy's default refuses them all;
// the goal's Context is how afor delivers them). accept runs while the
// server is locked: it must be quick and must not call the server.
func WithCancelFilter(accept func(GoalID) bool) ActionOption {
	return func(o *actionOptions) { o.cancelFilter = accept }
}

// WithResultTimeout sets how long a finished goal and its result are kept
// for get_result requests and the status topic (DefaultResultTimeout by
// default). d must be positive.
func WithResultTimeout(d time.Duration) ActionOption {
	return func(o *actionOptions) { o.resultTimeout = d }
}

// actionNames are the fully qualified names of an action's services and
// topics, resolved as rcl_action does: the action name is expanded and
// remapped like a topic name ("-r fibonacci:=/arm/fibonacci" moves the
// whole action), then each service and topic name under it like any other
// (a rule naming one of them in full applies to it).
type actionNames struct {
	action, sendGoal, cancelGoal, getResult, feedback, status string
}

func resolveActionNames(n *Node, name string) (actionNames, error) {
	if err := n.checkOpen(); err != nil {
		return actionNames{}, err
	}
	var an actionNames
	var err error
	if an.action, err = n.ResolveTopicName(name); err != nil {
		return actionNames{}, err
	}
	for _, x := range []struct {
		dst     *string
		suffix  string
		service bool
	}{
		{&an.sendGoal, "/_action/send_goal", true},
		{&an.cancelGoal, "/_action/cancel_goal", true},
		{&an.getResult, "/_action/get_result", true},
		{&an.feedback, "/_action/feedback", false},
		{&an.status, "/_action/status", false},
	} {
		if *x.dst, err = n.resolve(an.action+x.suffix, x.service); err != nil {
			return actionNames{}, err
		}
	}
	return an, nil
}

// QoS of an action's endpoints (rcl_action/default_qos.h): the services
// use QoSServices, feedback QoSDefault, status keeps the last array for
// late joiners.
var qosActionStatus = QoS{History: KeepLast, Depth: 1, Reliability: Reliable, Durability: TransientLocal}
