package ros

import (
	"fmt"
	"slices"
	"strconv"

	"github.com/afor-go/afor/ros/internal/names"
	"github.com/afor-go/afor/ros/msgs/rcl_interfaces"
)

// ParameterType is the type of a parameter value, with the numbers of
// rcl_interfaces/msg/ParameterType.
type ParameterType uint8

// Parameter types.
const (
	ParameterNotSet       ParameterType = 0
	ParameterBool         ParameterType = 1
	ParameterInteger      ParameterType = 2
	ParameterDouble       ParameterType = 3
	ParameterString       ParameterType = 4
	ParameterByteArray    ParameterType = 5
	ParameterBoolArray    ParameterType = 6
	ParameterIntegerArray ParameterType = 7
	ParameterDoubleArray  ParameterType = 8
	ParameterStringArray  ParameterType = 9
)

// String returns the type's name as rclcpp writes it ("integer",
// "double_array").
func (t ParameterType) String() string {
	switch t {
	case ParameterNotSet:
		return "not set"
	case ParameterBool:
		return "bool"
	case ParameterInteger:
		return "integer"
	case ParameterDouble:
		return "double"
	case ParameterString:
		return "string"
	case ParameterByteArray:
		return "byte_array"
	case ParameterBoolArray:
		return "bool_array"
	case ParameterIntegerArray:
		return "integer_array"
	case ParameterDoubleArray:
		return "double_array"
	case ParameterStringArray:
		return "string_array"
	}
	return "ParameterType(" + strconv.Itoa(int(t)) + ")"
}

// Parameter is a parameter's name and value. The Value is a Go value of
// one of the parameter types: nil (not set), bool, int64, float64, string,
// []byte, []bool, []int64, []float64 or []string. Given to the node, int
// and the other sized integers are taken as int64, float32 as float64.
type Parameter struct {
	Name  string
	Value any
}

// ParameterKind is the Go types of parameter values, for [GetParameter].
type ParameterKind interface {
	bool | int64 | float64 | string | []byte | []bool | []int64 | []float64 | []string
}

// ParameterValueOf converts a Go value (see [Parameter]) to its message
// form. A Go value of another type is an error matching ErrParameterType.
// The slices are copied.
func ParameterValueOf(v any) (rcl_interfaces.ParameterValue, error) {
	var pv rcl_interfaces.ParameterValue
	switch x := v.(type) {
	case nil:
	case rcl_interfaces.ParameterValue:
		pv = cloneValue(x)
	case bool:
		pv.Type, pv.BoolValue = uint8(ParameterBool), x
	case int:
		pv.Type, pv.IntegerValue = uint8(ParameterInteger), int64(x)
	case int8:
		pv.Type, pv.IntegerValue = uint8(ParameterInteger), int64(x)
	case int16:
		pv.Type, pv.IntegerValue = uint8(ParameterInteger), int64(x)
	case int32:
		pv.Type, pv.IntegerValue = uint8(ParameterInteger), int64(x)
	case int64:
		pv.Type, pv.IntegerValue = uint8(ParameterInteger), x
	case uint8:
		pv.Type, pv.IntegerValue = uint8(ParameterInteger), int64(x)
	case uint16:
		pv.Type, pv.IntegerValue = uint8(ParameterInteger), int64(x)
	case uint32:
		pv.Type, pv.IntegerValue = uint8(ParameterInteger), int64(x)
	case float32:
		pv.Type, pv.DoubleValue = uint8(ParameterDouble), float64(x)
	case float64:
		pv.Type, pv.DoubleValue = uint8(ParameterDouble), x
	case string:
		pv.Type, pv.StringValue = uint8(ParameterString), x
	case []byte:
		pv.Type, pv.ByteArrayValue = uint8(ParameterByteArray), slices.Clone(x)
	case []bool:
		pv.Type, pv.BoolArrayValue = uint8(ParameterBoolArray), slices.Clone(x)
	case []int64:
		pv.Type, pv.IntegerArrayValue = uint8(ParameterIntegerArray), slices.Clone(x)
	case []int:
		pv.Type, pv.IntegerArrayValue = uint8(ParameterIntegerArray), make([]int64, len(x))
		for i, e := range x {
			pv.IntegerArrayValue[i] = int64(e)
		}
	case []float64:
		pv.Type, pv.DoubleArrayValue = uint8(ParameterDoubleArray), slices.Clone(x)
	case []string:
		pv.Type, pv.StringArrayValue = uint8(ParameterStringArray), slices.Clone(x)
	default:
		return pv, fmt.Errorf("%w: a %T is not a parameter value", ErrParameterType, v)
	}
	return pv, nil
}

// ParameterValueToGo converts a parameter value message to its Go value
// (see [Parameter]): nil for PARAMETER_NOT_SET or an unknown type.
func ParameterValueToGo(pv rcl_interfaces.ParameterValue) any {
	switch ParameterType(pv.Type) {
	case ParameterBool:
		return pv.BoolValue
	case ParameterInteger:
		return pv.IntegerValue
	case ParameterDouble:
		return pv.DoubleValue
	case ParameterString:
		return pv.StringValue
	case ParameterByteArray:
		return nonNil(pv.ByteArrayValue)
	case ParameterBoolArray:
		return nonNil(pv.BoolArrayValue)
	case ParameterIntegerArray:
		return nonNil(pv.IntegerArrayValue)
	case ParameterDoubleArray:
		return nonNil(pv.DoubleArrayValue)
	case ParameterStringArray:
		return nonNil(pv.StringArrayValue)
	}
	return nil
}

// nonNil returns a copy of s, empty rather than nil.
func nonNil[T any](s []T) []T {
	return append(make([]T, 0, len(s)), s...)
}

// cloneValue returns pv with only the field of its type set, copied.
func cloneValue(pv rcl_interfaces.ParameterValue) rcl_interfaces.ParameterValue {
	out, _ := ParameterValueOf(ParameterValueToGo(pv))
	return out
}

// valueFromOverride converts a parsed override.
func valueFromOverride(v names.ParamValue) rcl_interfaces.ParameterValue {
	pv := rcl_interfaces.ParameterValue{Type: uint8(v.Type)}
	switch v.Type {
	case names.ParamBool:
		pv.BoolValue = v.Bool
	case names.ParamInteger:
		pv.IntegerValue = v.Int
	case names.ParamDouble:
		pv.DoubleValue = v.Double
	case names.ParamString:
		pv.StringValue = v.String
	case names.ParamBoolArray:
		pv.BoolArrayValue = slices.Clone(v.Bools)
	case names.ParamIntegerArray:
		pv.IntegerArrayValue = slices.Clone(v.Ints)
	case names.ParamDoubleArray:
		pv.DoubleArrayValue = slices.Clone(v.Doubles)
	case names.ParamStringArray:
		pv.StringArrayValue = slices.Clone(v.Strings)
	}
	return pv
}

// valueString formats a value for messages.
func valueString(pv rcl_interfaces.ParameterValue) string {
	if pv.Type == uint8(ParameterString) {
		return strconv.Quote(pv.StringValue)
	}
	return fmt.Sprint(ParameterValueToGo(pv))
}
