package wire

import (
	"fmt"
	"time"
)

func ExampleDecoder() {
	// A batch as zenoh-pico sends it: a reliable FRAME holding a PUSH of a
	// PUT on a key declared earlier as expression 1.
	batch := []byte{0x25, 0x01, 0x5d, 0x01, 0x01, 0x05, 'h', 'e', 'l', 'l', 'o'}
	d := NewDecoder(Limits{})
	d.Reset(batch)
	for {
		m, err := d.Next()
		if err != nil {
			break // io.EOF at the end of the batch
		}
		if f, ok := m.(*Frame); ok {
			fmt.Println("frame sn", f.SN, "reliable", f.Reliable)
			for {
				nm, err := d.NextNetwork()
				if err != nil {
					break
				}
				if p, ok := nm.(*Push); ok {
					put := p.Body.(*Put)
					fmt.Printf("push scope %d payload %q\n", p.WireExpr.Scope, put.Payload)
				}
			}
		}
	}
	// Output:
	// frame sn 1 reliable true
	// push scope 1 payload "hello"
}

func ExamplePush_AppendBinary() {
	push := &Push{
		WireExpr: WireExpr{Suffix: []byte("demo/example")},
		Body:     &Put{Payload: []byte("hi")},
	}
	batch := AppendFrameHeader(nil, true, 7)
	batch, err := push.AppendBinary(batch)
	if err != nil {
		panic(err)
	}
	framed, _ := AppendBatchLen(nil, len(batch))
	fmt.Printf("% x | % x\n", framed, batch)
	// Output:
	// 15 00 | 25 07 3d 00 0c 64 65 6d 6f 2f 65 78 61 6d 70 6c 65 01 02 68 69
}

func ExampleAppendZint() {
	b := AppendZint(nil, 10000)
	v, n, err := ReadZint(b)
	fmt.Printf("% x -> %d (%d bytes, %v)\n", b, v, n, err)
	// Output:
	// 90 4e -> 10000 (2 bytes, <nil>)
}

func ExampleDecodeTransport() {
	// The OPEN syn zenoh-pico sends: lease 10 s, initial SN 0, empty cookie.
	m, n, err := DecodeTransport([]byte{0x42, 0x0a, 0x00, 0x00}, Limits{})
	if err != nil {
		panic(err)
	}
	open := m.(*Open)
	fmt.Println(n, open.Ack, open.Lease == 10*time.Second, open.InitialSN, len(open.Cookie))
	// Output:
	// 4 false true 0 0
}
