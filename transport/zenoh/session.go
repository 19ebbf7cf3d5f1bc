package zenoh

import (
	"bytes"
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/afor-go/afor/transport/zenoh/internal/wire"
)

// Session is a Zenoh node: its links to other nodes, its subscribers and
// its routing table. All methods are safe for concurrent use.
type Session struct {
	cfg *resolved
	log *slog.Logger

	ctx    context.Context // ends when the session closes
	cancel context.CancelFunc
	wg     sync.WaitGroup

	listeners []netListener

	mu      sync.Mutex
	closed  bool
	links   map[*link]struct{}
	entries map[uint32]*subEntry  // every known subscription, by session id
	qabls   map[uint32]*qablEntry // every known queryable, by session id
	gets    map[uint32]*getState  // queries in flight, by request id
	tokens  map[uint32]*tokEntry  // every known liveliness token
	lsubs   map[uint32]*LivelinessSubscriber
	livQs   map[uint32]*livQuery // LivelinessGets awaiting peers, by interest id (liveliness_get.go)
	nextIID uint32               // the last interest id a LivelinessGet used
	// livQueue holds liveliness events for flushLiveliness, which
	// delivers them under livDeliver.
	livQueue   []livEvent
	livDeliver sync.Mutex

	bufs    sync.Pool // *encBuf for encoding queries and replies
	nextID  uint32
	nextQID uint32
	changed chan struct{} // closed and replaced when the routing table changes

	table atomic.Pointer[table] // the links; see routing.go
	rt    routeState            // the subscriptions' change log; see routing.go
	local localDecls            // local queryables and tokens; see routing_visible.go

	gossip *gossiper // nil when gossip is off

	stats statsCounters // see Stats
	// reassembly counts the bytes of the messages the links are
	// reassembling (a copy of defrag.inUse); defrag counts them and the
	// buffers kept between messages (reassembly.go).
	reassembly atomic.Int64
	defrag     defragStore
	// adm counts the inbound handshakes in progress (admission.go).
	adm admission
	// aliasHeld counts the memory of the links' aliases (aliases.go).
	aliasMu   sync.Mutex
	aliasHeld int
	// txHeld counts what the links hold to send (queue_limits.go).
	txHeld atomic.Int64
	// relay counts the declarations relayed for links (routing_relay.go).
	relay relayTable
	// pend counts the requests from remote nodes in progress
	// (query_limits.go).
	pend pendingQueries
}

// Open starts a session: it listens on cfg.Listen and dials cfg.Connect,
// waiting (within ctx) for the first attempt on each Connect endpoint, or
// for cfg.ConnectTimeout. In client mode it fails with ErrNoRouter if none
// of them could be reached; with cfg.ConnectExitOnFailure it fails with
// ErrConnectFailed if any could not. Otherwise it logs a warning for each
// endpoint it could not link and keeps dialling it in the background.
func Open(ctx context.Context, cfg Config) (*Session, error) {
	rc, err := cfg.resolve()
	if err != nil {
		return nil, err
	}
	s := &Session{
		cfg:     rc,
		log:     rc.Logger,
		links:   make(map[*link]struct{}),
		entries: make(map[uint32]*subEntry),
		qabls:   make(map[uint32]*qablEntry),
		gets:    make(map[uint32]*getState),
		tokens:  make(map[uint32]*tokEntry),
		lsubs:   make(map[uint32]*LivelinessSubscriber),
		changed: make(chan struct{}),
		gossip:  rc.gossip,
	}
	s.ctx, s.cancel = context.WithCancel(context.Background())
	s.table.Store(&table{})
	for _, ep := range rc.listen {
		ln, err := s.listen(ctx, ep)
		if err != nil {
			s.Close()
			return nil, fmt.Errorf("zenoh: listen on %s: %w", ep, err)
		}
		s.listeners = append(s.listeners, ln)
		s.wg.Add(1)
		go s.acceptLoop(ln)
	}
	firsts := make(chan error, len(rc.connect))
	deadline := time.Now().Add(rc.ConnectTimeout)
	for _, ep := range rc.connect {
		s.dial(ep, firsts, deadline)
	}
	var errs []error
	for range rc.connect {
		select {
		case err := <-firsts:
			if err != nil {
				errs = append(errs, err)
			}
		case <-ctx.Done():
			s.Close()
			return nil, ctx.Err()
		}
	}
	if rc.Mode == ModeClient && len(rc.connect) > 0 && len(errs) == len(rc.connect) {
		s.Close()
		return nil, fmt.Errorf("%w: %w", ErrNoRouter, errors.Join(errs...))
	}
	if rc.ConnectExitOnFailure && len(errs) > 0 {
		s.Close()
		return nil, fmt.Errorf("%w: %w", ErrConnectFailed, errors.Join(errs...))
	}
	for _, err := range errs {
		rc.warn.Warn("zenoh: connect failed, retrying in the background", "err", err)
	}
	if rc.Scouting.Multicast {
		// Scouting goroutines end with the session (see scout.go).
		if err := s.startScouting(ctx); err != nil {
			s.Close()
			return nil, err
		}
	}
	return s, nil
}

