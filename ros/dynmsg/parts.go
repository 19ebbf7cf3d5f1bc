package dynmsg

import (
	"fmt"

	"github.com/afor-go/afor/ros/idl"
)

// ServiceTypes returns the request and response types of the service name
// ("std_srvs/srv/SetBool" or "std_srvs/SetBool").
func ServiceTypes(reg *idl.Registry, name string) (req, res *Type, err error) {
	s, err := reg.Service(name)
	if err != nil {
		return nil, nil, err
	}
	if req, err = NewType(reg, s.Request.FullName()); err != nil {
		return nil, nil, err
	}
	if res, err = NewType(reg, s.Response.FullName()); err != nil {
		return nil, nil, err
	}
	return req, res, nil
}

// ActionParts are the message types of an action: its goal, result and
// feedback, and the messages that travel on the wire: the requests and
// responses of its SendGoal and GetResult services, its feedback message
// (goal id and feedback), and those of the action_msgs services and topic
// every action has (CancelGoal, GoalStatusArray).
type ActionParts struct {
	Goal, Result, Feedback *Type // "pkg/action/Name_Goal", "_Result", "_Feedback"

	SendGoalRequest, SendGoalResponse   *Type // "pkg/action/Name_SendGoal_Request", "_Response"
	GetResultRequest, GetResultResponse *Type // "pkg/action/Name_GetResult_Request", "_Response"
	FeedbackMessage                     *Type // "pkg/action/Name_FeedbackMessage"

	CancelGoalRequest, CancelGoalResponse *Type // "action_msgs/srv/CancelGoal_Request", "_Response"
	Status                                *Type // "action_msgs/msg/GoalStatusArray"
}

// ActionTypes returns the message types of the action name
// ("example_interfaces/action/Fibonacci" or "example_interfaces/Fibonacci").
func ActionTypes(reg *idl.Registry, name string) (ActionParts, error) {
	a, err := reg.Action(name)
	if err != nil {
		return ActionParts{}, err
	}
	base := a.FullName()
	var p ActionParts
	for _, x := range []struct {
		dst  **Type
		name string
	}{
		{&p.Goal, base + "_Goal"},
		{&p.Result, base + "_Result"},
		{&p.Feedback, base + "_Feedback"},
		{&p.SendGoalRequest, base + "_SendGoal_Request"},
		{&p.SendGoalResponse, base + "_SendGoal_Response"},
		{&p.GetResultRequest, base + "_GetResult_Request"},
		{&p.GetResultResponse, base + "_GetResult_Response"},
		{&p.FeedbackMessage, base + "_FeedbackMessage"},
		{&p.CancelGoalRequest, "action_msgs/srv/CancelGoal_Request"},
		{&p.CancelGoalResponse, "action_msgs/srv/CancelGoal_Response"},
		{&p.Status, "action_msgs/msg/GoalStatusArray"},
	} {
		t, err := NewType(reg, x.name)
		if err != nil {
			return ActionParts{}, fmt.Errorf("action %s: %w", name, err)
		}
		*x.dst = t
	}
	return p, nil
}
