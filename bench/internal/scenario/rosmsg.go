package scenario

import (
	"fmt"

	"github.com/afor-go/afor/ros/cdr"
)

// Over ROS 2, a Msg travels as a std_msgs/msg/UInt8MultiArray: an empty
// layout and, as data, the bytes the byte transports carry (its header and
// padding up to the size). The methods below make *Msg a ROS message of
// that type (same type name, hash and CDR bytes as the generated
// std_msgs.UInt8MultiArray), so that ros.Subscribe gives an afor.Sub[Msg]
// without a conversion step, and decode only the header, as the byte
// transports' codec does.

// TypeName returns "std_msgs/msg/UInt8MultiArray".
func (*Msg) TypeName() string { return "std_msgs/msg/UInt8MultiArray" }

// DDSTypeName returns "std_msgs::msg::dds_::UInt8MultiArray_".
func (*Msg) DDSTypeName() string { return "std_msgs::msg::dds_::UInt8MultiArray_" }

// TypeHash returns the RIHS01 hash of std_msgs/msg/UInt8MultiArray.
func (*Msg) TypeHash() string {
	return "RIHS01_5687e861b8d307a5e48b7515467ae7a5fc2daf805bd0ce6d8e9e604bade9f385"
}

// AppendCDR appends m's CDR payload to dst: its header and Body as the
// data of a UInt8MultiArray.
func (m *Msg) AppendCDR(dst []byte) ([]byte, error) {
	e := cdr.NewEncoder(dst)
	m.EncodeCDR(&e)
	return e.Finish()
}

// UnmarshalCDR reads m's header from a UInt8MultiArray payload; Body is
// left nil.
func (m *Msg) UnmarshalCDR(data []byte) error {
	d, err := cdr.NewDecoder(data)
	if err != nil {
		return err
	}
	m.DecodeCDR(&d)
	return d.Finish("std_msgs/msg/UInt8MultiArray")
}

// EncodeCDR writes m as the members of a UInt8MultiArray.
func (m *Msg) EncodeCDR(e *cdr.Encoder) {
	e.Length(0, 0) // layout.dim: none
	e.Uint32(0)    // layout.data_offset
	var hdr [HeaderSize]byte
	putHeader(hdr[:], *m)
	e.Length(HeaderSize+len(m.Body), 0)
	cdr.AppendArray(e, hdr[:])
	cdr.AppendArray(e, m.Body)
}

// DecodeCDR reads the members of a UInt8MultiArray: a layout without
// dimensions, then data starting with a Msg header.
func (m *Msg) DecodeCDR(d *cdr.Decoder) {
	if dims := d.Length(12, 0); dims != 0 {
		d.Fail(fmt.Errorf("%w: a bench message has no layout dimensions, got %d", ErrUnexpected, dims))
		return
	}
	d.Uint32() // data_offset
	n := d.Length(1, 0)
	if d.Err() == nil && n < HeaderSize {
		d.Fail(fmt.Errorf("%w: %d bytes", ErrShortMessage, n))
		return
	}
	var hdr [HeaderSize]byte
	cdr.DecodeArray(d, hdr[:])
	var skip [256]byte // the padding, read and dropped
	for left := n - HeaderSize; left > 0 && d.Err() == nil; left -= len(skip) {
		cdr.DecodeArray(d, skip[:min(left, len(skip))])
	}
	if d.Err() != nil {
		return
	}
	h, _ := DecodeMsg(hdr[:])
	m.Seq, m.Stamp, m.Body = h.Seq, h.Stamp, nil
}

// echoService is the ROS 2 service type of the request scenario,
// "afor_bench/srv/Echo": a request and a response that are each a
// std_msgs/UInt8MultiArray named msg, so that their CDR is a Msg's (see
// TestEchoServiceHash for its definition and hash).
type echoService struct{}

// TypeName returns "afor_bench/srv/Echo".
func (echoService) TypeName() string { return "afor_bench/srv/Echo" }

// DDSTypeName returns "afor_bench::srv::dds_::Echo_".
func (echoService) DDSTypeName() string { return "afor_bench::srv::dds_::Echo_" }

// TypeHash returns the RIHS01 hash of afor_bench/srv/Echo.
func (echoService) TypeHash() string { return echoServiceHash }

// RequestCodec returns the codec of the requests, Msg.
func (echoService) RequestCodec() cdr.MessageCodec[Msg, *Msg] { return cdr.Codec[Msg]() }

// ResponseCodec returns the codec of the responses, Msg.
func (echoService) ResponseCodec() cdr.MessageCodec[Msg, *Msg] { return cdr.Codec[Msg]() }

// echoServiceDef is afor_bench/srv/Echo's definition.
const echoServiceDef = "std_msgs/UInt8MultiArray msg\n---\nstd_msgs/UInt8MultiArray msg\n"

// echoServiceHash is the RIHS01 hash of echoServiceDef.
const echoServiceHash = "RIHS01_b31bbb136f9edf762ca63eac634f0e266b0bfce903f2cbf88de2b6a7bb78f0da"
