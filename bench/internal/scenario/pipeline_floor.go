package scenario

// The pipeline's floor: the five nodes of pipeline_node.go with the same
// rates, messages, CDR encoding and data flow, in bare Go. No afor, no
// Zenoh: a time.Ticker per rate, one TCP connection on 127.0.0.1 per
// topic and consumer carrying length-prefixed CDR frames, one reader
// goroutine per connection decoding each frame and handing it to the
// node's loop (a channel where the afor node has a Listen or
// ListenReliable loop, a mutex-guarded latest value where it reads Value).
// What the floor's nodes cost is what the Go runtime and the kernel cost
// for this traffic; the afor pipeline's CPU over the floor's is what afor
// and the Zenoh transport add to it.

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"slices"
	"sync"
	"time"

	"github.com/afor-go/afor/ros/cdr"
	"github.com/afor-go/afor/ros/msgs/geometry_msgs"
	"github.com/afor-go/afor/ros/msgs/nav_msgs"
	"github.com/afor-go/afor/ros/msgs/sensor_msgs"
)

// ErrBadFrame reports a frame of the pipeline floor that is larger than
// [MaxFrame] or whose CDR does not decode.
var ErrBadFrame = errors.New("scenario: bad pipeline floor frame")

// MaxFrame bounds the payload of a pipeline floor frame (the camera's
// image is 900 KB of CDR).
const MaxFrame = 4 << 20

// frameHeader is the size of a frame's prefix: the payload's length, a
// little-endian uint32.
const frameHeader = 4

// reliableQueue is the queue of control's IMU samples: afor's
// ListenReliable default, the oldest dropped when full.
const reliableQueue = 10

// appendFrame appends m's frame to buf[:0]: the length prefix and m's CDR.
func appendFrame(buf []byte, m cdr.Message) ([]byte, error) {
	b, err := m.AppendCDR(append(buf[:0], 0, 0, 0, 0))
	if err != nil {
		return buf[:0], err
	}
	if n := len(b) - frameHeader; n > MaxFrame {
		return b[:0], fmt.Errorf("%w: %d bytes, at most %d", ErrBadFrame, n, MaxFrame)
	}
	binary.LittleEndian.PutUint32(b, uint32(len(b)-frameHeader))
	return b, nil
}

// readFrame reads one frame from r into buf (grown as needed, never past
// MaxFrame) and returns its payload. A length over MaxFrame is an
// ErrBadFrame; a stream ending inside a frame is io.ErrUnexpectedEOF.
func readFrame(r io.Reader, buf []byte) ([]byte, error) {
	buf = slices.Grow(buf[:0], frameHeader)[:frameHeader]
	if _, err := io.ReadFull(r, buf); err != nil {
		return buf[:0], err
	}
	n := binary.LittleEndian.Uint32(buf)
	if n > MaxFrame {
		return buf[:0], fmt.Errorf("%w: %d bytes, at most %d", ErrBadFrame, n, MaxFrame)
	}
	buf = slices.Grow(buf[:0], int(n))[:n]
	if _, err := io.ReadFull(r, buf); err != nil {
		if errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		return buf[:0], err
	}
	return buf, nil
}

// floorNode is a pipeline node of the floor. It listens on 127.0.0.1 for
// the consumers of its topic (every node publishes one) and holds a
// connection to each node it takes input from.
type floorNode struct {
	st     *nodeStats
	ln     net.Listener
	ins    []net.Conn // to the nodes of pipelineInputs, in that order
	failed chan error // a reader's ErrBadFrame (the first one)
	wg     sync.WaitGroup

	mu     sync.Mutex
	outs   []net.Conn // the consumers connected so far
	closed bool

	// The loop's own: its snapshot of outs and its frame buffer.
	sendTo []net.Conn
	buf    []byte
}

