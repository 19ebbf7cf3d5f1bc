package scenario

import (
	"bytes"
	"errors"
	"testing"

	"github.com/afor-go/afor/ros/cdr"
	"github.com/afor-go/afor/ros/idl"
	"github.com/afor-go/afor/ros/interfaces"
	"github.com/afor-go/afor/ros/msgs/std_msgs"
)

// A Msg is the CDR of the generated std_msgs.UInt8MultiArray whose data is
// the Msg's wire form, both ways.
func TestMsgIsUInt8MultiArray(t *testing.T) {
	var gen std_msgs.UInt8MultiArray
	if (*Msg)(nil).TypeName() != gen.TypeName() || (*Msg)(nil).DDSTypeName() != gen.DDSTypeName() || (*Msg)(nil).TypeHash() != gen.TypeHash() {
		t.Fatal("Msg's type is not std_msgs/msg/UInt8MultiArray")
	}
	m := Msg{Seq: 7, Stamp: -3, Body: make([]byte, 300)}
	got, err := m.AppendCDR(nil)
	if err != nil {
		t.Fatal(err)
	}
	gen.Data = AppendMsg(nil, m, HeaderSize+len(m.Body))
	want, err := cdr.Marshal(&gen)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("Msg CDR\n%x\nwant\n%x", got, want)
	}
	var back Msg
	if err := back.UnmarshalCDR(want); err != nil || back.Seq != 7 || back.Stamp != -3 || back.Body != nil {
		t.Fatalf("decoded %+v, %v", back, err)
	}
	// Too short for a header, or with a layout: errors, no panic.
	gen.Data = gen.Data[:HeaderSize-1]
	short, _ := cdr.Marshal(&gen)
	if err := back.UnmarshalCDR(short); !errors.Is(err, ErrShortMessage) {
		t.Errorf("short data: %v", err)
	}
	gen.Data = AppendMsg(nil, m, 64)
	gen.Layout.Dim = []std_msgs.MultiArrayDimension{{Label: "x", Size: 1, Stride: 1}}
	withDim, _ := cdr.Marshal(&gen)
	if err := back.UnmarshalCDR(withDim); !errors.Is(err, ErrUnexpected) {
		t.Errorf("layout with a dimension: %v", err)
	}
	for i := range want {
		_ = back.UnmarshalCDR(want[:i]) // truncated: an error, never a panic
	}
}

// The request scenario's service type has the hash its definition gives.
func TestEchoServiceHash(t *testing.T) {
	r := idl.NewRegistry()
	if err := interfaces.Load(r); err != nil {
		t.Fatal(err)
	}
	if err := r.AddFile("afor_bench", "srv/Echo.srv", []byte(echoServiceDef)); err != nil {
		t.Fatal(err)
	}
	h, err := r.TypeHash("afor_bench/srv/Echo")
	if err != nil {
		t.Fatal(err)
	}
	if h != echoServiceHash {
		t.Errorf("hash %s, want %s", h, echoServiceHash)
	}
}
