package dds

import "github.com/afor-go/afor/transport/dds/internal/rtps"

// Acknowledgments to user writers arrive on a socket of their own.
//
// A reader's callback runs in the goroutine that reads the participant's
// user socket, and it may write: a reply, an echo, an acknowledgment of
// its own. When that Write is to a reliable KEEP_ALL writer whose history
// is full, it waits for the remote readers' ACKNACKs. Were they sent to
// the user socket, they would queue behind the datagram whose callback is
// waiting, unread, until MaxBlocking ran out and the sample was lost to
// ErrTimeout. So every user writer announces, as its unicast locator in
// SEDP, an acknowledgment socket on an ephemeral port (standard
// endpoint-level locators, which Fast DDS and Cyclone honour as this
// package does): the readers' ACKNACKs and NACK_FRAGs are read there by a
// goroutine that never runs a user callback, and free the history while
// the callback waits. Samples keep coming to the user socket (readers
// announce no locator of their own), and the builtin SEDP writers keep the
// metatraffic socket.

// ackLocators returns the unicast locators a user writer announces.
func (p *Participant) ackLocators() []rtps.Locator { return p.netView().acks }