// whatami is how this session presents itself in INIT.
func (s *Session) whatami() wire.WhatAmI {
	if s.cfg.Mode == ModeClient {
		return wire.Client
	}
	return wire.Peer
}

// ZID returns this session's Zenoh ID in hexadecimal, most significant
// byte first, as Zenoh tools print it.
func (s *Session) ZID() string {
	z := slices.Clone(s.cfg.ZID)
	slices.Reverse(z)
	return hex.EncodeToString(z)
}

// ListenAddrs returns the endpoints the session accepts links on, with the
// actual ports (useful after listening on port 0).
func (s *Session) ListenAddrs() []string {
	out := make([]string, 0, len(s.listeners))
	for _, ln := range s.listeners {
		out = append(out, ln.locator().String())
	}
	return out
}

// Close sends what is queued and then CLOSE on every link, stops listening
// and dialling, and waits until every goroutine of the session has
// returned, so it must not be called from a subscriber handler. Subscribers
// stop receiving; afor subs made by Subscribe are closed with
// ErrSessionClosed. Close is idempotent and always returns nil.
func (s *Session) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		s.wg.Wait()
		return nil
	}
	s.closed = true
	links := make([]*link, 0, len(s.links))
	for l := range s.links {
		links = append(links, l)
	}
	var locals []*Subscriber
	for _, e := range s.entries {
		if e.local != nil {
			locals = append(locals, e.local)
		}
	}
	var qabls []*Queryable
	for _, e := range s.qabls {
		if e.local != nil {
			qabls = append(qabls, e.local)
		}
	}
	lsubs := make([]*LivelinessSubscriber, 0, len(s.lsubs))
	for _, ls := range s.lsubs {
		lsubs = append(lsubs, ls)
	}
	s.mu.Unlock()
	for _, ls := range lsubs {
		_ = ls.end(ErrSessionClosed)
	}
	s.cancel()
	for _, ln := range s.listeners {
		_ = ln.Close()
	}
	for _, l := range links {
		l.close(wire.CloseGeneric, ErrSessionClosed)
	}
	s.wg.Wait()
	for _, sub := range locals {
		sub.end(ErrSessionClosed)
	}
	// Pending queries are finished, and queries in flight end.
	for _, qa := range qabls {
		_ = qa.end(ErrSessionClosed)
	}
	s.mu.Lock()
	gets := make([]*getState, 0, len(s.gets))
	for _, g := range s.gets {
		gets = append(gets, g)
	}
	s.mu.Unlock()
	for _, g := range gets {
		g.finish()
	}
	return nil
}

func (s *Session) acceptLoop(ln netListener) {
	defer s.wg.Done()
	for {
		conn, err := ln.Accept()
		if err != nil {
			if s.ctx.Err() == nil {
				s.log.Error("zenoh: accept failed, no longer listening", "endpoint", ln.locator().String(), "err", err)
			}
			return
		}
		p, ok := s.admit(conn, sourceAddr(conn))
		if !ok {
			continue // refused over a limit (see admit)
		}
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			l, err := s.handshake(s.ctx, conn, false, p)
			s.adm.leave(p)
			if le := (*limitError)(nil); errors.As(err, &le) {
				s.refuse(conn, le.limit, le.what)
				return
			}
			if err != nil {
				s.inboundFailed(ln, conn, err)
				if r := (*refusal)(nil); errors.As(err, &r) {
					_, _ = conn.Write(appendClose(nil, r.reason, true))
				}
				_ = conn.Close()
				return
			}
			if _, err := s.register(l); err == nil {
				s.serve(l)
			}
		}()
	}
}

