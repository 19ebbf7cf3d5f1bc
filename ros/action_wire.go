package ros

import (
	"time"

	"github.com/afor-go/afor/ros/cdr"
	"github.com/afor-go/afor/ros/internal/rmw"
	"github.com/afor-go/afor/ros/msgs/action_msgs"
	"github.com/afor-go/afor/ros/msgs/builtin_interfaces"
	"github.com/afor-go/afor/ros/msgs/unique_identifier_msgs"
)

// actionWire encodes and decodes the messages of one action type: the
// wrappers (SendGoal, GetResult, FeedbackMessage) around G, R and F, whose
// layouts are fixed by rosidl (dds-rtps note §5.6), are written here
// around the generated codecs of G, R and F.
type actionWire[G, R, F any] struct {
	sendGoal, getResult rmw.ServiceType
	feedback            rmw.Type
	cancelGoal          rmw.ServiceType
	status              rmw.Type

	encGoal     func(e *cdr.Encoder, g *G)
	decGoal     func(d *cdr.Decoder, g *G)
	encResult   func(e *cdr.Encoder, r *R)
	decResult   func(d *cdr.Decoder, r *R)
	encFeedback func(e *cdr.Encoder, f *F)
	decFeedback func(d *cdr.Decoder, f *F)
}

func newActionWire[G, R, F any, PG interface {
	*G
	cdr.Message
}, PR interface {
	*R
	cdr.Message
}, PF interface {
	*F
	cdr.Message
}](a ActionType[G, R, F, PG, PR, PF]) *actionWire[G, R, F] {
	t := a.WireTypes()
	return &actionWire[G, R, F]{
		sendGoal:    rmw.ServiceType{Service: messageType(t[0]), Request: messageType(t[1]), Response: messageType(t[2])},
		getResult:   rmw.ServiceType{Service: messageType(t[3]), Request: messageType(t[4]), Response: messageType(t[5])},
		feedback:    messageType(t[6]),
		cancelGoal:  serviceType(action_msgs.CancelGoal{}),
		status:      messageType(action_msgs.GoalStatusArray{}),
		encGoal:     func(e *cdr.Encoder, g *G) { PG(g).EncodeCDR(e) },
		decGoal:     func(d *cdr.Decoder, g *G) { PG(g).DecodeCDR(d) },
		encResult:   func(e *cdr.Encoder, r *R) { PR(r).EncodeCDR(e) },
		decResult:   func(d *cdr.Decoder, r *R) { PR(r).DecodeCDR(d) },
		encFeedback: func(e *cdr.Encoder, f *F) { PF(f).EncodeCDR(e) },
		decFeedback: func(d *cdr.Decoder, f *F) { PF(f).DecodeCDR(d) },
	}
}

func encodeUUID(e *cdr.Encoder, id GoalID) {
	u := unique_identifier_msgs.UUID{UUID: id}
	u.EncodeCDR(e)
}

func decodeUUID(d *cdr.Decoder) GoalID {
	var u unique_identifier_msgs.UUID
	u.DecodeCDR(d)
	return GoalID(u.UUID)
}

// SendGoal_Request: UUID goal_id, Goal goal.
func (w *actionWire[G, R, F]) appendSendGoalRequest(dst []byte, id GoalID, g *G) ([]byte, error) {
	e := cdr.NewEncoder(dst)
	encodeUUID(&e, id)
	w.encGoal(&e, g)
	return e.Finish()
}

func (w *actionWire[G, R, F]) decodeSendGoalRequest(data []byte, g *G) (GoalID, error) {
	d, err := cdr.NewDecoder(data)
	if err != nil {
		return GoalID{}, err
	}
	id := decodeUUID(&d)
	w.decGoal(&d, g)
	return id, d.Finish(w.sendGoal.Request.Name)
}

// SendGoal_Response: bool accepted, builtin_interfaces/Time stamp.
func appendSendGoalResponse(dst []byte, accepted bool, stamp time.Time) ([]byte, error) {
	e := cdr.NewEncoder(dst)
	e.Bool(accepted)
	t := actionStamp(stamp)
	t.EncodeCDR(&e)
	return e.Finish()
}

func (w *actionWire[G, R, F]) decodeSendGoalResponse(data []byte) (accepted bool, stamp time.Time, err error) {
	d, err := cdr.NewDecoder(data)
	if err != nil {
		return false, time.Time{}, err
	}
	accepted = d.Bool()
	var t builtin_interfaces.Time
	t.DecodeCDR(&d)
	return accepted, actionTime(t), d.Finish(w.sendGoal.Response.Name)
}

// GetResult_Request: UUID goal_id.
func appendGetResultRequest(dst []byte, id GoalID) ([]byte, error) {
	e := cdr.NewEncoder(dst)
	encodeUUID(&e, id)
	return e.Finish()
}

func (w *actionWire[G, R, F]) decodeGetResultRequest(data []byte) (GoalID, error) {
	d, err := cdr.NewDecoder(data)
	if err != nil {
		return GoalID{}, err
	}
	id := decodeUUID(&d)
	return id, d.Finish(w.getResult.Request.Name)
}

// GetResult_Response: int8 status, Result result.
func (w *actionWire[G, R, F]) appendGetResultResponse(dst []byte, status GoalStatus, r *R) ([]byte, error) {
	e := cdr.NewEncoder(dst)
	e.Int8(int8(status))
	w.encResult(&e, r)
	return e.Finish()
}

func (w *actionWire[G, R, F]) decodeGetResultResponse(data []byte, r *R) (GoalStatus, error) {
	d, err := cdr.NewDecoder(data)
	if err != nil {
		return StatusUnknown, err
	}
	s := GoalStatus(d.Int8())
	w.decResult(&d, r)
	return s, d.Finish(w.getResult.Response.Name)
}

// FeedbackMessage: UUID goal_id, Feedback feedback.
func (w *actionWire[G, R, F]) appendFeedback(dst []byte, id GoalID, f *F) ([]byte, error) {
	e := cdr.NewEncoder(dst)
	encodeUUID(&e, id)
	w.encFeedback(&e, f)
	return e.Finish()
}

func (w *actionWire[G, R, F]) decodeFeedback(data []byte, f *F) (GoalID, error) {
	d, err := cdr.NewDecoder(data)
	if err != nil {
		return GoalID{}, err
	}
	id := decodeUUID(&d)
	w.decFeedback(&d, f)
	return id, d.Finish(w.feedback.Name)
}

// actionStamp converts t to builtin_interfaces/Time; the zero Time is {0, 0}.
func actionStamp(t time.Time) builtin_interfaces.Time {
	if t.IsZero() {
		return builtin_interfaces.Time{}
	}
	return builtin_interfaces.Time{Sec: int32(t.Unix()), Nanosec: uint32(t.Nanosecond())}
}

// actionTime converts builtin_interfaces/Time to a time; {0, 0} is the
// zero Time.
func actionTime(t builtin_interfaces.Time) time.Time {
	if t.Sec == 0 && t.Nanosec == 0 {
		return time.Time{}
	}
	return time.Unix(int64(t.Sec), int64(t.Nanosec))
}
