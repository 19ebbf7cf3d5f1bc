// Package hosts simulates, for tests, a few machines on a few networks:
// each host is a network namespace of its own (with its own /dev/shm and
// /etc/machine-id, so that middleware which looks for peers on the same
// machine does not find them there), with one interface per network it
// is on, an address on each and a multicast route through the first; the
// networks are LANs joined by a switch that runs in the test process.
// Programs run on a host as separate processes: Python peers, or the test
// binary itself re-executed in a role (see [Main]).
//
//	lab := hosts.New(t)
//	lan, wifi := lab.Network("lan"), lab.Network("wifi")
//	robot := lab.Host("robot", lan, wifi) // eth0 on lan, eth1 on wifi
//	base := lab.Host("base", wifi)
//	robot.Link("eth1").SetFaults(hosts.Faults{Loss: 0.05, Delay: 2 * time.Millisecond})
//	talker := robot.StartRole(t, "talker", "-count", "100")
//	ev := talker.Expect(t, "ready", 10*time.Second)
//
// The switch forwards Ethernet frames between the interfaces of a LAN
// (learning where each address is, flooding broadcast, multicast and
// unknown destinations) through a packet socket per interface. Every link
// (the cable between a host's interface and the switch) can lose,
// duplicate, reorder and delay frames, each direction on its own, or be
// cut; the switch does that itself, in user space, because the kernels
// this runs on have no netem, and its nftables and NFQUEUE support cannot
// be counted on (a kernel built without nft_queue, a CI container without
// the nft tool): packet sockets and veth pairs are all it needs, and it
// counts exactly what it did to every frame. A bandwidth cap is the
// kernel's tbf queueing discipline on each end of the link (tc), which
// paces and drops as a saturated link does and pushes back on the sender.
//
// Loss and the rest apply to frames: a UDP datagram larger than the MTU
// (1500) travels as several IP fragments and is lost when any is, as on
// a real Ethernet or Wi-Fi link, and a TCP segment the kernel sends as one
// large frame (segmentation offload) counts as one frame.
//
// # Requirements
//
// Linux, user namespaces, and the tools ip, tc (iproute2) and nsenter
// (util-linux). The package's tests run as root of a user and network
// namespace ([netns.Exec], which [Main] calls); the hosts and the switch
// are network namespaces made inside it, so nothing touches the machine's
// own interfaces. Where that is impossible [New] skips the test, or fails
// it in CI (the CI environment variable set).
package hosts
