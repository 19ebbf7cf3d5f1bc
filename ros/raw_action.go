package ros

import (
	"fmt"

	"github.com/afor-go/afor/ros/cdr"
	"github.com/afor-go/afor/ros/internal/rmwdds"
)

// RawActionType names an action type at run time and the types that carry
// it on the wire (which rosidl derives from the action: see package
// ros/idl's Action.SendGoal, GetResult and FeedbackMessage), for
// [NewRawActionClient].
type RawActionType struct {
	Action          RawType        // "example_interfaces/action/Fibonacci"
	SendGoal        RawServiceType // "…/Fibonacci_SendGoal" and its _Request and _Response
	GetResult       RawServiceType // "…/Fibonacci_GetResult" and its _Request and _Response
	FeedbackMessage RawType        // "…/Fibonacci_FeedbackMessage"
}

// RawPayload is a complete CDR payload (encapsulation header included) of
// an action's goal or feedback message ("…/Fibonacci_Goal",
// "…/Fibonacci_Feedback"), as a raw action client sends and receives them.
// A goal payload must be little-endian, as ROS 2 writes them.
type RawPayload []byte

// RawResult is the result of a goal of a raw action client. An action's
// result cannot be cut out of the get_result reply without knowing its
// type (its members are aligned from where it sits in the reply), so
// Payload is the whole reply, a CDR payload of the "…/Fibonacci_GetResult_Response"
// type ("int8 status" then the result), with a zero status member: the
// status is the one [GoalHandle.Result] returns.
type RawResult struct {
	Payload []byte
}

// NewRawActionClient creates a client of the action name (resolved by the
// node) of type t, whose goals and feedback are CDR payloads and results
// get_result replies: the [ActionClient] of the generated types, for types
// named at run time.
//
//	client, err := ros.NewRawActionClient(node, "fibonacci", t)
//	goal, err := client.SendGoal(ctx, goalPayload)
//	status, res, err := goal.Result(ctx) // res.Payload: a Fibonacci_GetResult_Response
func NewRawActionClient(n *Node, name string, t RawActionType) (*ActionClient[RawPayload, RawResult, RawPayload], error) {
	for _, rt := range []RawType{t.Action, t.SendGoal.Service, t.SendGoal.Request, t.SendGoal.Response,
		t.GetResult.Service, t.GetResult.Request, t.GetResult.Response, t.FeedbackMessage} {
		if _, err := rt.rmw(); err != nil {
			return nil, fmt.Errorf("ros: action client %s: %w", name, err)
		}
	}
	return NewActionClient(n, name, rawAction(t))
}

// rawAction is a RawActionType as an ActionType.
type rawAction RawActionType

func (a rawAction) TypeName() string    { return rawNamed(a.Action).TypeName() }
func (a rawAction) DDSTypeName() string { return rawNamed(a.Action).DDSTypeName() }
func (a rawAction) TypeHash() string    { return a.Action.Hash }

func (rawAction) ActionCodecs() (cdr.MessageCodec[RawPayload, *RawPayload], cdr.MessageCodec[RawResult, *RawResult], cdr.MessageCodec[RawPayload, *RawPayload]) {
	return cdr.MessageCodec[RawPayload, *RawPayload]{}, cdr.MessageCodec[RawResult, *RawResult]{}, cdr.MessageCodec[RawPayload, *RawPayload]{}
}

func (a rawAction) WireTypes() [7]cdr.Named {
	return [7]cdr.Named{
		rawNamed(a.SendGoal.Service), rawNamed(a.SendGoal.Request), rawNamed(a.SendGoal.Response),
		rawNamed(a.GetResult.Service), rawNamed(a.GetResult.Request), rawNamed(a.GetResult.Response),
		rawNamed(a.FeedbackMessage),
	}
}

// rawNamed is a RawType as a cdr.Named. Its names are checked first (by
// NewRawActionClient).
type rawNamed RawType