// inboundFailed logs (and counts) an inbound link whose handshake failed:
// refused authentication and failed TLS handshakes are warnings naming the
// endpoint (the operator must know), other failures are chatter.
func (s *Session) inboundFailed(ln netListener, conn net.Conn, err error) {
	remote := remoteLocator(conn)
	var limit string
	switch {
	case errors.Is(err, ErrAuth):
		limit = LimitAuth
	case isTLSFailure(conn, err):
		limit = LimitTLS
	default:
		s.log.Debug("zenoh: inbound handshake failed", "endpoint", ln.locator().String(), "remote", remote, "err", err)
		return
	}
	if n, log := s.countRefused(limit); log {
		s.log.Warn("zenoh: refusing inbound link", "endpoint", ln.locator().String(), "remote", remote, "limit", limit, "err", err, "count", n)
	}
}

// dial starts a dialLoop for ep.
func (s *Session) dial(ep endpoint, first chan<- error, deadline time.Time) {
	s.wg.Add(1)
	go s.dialLoop(ep, first, deadline)
}

// dialLoop keeps one Connect endpoint linked until the session closes. The
// result of the first attempt that links, or of the last attempt before
// deadline, goes to first.
func (s *Session) dialLoop(ep endpoint, first chan<- error, deadline time.Time) {
	defer s.wg.Done()
	delay := s.cfg.RetryInterval
	for {
		dctx, cancel := context.WithTimeout(s.ctx, handshakeTimeout)
		conn, err := s.dialConn(dctx, ep)
		cancel()
		var l *link
		if err == nil {
			l, err = s.handshake(s.ctx, conn, true, nil)
			if err != nil {
				_ = conn.Close()
			}
		}
		var existing *link
		if err == nil {
			existing, err = s.register(l)
			if errors.Is(err, ErrSessionClosed) {
				if first != nil {
					first <- err
				}
				return
			}
			if err != nil {
				l = nil
			}
		}
		if err != nil {
			err = fmt.Errorf("%s: %w", ep, err)
		}
		switch {
		case first == nil:
		case existing != nil:
			first <- nil // linked already, by the other side's dial
			first = nil
		case err == nil || !time.Now().Before(deadline):
			first <- err
			first = nil
		}
		switch {
		case l != nil:
			s.wg.Add(1)
			go func() { defer s.wg.Done(); s.serve(l) }()
			select {
			case <-l.finished:
			case <-s.ctx.Done():
				return
			}
			s.log.Warn("zenoh: link lost, redialling", "endpoint", ep.String(), "cause", l.cause)
			if errors.Is(l.cause, errRemoteInvalid) {
				// The remote refused what we sent (over one of its limits,
				// say): it may again, so back off.
				delay = min(2*delay, maxRetryFactor*s.cfg.RetryInterval)
			} else {
				delay = s.cfg.RetryInterval
			}
		case existing != nil:
			// Already linked to that node (it dialled us): dial again only
			// once that link is gone.
			select {
			case <-existing.finished:
			case <-s.ctx.Done():
				return
			}
		default:
			s.log.Debug("zenoh: connect attempt failed", "err", err, "retry_in", delay)
		}
		wait := delay
		if first != nil {
			wait = max(min(wait, time.Until(deadline)), 0)
		}
		t := time.NewTimer(wait)
		if l == nil && existing == nil {
			// Back off while the endpoint stays unreachable.
			delay = min(2*delay, maxRetryFactor*s.cfg.RetryInterval)
		}
		select {
		case <-t.C:
		case <-s.ctx.Done():
			t.Stop()
			return
		}
	}
}

// maxRetryFactor caps the redial backoff at this many RetryIntervals.
const maxRetryFactor = 8

// WaitConnected waits until the session has at least one link, or ctx
// ends. A session that dials redials lost links by itself (re-declaring its
// subscribers, queryables and tokens), so this is how to wait for the end
// of a gap.
func (s *Session) WaitConnected(ctx context.Context) error {
	if err := ctxDone(ctx); err != nil {
		return err
	}
	for {
		ch := s.waitChange()
		s.mu.Lock()
		n, closed := len(s.links), s.closed
		s.mu.Unlock()
		if closed {
			return ErrSessionClosed
		}
		if n > 0 {
			return nil
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return ctx.Err()
		case <-s.ctx.Done():
			return ErrSessionClosed
		}
	}
}

