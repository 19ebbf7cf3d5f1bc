package dynmsg

import (
	"github.com/afor-go/afor/ros/cdr"
	"github.com/afor-go/afor/ros/idl"
)

// Decode decodes a CDR payload (with its 4-byte encapsulation header, either
// byte order) into a new message. Bad input is an error wrapping the errors
// of package cdr (cdr.ErrTruncated, cdr.ErrInvalid, cdr.ErrBoundExceeded),
// never a panic. Every sequence length read off the wire is checked against
// the bytes that remain before anything is allocated for it, so the memory a
// payload can make Decode allocate is bounded by a constant multiple of its
// size. Bytes after the last member are ignored, as in package cdr.
func (t *Type) Decode(data []byte) (Message, error) {
	d, err := cdr.NewDecoder(data)
	if err != nil {
		return nil, err
	}
	m := t.msg.decode(&d)
	if err := d.Finish(t.name); err != nil {
		return nil, err
	}
	return m, nil
}

func (mt *msgType) decode(d *cdr.Decoder) Message {
	if len(mt.fields) == 0 {
		d.Uint8() // structure_needs_at_least_one_member
		return Message{}
	}
	m := make(Message, len(mt.fields))
	for i := range mt.fields {
		f := &mt.fields[i]
		if d.Err() != nil {
			break
		}
		m[f.name] = f.decode(d)
	}
	return m
}

// decode reads the value of f.
func (f *field) decode(d *cdr.Decoder) any {
	switch f.array {
	case notArray:
		return decodeScalar(d, f.kind, f.sbound, f.nested)
	case fixedArray:
		return f.decodeElems(d, f.size)
	}
	min := f.kind.Size()
	switch {
	case f.kind == idl.Nested:
		min = f.nested.minSize
	case f.kind.IsString():
		min = 4
	}
	// Bulk kinds read their own length.
	switch f.kind {
	case idl.Bool:
		return nonNil(cdr.DecodeBoolSequence(d, nil, f.bound()))
	case idl.Byte, idl.Char, idl.Uint8:
		return nonNil(cdr.DecodeSequence[uint8](d, nil, f.bound()))
	case idl.Int8:
		return nonNil(cdr.DecodeSequence[int8](d, nil, f.bound()))
	case idl.Int16:
		return nonNil(cdr.DecodeSequence[int16](d, nil, f.bound()))
	case idl.Uint16:
		return nonNil(cdr.DecodeSequence[uint16](d, nil, f.bound()))
	case idl.Int32:
		return nonNil(cdr.DecodeSequence[int32](d, nil, f.bound()))
	case idl.Uint32:
		return nonNil(cdr.DecodeSequence[uint32](d, nil, f.bound()))
	case idl.Int64:
		return nonNil(cdr.DecodeSequence[int64](d, nil, f.bound()))
	case idl.Uint64:
		return nonNil(cdr.DecodeSequence[uint64](d, nil, f.bound()))
	case idl.Float32:
		return nonNil(cdr.DecodeSequence[float32](d, nil, f.bound()))
	case idl.Float64:
		return nonNil(cdr.DecodeSequence[float64](d, nil, f.bound()))
	}
	n := d.Length(min, f.bound())
	return f.decodeElems(d, n)
}

// decodeElems reads n elements of f with no count in front: a fixed array,
// or the body of a sequence whose length was checked already.
func (f *field) decodeElems(d *cdr.Decoder, n int) any {
	switch f.kind {
	case idl.Bool:
		s := make([]bool, n)
		cdr.DecodeBools(d, s)
		return s
	case idl.Byte, idl.Char, idl.Uint8:
		return decodeArray[uint8](d, n)
	case idl.Int8:
		return decodeArray[int8](d, n)
	case idl.Int16:
		return decodeArray[int16](d, n)
	case idl.Uint16:
		return decodeArray[uint16](d, n)
	case idl.Int32:
		return decodeArray[int32](d, n)
	case idl.Uint32:
		return decodeArray[uint32](d, n)
	case idl.Int64:
		return decodeArray[int64](d, n)
	case idl.Uint64:
		return decodeArray[uint64](d, n)
	case idl.Float32:
		return decodeArray[float32](d, n)
	case idl.Float64:
		return decodeArray[float64](d, n)
	case idl.String, idl.WString:
		s := make([]string, n)
		for i := range s {
			if d.Err() != nil {
				break
			}
			s[i] = decodeScalar(d, f.kind, f.sbound, nil).(string)
		}
		return s
	case idl.Nested:
		s := make([]Message, n)
		for i := range s {
			if d.Err() != nil {
				s[i] = Message{}
				continue
			}
			s[i] = f.nested.decode(d)
		}
		return s
	}
	return nil
}

func decodeArray[T cdr.Number](d *cdr.Decoder, n int) []T {
	s := make([]T, n)
	cdr.DecodeArray(d, s)
	return s
}

// decodeScalar reads one value of kind k.
func decodeScalar(d *cdr.Decoder, k idl.Kind, sbound int, nested *msgType) any {
	switch k {
	case idl.Bool:
		return d.Bool()
	case idl.Byte, idl.Char, idl.Uint8:
		return d.Uint8()
	case idl.Int8:
		return d.Int8()
	case idl.Int16:
		return d.Int16()
	case idl.Uint16:
		return d.Uint16()
	case idl.Int32:
		return d.Int32()
	case idl.Uint32:
		return d.Uint32()
	case idl.Int64:
		return d.Int64()
	case idl.Uint64:
		return d.Uint64()
	case idl.Float32:
		return d.Float32()
	case idl.Float64:
		return d.Float64()
	case idl.String:
		return d.BoundedString(sbound)
	case idl.WString:
		return d.BoundedWString(sbound)
	case idl.Nested:
		return nested.decode(d)
	}
	return nil
}

// nonNil returns s, or an empty slice for nil, so that empty sequences
// decode as Zero has them.
func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
