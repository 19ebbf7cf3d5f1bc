//go:build linux

package hosts

import (
	"errors"
	"os"
	"sync"
	"syscall"

	"golang.org/x/sys/unix"
)

// lan is a learning switch: it forwards each frame that arrives on one of
// its ports to the port where its destination address was last seen as a
// source, or floods it to every other port (broadcast, multicast, unknown
// destination).
type lan struct {
	mu    sync.RWMutex
	ports []*port
	where map[[6]byte]*port
}

func newLAN() *lan { return &lan{where: map[[6]byte]*port{}} }

// port is the switch's end of one link: a packet socket on the link's
// switch-side interface, the faults of each direction (up: from the host,
// down: to it) and the goroutine reading the socket.
type port struct {
	lan      *lan
	f        *os.File
	rc       syscall.RawConn
	up, down *pipe
	wg       sync.WaitGroup
}

// addPort starts forwarding through the packet socket f. seed seeds the
// randomness of the port's faults.
func (l *lan) addPort(f *os.File, seed uint64) (*port, error) {
	rc, err := f.SyscallConn()
	if err != nil {
		return nil, err
	}
	p := &port{lan: l, f: f, rc: rc}
	p.up = newPipe(seed, func(b []byte) error { l.forward(p, b); return nil })
	p.down = newPipe(seed+1, p.write)
	l.mu.Lock()
	l.ports = append(l.ports, p)
	l.mu.Unlock()
	p.wg.Add(1)
	go p.read()
	return p, nil
}

// read takes the frames arriving from the host until the socket closes.
func (p *port) read() {
	defer p.wg.Done()
	buf := make([]byte, maxFrame)
	for i := 0; ; i++ {
		n, err := p.f.Read(buf)
		if err != nil {
			if errors.Is(err, os.ErrClosed) {
				return
			}
			continue
		}
		if n < vnetHdrLen+14 {
			continue
		}
		if i%32 == 0 {
			p.countDrops()
		}
		p.up.push(append([]byte(nil), buf[:n]...))
	}
}

// countDrops adds the frames the kernel dropped for want of room in the
// socket's receive buffer to the up direction's overruns.
func (p *port) countDrops() {
	if d := packetDrops(p.f); d > 0 {
		p.up.overrun(d)
	}
}

// write sends one frame to the host. It never waits: a frame the kernel
// cannot take at once (a full cap queue) is dropped, as a switch drops
// what its output queue cannot hold.
func (p *port) write(b []byte) error {
	var werr error
	err := p.rc.Write(func(fd uintptr) bool {
		_, werr = unix.Write(int(fd), b)
		return true
	})
	if err != nil {
		return err
	}
	return werr
}

// close stops the port: its socket, goroutine and pipes.
func (p *port) close() {
	p.f.Close()
	p.wg.Wait()
	p.up.close()
	p.down.close()
}

// forward sends a frame that came from port from (its virtio header, then
// the Ethernet frame) on to its destination port, or floods it.
func (l *lan) forward(from *port, b []byte) {
	dst, src, ok := macs(b)
	if !ok {
		return
	}
	l.mu.RLock()
	known := l.where[src] == from
	l.mu.RUnlock()
	if !known && src[0]&1 == 0 {
		l.mu.Lock()
		l.where[src] = from
		l.mu.Unlock()
	}
	l.mu.RLock()
	defer l.mu.RUnlock()
	if to := l.where[dst]; to != nil && dst[0]&1 == 0 {
		if to != from {
			to.down.push(b)
		}
		return
	}
	first := true
	for _, to := range l.ports {
		if to == from {
			continue
		}
		c := b
		if !first {
			c = append([]byte(nil), b...)
		}
		first = false
		to.down.push(c)
	}
}

// macs returns the destination and source addresses of a frame read with
// its virtio header, and false when it is too short to have them.
func macs(b []byte) (dst, src [6]byte, ok bool) {
	if len(b) < vnetHdrLen+14 {
		return dst, src, false
	}
	e := b[vnetHdrLen:]
	copy(dst[:], e[0:6])
	copy(src[:], e[6:12])
	return dst, src, true
}

// close stops every port.
func (l *lan) close() {
	l.mu.Lock()
	ports := l.ports
	l.ports = nil
	l.mu.Unlock()
	for _, p := range ports {
		p.close()
	}
}
