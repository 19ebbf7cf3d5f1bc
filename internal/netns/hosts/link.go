//go:build linux

package hosts

import (
	"fmt"
	"net/netip"
	"regexp"
	"strconv"
	"sync"
	"time"
)

// Link is the cable between a host's interface and its network's switch.
// Up is the direction from the host, down the direction to it.
type Link struct {
	// Host is the host whose interface this is.
	Host *Host
	// Name is the interface's name on the host: eth0, eth1...
	Name string
	// Network is the network the link joins.
	Network *Network

	sw    string // the switch-side interface
	first bool   // the host's first interface: the multicast route's
	port  *port

	mu         sync.Mutex
	addr       netip.Addr
	isDown     bool
	up, down   Faults
	rateUp     [2]int64 // rate and queue (ns) applied by tc, per end
	rateDown   [2]int64
	tcBaseline [2]uint64 // drops of tbf qdiscs replaced since, up and down
}

// Addr returns the interface's address.
func (lk *Link) Addr() netip.Addr {
	lk.mu.Lock()
	defer lk.mu.Unlock()
	return lk.addr
}

// SetFaults sets the faults of both directions.
func (lk *Link) SetFaults(f Faults) { lk.SetFaultsEach(f, f) }

// SetFaultsEach sets the faults from the host (up) and to it (down).
func (lk *Link) SetFaultsEach(up, down Faults) {
	l := lk.Host.lab
	l.t.Helper()
	lk.mu.Lock()
	defer lk.mu.Unlock()
	if err := lk.applyRate(0, up); err != nil {
		l.t.Fatal(err)
	}
	if err := lk.applyRate(1, down); err != nil {
		l.t.Fatal(err)
	}
	lk.up, lk.down = up, down
	lk.port.up.set(up)
	lk.port.down.set(down)
}

// Cut breaks the link (both directions) or, with false, mends it,
// keeping its other faults.
func (lk *Link) Cut(cut bool) {
	lk.mu.Lock()
	up, down := lk.up, lk.down
	lk.mu.Unlock()
	up.Cut, down.Cut = cut, cut
	lk.SetFaultsEach(up, down)
}

// applyRate sets the tbf qdisc of one end (0: the host's interface, for
// the up direction; 1: the switch's, for down) to f's rate, or removes
// it. Call with lk.mu held.
func (lk *Link) applyRate(end int, f Faults) error {
	l := lk.Host.lab
	h, dev, cur := lk.Host.holder, lk.Name, &lk.rateUp
	if end == 1 {
		h, dev, cur = l.sw, lk.sw, &lk.rateDown
	}
	queue := f.Queue
	if queue <= 0 {
		queue = 100 * time.Millisecond
	}
	want := [2]int64{f.Rate, int64(queue)}
	if f.Rate <= 0 {
		want = [2]int64{}
	}
	if want == *cur {
		return nil
	}
	if cur[0] > 0 {
		lk.tcBaseline[end] += lk.tbfDropsLocked(end)
	}
	var err error
	if f.Rate <= 0 {
		_, err = l.output(h, l.tc, "qdisc", "del", "dev", dev, "root")
	} else {
		// The bucket holds 10 ms of traffic, at least a few full frames;
		// the queue holds Queue's worth, at least the bucket.
		burst := max(f.Rate/8/100, 4*1514)
		limit := max(f.Rate/8*int64(queue)/int64(time.Second), burst)
		_, err = l.output(h, l.tc, "qdisc", "replace", "dev", dev, "root", "tbf",
			"rate", strconv.FormatInt(f.Rate, 10)+"bit", "burst", strconv.FormatInt(burst, 10),
			"limit", strconv.FormatInt(limit, 10))
	}
	if err != nil {
		return err
	}
	*cur = want
	return nil
}

// droppedRE finds the drop count in tc -s qdisc output.
var droppedRE = regexp.MustCompile(`dropped (\d+)`)

// tbfDropsLocked reads the drops of one end's tbf qdisc.
func (lk *Link) tbfDropsLocked(end int) uint64 {
	l := lk.Host.lab
	h, dev := lk.Host.holder, lk.Name
	if end == 1 {
		h, dev = l.sw, lk.sw
	}
	out, err := l.output(h, l.tc, "-s", "qdisc", "show", "dev", dev)
	if err != nil {
		return 0
	}
	m := droppedRE.FindStringSubmatch(out)
	if m == nil {
		return 0
	}
	n, _ := strconv.ParseUint(m[1], 10, 64)
	return n
}

// Stats returns what the link did so far to the frames from the host
// (up) and to it (down), the drops of its rate caps included (as
// overruns).
func (lk *Link) Stats() (up, down Stats) {
	lk.port.countDrops()
	up, down = lk.port.up.stats(), lk.port.down.stats()
	lk.mu.Lock()
	defer lk.mu.Unlock()
	var tbf [2]uint64
	for end, r := range [2][2]int64{lk.rateUp, lk.rateDown} {
		tbf[end] = lk.tcBaseline[end]
		if r[0] > 0 {
			tbf[end] += lk.tbfDropsLocked(end)
		}
	}
	up.Overrun += tbf[0]
	down.Overrun += tbf[1]
	return up, down
}

// SetDown takes the host's interface down (the host sees it go down, as
// when a cable is unplugged or a Wi-Fi association ends) or, with false,
// up again, with its address and routes back.
func (lk *Link) SetDown(down bool) {
	h := lk.Host
	state := "up"
	if down {
		state = "down"
	}
	h.IP("link", "set", lk.Name, state)
	lk.mu.Lock()
	lk.isDown = down
	lk.mu.Unlock()
	if !down && lk.first {
		h.IP("route", "replace", "224.0.0.0/4", "dev", lk.Name)
	}
}

// SetAddr moves the interface to another address of its network, as a
// host given a new DHCP lease: the old address goes, the new one comes
// (with the multicast route, on the first interface, unless it is down:
// SetDown brings it back then).
func (lk *Link) SetAddr(a netip.Addr) {
	h := lk.Host
	if !lk.Network.Prefix.Contains(a) {
		h.lab.t.Fatalf("hosts: %v is not in %s (%v)", a, lk.Network.Name, lk.Network.Prefix)
	}
	lk.mu.Lock()
	old, down := lk.addr, lk.isDown
	lk.addr = a
	lk.mu.Unlock()
	bits := lk.Network.Prefix.Bits()
	// The old address first: deleting a primary address deletes the
	// secondary ones of its subnet.
	h.IP("addr", "del", netip.PrefixFrom(old, bits).String(), "dev", lk.Name)
	h.IP("addr", "add", netip.PrefixFrom(a, bits).String(), "dev", lk.Name)
	if lk.first && !down {
		h.IP("route", "replace", "224.0.0.0/4", "dev", lk.Name)
	}
}

// String names the link: "robot/eth0".
func (lk *Link) String() string { return fmt.Sprintf("%s/%s", lk.Host.Name, lk.Name) }