// errDuplicateLink rejects a second link to a node already linked.
var errDuplicateLink = errors.New("zenoh: already linked to that node")

// register adds an established link to the session and queues our
// declarations for it. It fails, closing the link, if the session is closed
// (ErrSessionClosed) or if the remote node is already linked (returning
// that link): one link per remote node keeps samples from arriving twice.
func (s *Session) register(l *link) (*link, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		_ = l.conn.Close()
		close(l.finished)
		return nil, ErrSessionClosed
	}
	replacing := false // l replaces a link to the same node
	for other := range s.links {
		if !bytes.Equal(other.remoteZID, l.remoteZID) {
			continue
		}
		// Both nodes dialled each other: both keep the link dialled by
		// the node with the smaller ZID.
		keepNew := l.dialed == (bytes.Compare(s.cfg.ZID, l.remoteZID) < 0) && other.dialed != l.dialed
		if !keepNew {
			_, _ = l.conn.Write(appendClose(nil, wire.CloseMaxLinks, false))
			_ = l.conn.Close()
			close(l.finished)
			return other, errDuplicateLink
		}
		other.close(wire.CloseMaxLinks, errDuplicateLink)
		replacing = true
	}
	if !l.dialed && !replacing {
		if err := s.makeRoomLocked(l); err != nil {
			le := err.(*limitError)
			s.refuse(l.conn, le.limit, "links")
			close(l.finished)
			return nil, err
		}
	}
	s.links[l] = struct{}{}
	// Push our declarations: to peers and routers as the answer to the
	// implicit initial interest (terminated by D_FINAL with id 0), to a
	// router when we are its client.
	l.wantsDecl = !l.isClient()
	s.countAggLocked(l)
	if l.wantsDecl {
		var scratch []byte
		for _, e := range s.sortedEntries() {
			if s.visible(e, l) && e.relay != relayAgg {
				scratch = appendDeclareSubscriber(scratch[:0], nil, e.id, e.key)
				l.queueCtrl(scratch)
			}
		}
		for _, e := range s.sortedQabls() {
			if qablVisible(e, l) && e.relay != relayAgg {
				scratch = appendDeclareQueryable(scratch[:0], nil, e.id, e.key, e.complete)
				l.queueCtrl(scratch)
			}
		}
		for _, e := range s.sortedTokens() {
			if tokVisible(e, l) && e.relay != relayAgg {
				scratch = appendDeclareToken(scratch[:0], nil, e.id, e.key)
				l.queueCtrl(scratch)
			}
		}
		for _, kind := range []uint8{kindSub, kindQabl} {
			if l.aggN[kind] > 0 {
				l.queueCtrl(s.appendAggLocked(scratch[:0], l, kind, nil))
				l.aggSent[kind] = true
			}
		}
		if s.cfg.Mode == ModePeer && l.whatami != wire.Router {
			// Routers expect no D_FINAL from the peers below them (Rust
			// routers log an error for it).
			l.queueCtrl(appendDeclareFinal(scratch[:0], 0))
		}
		if s.cfg.Mode == ModeClient || l.whatami == wire.Router {
			// Ask for the subscribers the router knows, now and later,
			// so that publications are only sent when someone listens.
			// (Peers push theirs unasked.)
			l.askedSubs = true
			l.queueCtrl(appendInterest(scratch[:0], subsInterestID, wire.InterestCurrentFuture,
				wire.InterestKeyExprs|wire.InterestSubscribers|wire.InterestQueryables|wire.InterestTokens))
		}
	}
	s.queueLinkStatesLocked()
	s.rebuildLocked()
	l.log.Debug("zenoh: link up", "whatami", l.whatami, "batch", l.batch, "lease", l.peerLease)
	return nil, nil
}

// serve runs a registered link's writer and reader until the link ends.
func (s *Session) serve(l *link) {
	s.wg.Add(2)
	go l.writeLoop()
	if stop := l.closeOnExpiry(); stop != nil {
		defer stop()
	}
	l.readLoop()
}

