package afor

import (
	"encoding/json"
	"slices"
)

// Codec turns values of T into bytes and back, for transports that carry
// bytes (Zenoh, ROS 2). Append encodes v after dst, so a publisher can reuse
// one buffer. Decode must not keep data: transports reuse it after Decode
// returns.
type Codec[T any] interface {
	Append(dst []byte, v T) ([]byte, error)
	Decode(data []byte) (T, error)
}

// BytesCodec passes payloads through; Decode returns a copy.
type BytesCodec struct{}

// Append appends v to dst.
func (BytesCodec) Append(dst []byte, v []byte) ([]byte, error) { return append(dst, v...), nil }

// Decode returns a copy of data.
func (BytesCodec) Decode(data []byte) ([]byte, error) { return slices.Clone(data), nil }

// StringCodec carries strings as their UTF-8 bytes.
type StringCodec struct{}

// Append appends v to dst.
func (StringCodec) Append(dst []byte, v string) ([]byte, error) { return append(dst, v...), nil }

// Decode returns data as a string.
func (StringCodec) Decode(data []byte) (string, error) { return string(data), nil }

// JSONCodec carries values as JSON (encoding/json).
type JSONCodec[T any] struct{}

// Append appends the JSON encoding of v to dst.
func (JSONCodec[T]) Append(dst []byte, v T) ([]byte, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return dst, err
	}
	return append(dst, b...), nil
}

// Decode parses data as JSON into a T.
func (JSONCodec[T]) Decode(data []byte) (T, error) {
	var v T
	err := json.Unmarshal(data, &v)
	return v, err
}