func (t rawNamed) TypeName() string { return t.Name }
func (t rawNamed) DDSTypeName() string {
	s, _ := rmwdds.DDSTypeName(t.Name)
	return s
}
func (t rawNamed) TypeHash() string { return t.Hash }

// The codec methods below let RawPayload and RawResult stand for the goal,
// feedback and result of an ActionClient. The members of a goal and of a
// feedback message follow a 16-byte goal ID in the wrappers, so their
// alignment is the same there as in a payload of their own, and their
// bytes are copied as they are.

// TypeName returns "": a raw payload's type is named by its client.
func (*RawPayload) TypeName() string { return "" }

// DDSTypeName returns "": a raw payload's type is named by its client.
func (*RawPayload) DDSTypeName() string { return "" }

// TypeHash returns "": a raw payload's type is named by its client.
func (*RawPayload) TypeHash() string { return "" }

// AppendCDR appends the payload to dst.
func (p *RawPayload) AppendCDR(dst []byte) ([]byte, error) { return append(dst, *p...), nil }

// UnmarshalCDR sets the payload to a copy of data.
func (p *RawPayload) UnmarshalCDR(data []byte) error {
	if _, err := cdr.NewDecoder(data); err != nil {
		return err
	}
	*p = append((*p)[:0], data...)
	return nil
}

// EncodeCDR writes the members of the payload, which must be
// little-endian CDR, to e.
func (p *RawPayload) EncodeCDR(e *cdr.Encoder) {
	d, err := cdr.NewDecoder(*p)
	switch {
	case err != nil:
		e.Fail(fmt.Errorf("ros: raw payload: %w", err))
	case d.BigEndian():
		e.Fail(fmt.Errorf("%w: a raw goal payload must be little-endian CDR", cdr.ErrInvalid))
	default:
		cdr.AppendArray(e, []byte(*p)[cdr.HeaderSize:])
	}
}

// DecodeCDR reads the rest of d as the members of the payload.
func (p *RawPayload) DecodeCDR(d *cdr.Decoder) {
	kind := byte(cdr.KindLE)
	if d.BigEndian() {
		kind = cdr.KindBE
	}
	n := d.Remaining()
	*p = append((*p)[:0], 0, kind, 0, 0)
	*p = append(*p, make([]byte, n)...)
	cdr.DecodeArray(d, []byte(*p)[cdr.HeaderSize:])
}

// TypeName returns "": a raw result's type is named by its client.
func (*RawResult) TypeName() string { return "" }

// DDSTypeName returns "": a raw result's type is named by its client.
func (*RawResult) DDSTypeName() string { return "" }

// TypeHash returns "": a raw result's type is named by its client.
func (*RawResult) TypeHash() string { return "" }

// AppendCDR appends the payload to dst.
func (r *RawResult) AppendCDR(dst []byte) ([]byte, error) { return append(dst, r.Payload...), nil }

// UnmarshalCDR sets the payload to a copy of data.
func (r *RawResult) UnmarshalCDR(data []byte) error {
	if _, err := cdr.NewDecoder(data); err != nil {
		return err
	}
	r.Payload = append(r.Payload[:0], data...)
	return nil
}

// EncodeCDR fails: a raw client never sends a result.
func (r *RawResult) EncodeCDR(e *cdr.Encoder) {
	e.Fail(fmt.Errorf("%w: a raw result cannot be nested in another message", cdr.ErrInvalid))
}

// DecodeCDR reads the rest of d, the result in a get_result reply, and
// keeps it as the whole reply, with zeros for what came before it.
func (r *RawResult) DecodeCDR(d *cdr.Decoder) {
	kind := byte(cdr.KindLE)
	if d.BigEndian() {
		kind = cdr.KindBE
	}
	off, n := d.Offset(), d.Remaining()
	r.Payload = append(r.Payload[:0], 0, kind, 0, 0)
	r.Payload = append(r.Payload, make([]byte, off+n)...)
	cdr.DecodeArray(d, r.Payload[cdr.HeaderSize+off:])
}