// openFloorNode is openZenohNode for the floor: it listens on an
// ephemeral port of 127.0.0.1, connects to cfg.Peers (the endpoints of
// pipelineInputs(cfg.Node), in that order) and starts a reader per
// connection.
func openFloorNode(cfg childConfig, st *nodeStats) (addr string, run func(context.Context) error, closeNode func(), err error) {
	ins := pipelineInputs(cfg.Node)
	if len(cfg.Peers) != len(ins) {
		return "", nil, nil, fmt.Errorf("%w: floor node %s takes %v, given %d endpoints", ErrBadConfig, cfg.Node, ins, len(cfg.Peers))
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, nil, err
	}
	n := &floorNode{st: st, ln: ln, failed: make(chan error, 1)}
	d := net.Dialer{Timeout: childTimeout}
	for _, p := range cfg.Peers {
		c, err := d.Dial("tcp", p)
		if err != nil {
			n.close()
			return "", nil, nil, err
		}
		n.ins = append(n.ins, c)
	}
	if run, err = n.loop(cfg.Node); err != nil {
		n.close()
		return "", nil, nil, err
	}
	n.wg.Add(1)
	go n.accept()
	return ln.Addr().String(), run, n.close, nil
}

// loop starts node's readers and returns its loop.
func (n *floorNode) loop(node string) (func(context.Context) error, error) {
	switch node {
	case NodeCamera:
		img := newImage()
		return func(ctx context.Context) error {
			return n.every(ctx, CameraHz, func() error {
				nextImage(&img)
				return n.send(&img)
			})
		}, nil
	case NodeIMU:
		imu := newIMU()
		return func(ctx context.Context) error {
			return n.every(ctx, IMUHz, func() error {
				imu.Header.Stamp = rosNow()
				return n.send(&imu)
			})
		}, nil
	case NodePerception:
		imgs := make(chan sensor_msgs.Image, 1) // the latest frame: afor's Listen
		var imu latest[sensor_msgs.Imu]
		input(n, 0, cdr.Codec[sensor_msgs.Image]().Decode, func(img sensor_msgs.Image) { offer(imgs, img) })
		input(n, 1, cdr.Codec[sensor_msgs.Imu]().Decode, imu.set)
		return func(ctx context.Context) error {
			return each(ctx, n, imgs, func(img sensor_msgs.Image) error {
				n.st.recv(img.Header.Stamp)
				sample := imu.get()
				pose := perceive(&img, &sample)
				return n.send(&pose)
			})
		}, nil
	case NodePlanning:
		var goal latest[geometry_msgs.PoseStamped]
		input(n, 0, cdr.Codec[geometry_msgs.PoseStamped]().Decode, func(p geometry_msgs.PoseStamped) {
			n.st.count() // in the reader, as afor's OnInput
			goal.set(p)
		})
		path := newPath()
		return func(ctx context.Context) error {
			return n.every(ctx, PlanningHz, func() error {
				g := goal.get()
				planPath(&path, &g)
				return n.send(&path)
			})
		}, nil
	case NodeControl:
		imus := make(chan sensor_msgs.Imu, reliableQueue) // every sample: afor's ListenReliable
		var plan latest[nav_msgs.Path]
		input(n, 0, cdr.Codec[sensor_msgs.Imu]().Decode, func(imu sensor_msgs.Imu) { offer(imus, imu) })
		input(n, 1, cdr.Codec[nav_msgs.Path]().Decode, plan.set)
		return func(ctx context.Context) error {
			return each(ctx, n, imus, func(imu sensor_msgs.Imu) error {
				n.st.recv(imu.Header.Stamp)
				p := plan.get()
				cmd := steer(&imu, &p)
				return n.send(&cmd)
			})
		}, nil
	}
	return nil, fmt.Errorf("%w: pipeline node %q", ErrBadConfig, node)
}

// every runs body at hz on a time.Ticker (a slow body skips ticks) until
// ctx ends or a reader fails.
func (n *floorNode) every(ctx context.Context, hz float64, body func() error) error {
	t := time.NewTicker(time.Duration(float64(time.Second) / hz))
	defer t.Stop()
	for {
		select {
		case <-t.C:
			if err := body(); err != nil {
				return err
			}
		case err := <-n.failed:
			return err
		case <-ctx.Done():
			return nil
		}
	}
}