// removeLink drops a finished link and every subscription it declared.
func (s *Session) removeLink(l *link) {
	s.mu.Lock()
	l.removed = true
	delete(s.links, l)
	for _, gid := range l.remoteSubs {
		s.removeEntryLocked(gid)
	}
	clear(l.remoteSubs)
	for _, gid := range l.remoteQabls {
		s.removeQablLocked(gid)
	}
	clear(l.remoteQabls)
	for _, gid := range l.remoteTokens {
		s.removeTokenLocked(gid)
	}
	clear(l.remoteTokens)
	if !s.closed {
		s.queueLinkStatesLocked()
	}
	s.rebuildLocked()
	gets := make([]*getState, 0, len(s.gets))
	for _, g := range s.gets {
		gets = append(gets, g)
	}
	s.mu.Unlock()
	s.flushLiveliness()
	// The link will send no RESPONSE_FINAL: its part of every query ends.
	for _, g := range gets {
		g.final(l)
	}
	// Nobody waits for the answers to its own queries any more.
	s.endLinkRequests(l)
	l.log.Debug("zenoh: link down", "cause", l.cause)
}

// sortedQabls lists the queryables in declaration order.
func (s *Session) sortedQabls() []*qablEntry {
	es := make([]*qablEntry, 0, len(s.qabls))
	for _, e := range s.qabls {
		es = append(es, e)
	}
	slices.SortFunc(es, func(a, b *qablEntry) int { return int(a.id) - int(b.id) })
	return es
}

// notifyLocked wakes the waiters of a routing change.
func (s *Session) notifyLocked() {
	close(s.changed)
	s.changed = make(chan struct{})
}

// declareLocked queues a declaration (or undeclaration) on every link that
// takes our declarations and may see it.
func (s *Session) declareLocked(msg []byte, visible func(*link) bool) {
	for l := range s.links {
		if l.wantsDecl && visible(l) {
			l.queueCtrl(msg)
		}
	}
}

// handleNetwork dispatches one network message received on l. The message
// lives in l's decoder and aliases the received batch: it is only valid
// during the call.
func (s *Session) handleNetwork(l *link, nm wire.NetworkMessage) error {
	switch m := nm.(type) {
	case *wire.Push:
		key, err := l.resolveKey(&m.WireExpr)
		if err != nil {
			l.log.Warn("zenoh: dropping PUSH", "err", err)
			return nil
		}
		if err := l.checkPeerKey(key, nil); err != nil {
			return err
		}
		d := &l.rxData
		if !dataFromWire(m.Body, d) {
			return nil // the decoder only returns PUT or DEL
		}
		d.qos = m.EffectiveQoS() // relayed as received
		rc := s.route(l.rxRoute, key, l)
		l.rxRoute = rc
		for i, sub := range rc.local {
			if d.loan != nil { // only the last may take the buffer (large.go)
				d.loan.last = i == len(rc.local)-1 && len(rc.links) == 0
			}
			sub.deliver(key, *d)
		}
		if len(rc.links) > 0 {
			l.fwdEnc.zid = s.cfg.ZID
			if l.fwd, err = l.fwdEnc.append(l.fwd[:0], key, d); err != nil {
				l.log.Warn("zenoh: cannot relay sample", "key", key, "err", err)
				return nil
			}
			for _, dst := range rc.links {
				// Relaying must not stall this reader on a slow link.
				if !dst.queueOrDrop(l.fwd) {
					dst.log.Debug("zenoh: queue full, relayed sample dropped", "key", key)
				}
			}
		}
	case *wire.Declare:
		err := s.handleDeclare(l, m)
		switch m.Body.(type) {
		case *wire.DeclareToken, *wire.UndeclareToken:
			s.flushLiveliness()
		}
		return err
	case *wire.Interest:
		s.handleInterest(l, m)
	case *wire.Request:
		s.handleRequest(l, m)
	case *wire.Response:
		s.handleResponse(l, m)
	case *wire.ResponseFinal:
		s.handleResponseFinal(l, m.RequestID)
	case *wire.NetworkOAM:
		s.handleOAM(l, m)
	}
	return nil
}

func (s *Session) handleDeclare(l *link, m *wire.Declare) error {
	switch d := m.Body.(type) {
	case *wire.DeclareKeyExpr:
		if d.ID == 0 {
			return fmt.Errorf("%w: D_KEYEXPR with id 0", ErrProtocol)
		}
		// A D_KEYEXPR scope refers to the sender's own table.
		we := d.WireExpr
		we.Mapping = wire.MappingSender
		key, err := l.resolveKey(&we)
		if err != nil {
			l.log.Warn("zenoh: ignoring D_KEYEXPR", "err", err)
			return nil
		}
		return l.setAlias(d.ID, key) // within Limits.MaxAliases and MaxAliasBytes
	case *wire.UndeclareKeyExpr:
		l.dropAlias(d.ID)
	case *wire.DeclareFinal:
		if m.HasInterestID {
			s.declareFinal(l, m.InterestID)
		}
	case *wire.DeclareSubscriber:
		key, err := l.resolveKey(&d.WireExpr)
		if err != nil {
			l.log.Warn("zenoh: ignoring D_SUBSCRIBER", "err", err)
			return nil
		}
		if key, err = canonKeyExpr(key); err != nil {
			if err := l.checkPeerKey(key, err); err != nil {
				return err
			}
			l.log.Warn("zenoh: ignoring D_SUBSCRIBER", "err", err)
			return nil
		}
		s.mu.Lock()
		defer s.mu.Unlock()
		if l.removed || s.closed {
			return nil
		}
		if old, ok := l.remoteSubs[d.ID]; ok {
			if s.entries[old] != nil && s.entries[old].key == key {
				return nil // a repeated declaration, e.g. in an interest reply
			}
			s.removeEntryLocked(old)
		}
		if _, ok := l.remoteSubs[d.ID]; !ok {
			if err := l.checkDeclarations(); err != nil {
				return err
			}
		}
		e := s.addEntryLocked(key, l, nil)
		l.remoteSubs[d.ID] = e.id
	case *wire.DeclareQueryable:
		key, err := l.resolveKey(&d.WireExpr)
		if err == nil {
			key, err = canonKeyExpr(key)
		}
		if err != nil {
			if err := l.checkPeerKey(key, err); err != nil {
				return err
			}
			l.log.Warn("zenoh: ignoring D_QUERYABLE", "err", err)
			return nil
		}
		complete := d.Complete
		s.mu.Lock()
		defer s.mu.Unlock()
		if l.removed || s.closed {
			return nil
		}
		if old, ok := l.remoteQabls[d.ID]; ok {
			if e := s.qabls[old]; e != nil && e.key == key && e.complete == complete {
				return nil // a repeated declaration, e.g. in an interest reply
			}
			s.removeQablLocked(old)
		} else if err := l.checkDeclarations(); err != nil {
			return err
		}
		s.nextID++
		l.remoteQabls[d.ID] = s.nextID
		s.addQablLocked(&qablEntry{id: s.nextID, key: key, complete: complete, origin: l})
	case *wire.DeclareToken:
		key, err := l.resolveKey(&d.WireExpr)
		if err == nil {
			key, err = canonKeyExpr(key)
		}
		if err != nil {
			if err := l.checkPeerKey(key, err); err != nil {
				return err
			}
			l.log.Warn("zenoh: ignoring D_TOKEN", "err", err)
			return nil
		}
		s.mu.Lock()
		defer s.mu.Unlock()
		if l.removed || s.closed {
			return nil
		}
		if m.HasInterestID && s.livReplyLocked(l, m.InterestID, key) {
			return nil // an answer to a LivelinessGet, not a declaration
		}
		if old, ok := l.remoteTokens[d.ID]; ok {
			if e := s.tokens[old]; e != nil && e.key == key {
				return nil // a repeated declaration, e.g. in an interest reply
			}
			s.removeTokenLocked(old)
		} else if err := l.checkDeclarations(); err != nil {
			return err
		}
		s.nextID++
		l.remoteTokens[d.ID] = s.nextID
		s.addTokenLocked(&tokEntry{id: s.nextID, key: key, origin: l})
	case *wire.UndeclareToken:
		s.mu.Lock()
		defer s.mu.Unlock()
		if gid, ok := l.remoteTokens[d.ID]; ok {
			delete(l.remoteTokens, d.ID)
			s.removeTokenLocked(gid)
		}
	case *wire.UndeclareQueryable:
		s.mu.Lock()
		defer s.mu.Unlock()
		if gid, ok := l.remoteQabls[d.ID]; ok {
			delete(l.remoteQabls, d.ID)
			s.removeQablLocked(gid)
		}
	case *wire.UndeclareSubscriber:
		s.mu.Lock()
		defer s.mu.Unlock()
		if gid, ok := l.remoteSubs[d.ID]; ok {
			delete(l.remoteSubs, d.ID)
			s.removeEntryLocked(gid)
		}
	}
	return nil
}