// each runs body on every value handed over on ch until ctx ends or a
// reader fails.
func each[T any](ctx context.Context, n *floorNode, ch <-chan T, body func(T) error) error {
	for {
		select {
		case v := <-ch:
			if err := body(v); err != nil {
				return err
			}
		case err := <-n.failed:
			return err
		case <-ctx.Done():
			return nil
		}
	}
}

// send encodes m and writes its frame to every consumer, in the loop's
// goroutine (as a Zenoh publisher does on an idle link). A consumer whose
// connection fails is forgotten, as Zenoh forgets a closed link.
func (n *floorNode) send(m cdr.Message) (err error) {
	if n.buf, err = appendFrame(n.buf, m); err != nil {
		return err
	}
	n.mu.Lock()
	n.sendTo = append(n.sendTo[:0], n.outs...)
	n.mu.Unlock()
	for _, c := range n.sendTo {
		if _, err := c.Write(n.buf); err != nil {
			n.drop(c)
		}
	}
	n.st.pub()
	return nil
}

// input starts the reader goroutine of input i: it decodes every frame and
// hands the value to deliver, which must not block. A bad frame fails the
// node; the connection's end (its producer stopped, or close) ends the
// reader only.
func input[T any](n *floorNode, i int, decode func([]byte) (T, error), deliver func(T)) {
	n.wg.Add(1)
	go func() {
		defer n.wg.Done()
		r := bufio.NewReaderSize(n.ins[i], 64<<10)
		var buf []byte
		for {
			var err error
			if buf, err = readFrame(r, buf); err != nil {
				if errors.Is(err, ErrBadFrame) {
					n.fail(err)
				}
				return
			}
			v, err := decode(buf)
			if err != nil {
				n.fail(fmt.Errorf("%w: %v", ErrBadFrame, err))
				return
			}
			deliver(v)
		}
	}()
}

func (n *floorNode) fail(err error) {
	select {
	case n.failed <- err:
	default: // the first failure is reported
	}
}

// accept adds every consumer that connects to the node's outputs.
func (n *floorNode) accept() {
	defer n.wg.Done()
	for {
		c, err := n.ln.Accept()
		if err != nil {
			return // closed
		}
		n.mu.Lock()
		if n.closed {
			_ = c.Close()
		} else {
			n.outs = append(n.outs, c)
		}
		n.mu.Unlock()
	}
}

func (n *floorNode) drop(c net.Conn) {
	_ = c.Close()
	n.mu.Lock()
	n.outs = slices.DeleteFunc(n.outs, func(o net.Conn) bool { return o == c })
	n.mu.Unlock()
}

// close closes every connection and the listener and waits for the
// readers and the accepting goroutine.
func (n *floorNode) close() {
	_ = n.ln.Close()
	n.mu.Lock()
	n.closed = true
	for _, c := range n.outs {
		_ = c.Close()
	}
	n.mu.Unlock()
	for _, c := range n.ins {
		_ = c.Close()
	}
	n.wg.Wait()
}

// latest holds an input's newest value, as afor's Sub.Value.
type latest[T any] struct {
	mu sync.Mutex
	v  T
}

func (l *latest[T]) set(v T) {
	l.mu.Lock()
	l.v = v
	l.mu.Unlock()
}

func (l *latest[T]) get() T {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.v
}

// offer hands v to a loop without blocking; when ch is full its oldest
// value makes room (capacity 1: the latest value, as afor's Listen;
// capacity reliableQueue: afor's ListenReliable). One goroutine only may
// send on ch.
func offer[T any](ch chan T, v T) {
	for {
		select {
		case ch <- v:
			return
		default:
		}
		select {
		case <-ch:
		default:
		}
	}
}