// maxAggInterests bounds the aggregated interests one remote may make us
// remember (the other bounds are in Limits).
const maxAggInterests = 1 << 12

// handleInterest answers an INTEREST: for Current modes, the matching
// subscriptions tagged with the interest id, then D_FINAL; for Future
// modes, later declarations are pushed as they happen.
func (s *Session) handleInterest(l *link, m *wire.Interest) {
	if m.Mode == wire.InterestFinal {
		s.mu.Lock()
		delete(l.agg, m.ID)
		s.mu.Unlock()
		return
	}
	var restrict string
	if m.Options&wire.InterestRestricted != 0 {
		k, err := l.resolveKey(&m.WireExpr)
		if err != nil {
			l.log.Warn("zenoh: interest on unknown key", "err", err)
		}
		if l.checkPeerKey(k, nil) != nil {
			return // the link is closed
		}
		restrict = k
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if l.removed {
		return
	}
	id := m.ID
	var scratch []byte
	if m.Options&wire.InterestAggregate != 0 && restrict != "" && m.Options&wire.InterestSubscribers != 0 {
		// An aggregated interest is answered with the interest's own key,
		// declared while some subscriber intersects it.
		a := &aggInterest{key: restrict}
		if m.Mode == wire.InterestCurrent || m.Mode == wire.InterestCurrentFuture {
			if a.n = s.countMatchesLocked(l, restrict); a.n > 0 {
				s.nextID++
				a.declID, a.declared = s.nextID, true
				l.queueCtrl(appendDeclareSubscriber(scratch[:0], &id, a.declID, restrict))
			}
			l.queueCtrl(appendDeclareFinal(scratch[:0], id))
		}
		if m.Mode == wire.InterestFuture || m.Mode == wire.InterestCurrentFuture {
			if l.agg == nil {
				l.agg = make(map[uint32]*aggInterest)
			}
			if len(l.agg) >= maxAggInterests {
				l.log.Warn("zenoh: too many aggregated interests, ignoring one", "id", id)
				return
			}
			if m.Mode == wire.InterestFuture {
				a.n = s.countMatchesLocked(l, restrict)
			}
			l.agg[id] = a
			s.rt.addAggLink(l)
		}
		return
	}
	if m.Mode == wire.InterestCurrent || m.Mode == wire.InterestCurrentFuture {
		future := m.Mode == wire.InterestCurrentFuture
		if m.Options&wire.InterestSubscribers != 0 {
			for _, e := range s.visibleEntriesLocked(l) {
				if restrict == "" || intersects(restrict, e.key) {
					scratch = appendDeclareSubscriber(scratch[:0], &id, e.id, e.key)
					l.queueCtrl(scratch)
				}
			}
			if l.aggN[kindSub] > 0 {
				l.queueCtrl(s.appendAggLocked(scratch[:0], l, kindSub, &id))
				l.aggSent[kindSub] = l.aggSent[kindSub] || future
			}
		}
		if m.Options&wire.InterestTokens != 0 {
			for _, e := range s.visibleTokensLocked(l) {
				if restrict == "" || intersects(restrict, e.key) {
					scratch = appendDeclareToken(scratch[:0], &id, e.id, e.key)
					l.queueCtrl(scratch)
				}
			}
		}
		if m.Options&wire.InterestQueryables != 0 {
			for _, e := range s.visibleQablsLocked(l) {
				if restrict == "" || intersects(restrict, e.key) {
					scratch = appendDeclareQueryable(scratch[:0], &id, e.id, e.key, e.complete)
					l.queueCtrl(scratch)
				}
			}
			if l.aggN[kindQabl] > 0 {
				l.queueCtrl(s.appendAggLocked(scratch[:0], l, kindQabl, &id))
				l.aggSent[kindQabl] = l.aggSent[kindQabl] || future
			}
		}
		l.queueCtrl(appendDeclareFinal(scratch[:0], id))
	}
	if (m.Mode == wire.InterestFuture || m.Mode == wire.InterestCurrentFuture) &&
		m.Options&(wire.InterestSubscribers|wire.InterestQueryables|wire.InterestTokens) != 0 {
		l.wantsDecl = true
	}
}

// waitChange returns a channel closed at the next routing change.
func (s *Session) waitChange() <-chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.changed
}
