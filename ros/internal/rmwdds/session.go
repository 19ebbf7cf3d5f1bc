package rmwdds

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/afor-go/afor"
	"github.com/afor-go/afor/ros/internal/rmw"
	"github.com/afor-go/afor/transport/dds"
)

// Config configures a Session.
type Config struct {
	// DDS configures the participant underneath. Its DomainID, when zero
	// and not ExactDomain, is DomainID (and ROS_DOMAIN_ID is not read:
	// package ros resolves it); its UserData defaults to
	// "enclave=<Enclave>;" and its Logger to Logger.
	DDS dds.Config
	// DomainID is the ROS domain (ROS_DOMAIN_ID), 0 to 232.
	DomainID int
	// Enclave is the security enclave announced for the participant's
	// nodes. Default "/".
	Enclave string
	// Logger receives diagnostics. Default: discard.
	Logger *slog.Logger
}

// Stats counts what a Session received from peers and dropped.
type Stats struct {
	// BadDiscoveryInfo counts ros_discovery_info samples that do not
	// decode.
	BadDiscoveryInfo uint64
	// DroppedRequests counts requests that could not be read (a Cyclone
	// peer's request without its header).
	DroppedRequests uint64
	// DroppedReplies counts replies that could not be read or matched to a
	// request, and replies a server dropped because the client's reply
	// reader did not match in time.
	DroppedReplies uint64
	// RefusedDiscoveryInfo counts ros_discovery_info samples ignored
	// because they describe another participant than their writer's, or
	// list more than MaxNodesPerParticipant nodes or
	// MaxEntitiesPerParticipant readers and writers.
	RefusedDiscoveryInfo uint64
}

// Bounds of what one participant's ros_discovery_info sample may list: a
// sample over them is ignored (Stats.RefusedDiscoveryInfo). A component
// container with a hundred nodes lists about 1600 readers and writers.
const (
	MaxNodesPerParticipant    = 1024
	MaxEntitiesPerParticipant = 16384
)

// Session is an rmw.Session over one DDS participant, with the
// conventions of the ROS 2 DDS middlewares. All methods are safe for
// concurrent use.
type Session struct {
	p       *dds.Participant
	log     *slog.Logger
	enclave string
	graph   *afor.Sub[*rmw.Graph]
	infoW   *dds.Writer
	infoR   *dds.Reader
	unwatch func()

	badInfo, droppedRequests, droppedReplies, refusedInfo atomic.Uint64

	// infoIn holds the last ros_discovery_info payload of each writer's
	// participant, not yet applied: the reader's callback, which runs in
	// the goroutine that delivers user data, only stores it there, and
	// the graph goroutine (graphLoop) parses and applies it. One entry
	// per participant, replaced by each sample: its size is bounded by
	// the participants the transport admits. graphDirty asks that
	// goroutine for a new graph snapshot; kick wakes it.
	infoMu     sync.Mutex
	infoIn     map[dds.GUID][]byte
	graphDirty bool
	kick       chan struct{}
	stop       chan struct{}
	graphDone  chan struct{}

	mu      sync.Mutex
	local   *LocalEntities
	cache   *GraphCache
	remotes map[dds.GUID][2]byte // participant → vendor
	// requestReaders maps a request topic ("rq/…Request") to the vendors
	// of the remote readers on it, for a client to pick its form.
	requestReaders map[string]map[dds.GUID][2]byte
	nodes          map[*node]struct{}
	closed         bool
	// early holds the ros_discovery_info of participants whose
	// ParticipantFound event has not come yet (discovery events are
	// delivered by a goroutine of their own), with when it came.
	early map[dds.GUID]earlyInfo

	writeMu sync.Mutex // serialises writeInfo
	infoBuf []byte     // guarded by writeMu
}

var _ rmw.Session = (*Session)(nil)

// Open joins the DDS domain with a new participant, creates its
// ros_discovery_info writer and reader, and starts following the graph.
// ctx bounds the start only.
func Open(ctx context.Context, cfg Config) (*Session, error) {
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if cfg.Enclave == "" {
		cfg.Enclave = "/"
	}
	dc := cfg.DDS
	if dc.DomainID == 0 && !dc.ExactDomain {
		dc.DomainID, dc.ExactDomain = cfg.DomainID, true
	}
	if dc.UserData == nil {
		dc.UserData = EnclaveUserData(cfg.Enclave)
	}
	if dc.Logger == nil {
		dc.Logger = log
	}
	p, err := dds.NewParticipant(ctx, dc)
	if err != nil {
		return nil, err
	}
	s := &Session{
		p: p, log: log, enclave: cfg.Enclave,
		graph:          afor.NewSub[*rmw.Graph](),
		local:          NewLocalEntities(p.GUID()),
		cache:          NewGraphCache(),
		remotes:        make(map[dds.GUID][2]byte),
		requestReaders: make(map[string]map[dds.GUID][2]byte),
		nodes:          make(map[*node]struct{}),
		infoIn:         make(map[dds.GUID][]byte),
		early:          make(map[dds.GUID]earlyInfo),
		kick:           make(chan struct{}, 1),
		stop:           make(chan struct{}),
		graphDone:      make(chan struct{}),
	}
	go s.graphLoop()
	s.cache.AddParticipant(p.GUID(), dc.UserData)
	if s.infoW, err = dds.NewWriter(p, DiscoveryInfoTopic(), DiscoveryInfoWriterQoS()); err == nil {
		s.infoR, err = dds.NewReaderFunc(p, DiscoveryInfoTopic(), DiscoveryInfoReaderQoS(), s.onInfo)
	}
	if err != nil {
		close(s.stop)
		<-s.graphDone
		_ = p.Close()
		return nil, err
	}
	s.mu.Lock()
	s.changedLocked()
	s.mu.Unlock()
	s.writeInfo()
	s.unwatch = p.WatchDiscovery(s.onDiscovery)
	return s, nil
}

// Participant returns the DDS participant underneath.
func (s *Session) Participant() *dds.Participant { return s.p }

// Graph returns the graph as this session sees it: a new snapshot is input
// on every change.
func (s *Session) Graph() *afor.Sub[*rmw.Graph] { return s.graph }

// Stats returns the counts of dropped input.
func (s *Session) Stats() Stats {
	return Stats{
		BadDiscoveryInfo: s.badInfo.Load(),
		DroppedRequests:  s.droppedRequests.Load(),
		DroppedReplies:   s.droppedReplies.Load(),

		RefusedDiscoveryInfo: s.refusedInfo.Load(),
	}
}

// onInfo takes a ros_discovery_info sample: it keeps the payload as its
// participant's latest, for graphLoop to apply. It runs in the goroutine
// that delivers user samples, so it does no more than that.
func (s *Session) onInfo(smp dds.Sample) {
	pg := smp.Writer.Participant()
	if pg == s.p.GUID() {
		return // ours, known first hand
	}
	s.infoMu.Lock()
	s.infoIn[pg] = smp.Payload
	s.infoMu.Unlock()
	s.wake()
}

// wake asks graphLoop to run.
func (s *Session) wake() {
	select {
	case s.kick <- struct{}{}:
	default:
	}
}

// markDirtyLocked asks graphLoop for a new graph snapshot. s.mu must be
// held.
func (s *Session) markDirtyLocked() {
	s.graphDirty = true
	s.wake()
}

// graphLoop applies the ros_discovery_info samples taken by onInfo, and
// inputs a graph snapshot when something changed: one per round,
// however many samples and discovery events came in meanwhile.
func (s *Session) graphLoop() {
	defer close(s.graphDone)
	for {
		select {
		case <-s.stop:
			return
		case <-s.kick:
		}
		var in map[dds.GUID][]byte
		s.infoMu.Lock()
		if len(s.infoIn) > 0 {
			in, s.infoIn = s.infoIn, make(map[dds.GUID][]byte)
		}
		s.infoMu.Unlock()
		infos := make([]ParticipantInfo, 0, len(in))
		for pg, payload := range in {
			if info, ok := s.checkInfo(pg, payload); ok {
				infos = append(infos, info)
			}
		}
		s.mu.Lock()
		changed := s.graphDirty
		s.graphDirty = false
		now := time.Now()
		for _, info := range infos {
			switch _, known := s.remotes[info.GUID]; {
			case s.closed:
			case !known:
				s.keepEarlyLocked(info, now)
			case s.cache.UpdateInfo(info):
				changed = true
			}
		}
		if changed && !s.closed {
			s.graph.Input(s.cache.Graph())
		}
		s.mu.Unlock()
	}
}

// earlyInfo is a ros_discovery_info sample that came before its
// participant's ParticipantFound event.
type earlyInfo struct {
	info ParticipantInfo
	at   time.Time
}

// maxEarly bounds Session.early; earlyFor is how long an entry is kept.
const (
	maxEarly = 1024
	earlyFor = 30 * time.Second
)

// keepEarlyLocked keeps info until its participant is found. s.mu must be
// held.
func (s *Session) keepEarlyLocked(info ParticipantInfo, now time.Time) {
	for g, e := range s.early {
		if now.Sub(e.at) > earlyFor {
			delete(s.early, g)
		}
	}
	if _, ok := s.early[info.GUID]; ok || len(s.early) < maxEarly {
		s.early[info.GUID] = earlyInfo{info: info, at: now}
	}
}

// checkInfo decodes the ros_discovery_info payload of participant pg and
// checks that it describes pg within the bounds.
func (s *Session) checkInfo(pg dds.GUID, payload []byte) (ParticipantInfo, bool) {
	info, err := ParseParticipantInfo(payload)
	if err != nil {
		s.badInfo.Add(1)
		s.log.Debug("rmwdds: ros_discovery_info sample ignored", "participant", pg, "err", err)
		return info, false
	}
	entities := 0
	for _, n := range info.Nodes {
		entities += len(n.Readers) + len(n.Writers)
	}
	if info.GUID != pg || len(info.Nodes) > MaxNodesPerParticipant || entities > MaxEntitiesPerParticipant {
		if s.refusedInfo.Add(1) == 1 {
			s.log.Warn("rmwdds: ros_discovery_info sample refused", "participant", pg, "describes", info.GUID,
				"nodes", len(info.Nodes), "entities", entities)
		}
		return info, false
	}
	return info, true
}

// vendorOf returns the vendor of the participant of entity g.
func (s *Session) vendorOf(g dds.GUID) ([2]byte, bool) {
	pg := g.Participant()
	s.mu.Lock()
	v, ok := s.remotes[pg]
	s.mu.Unlock()
	if ok {
		return v, true
	}
	if pg == s.p.GUID() {
		return vendorAfor, true
	}
	for _, rp := range s.p.Participants() {
		if rp.GUID == pg {
			return rp.Vendor, true
		}
	}
	return [2]byte{}, false
}

// changedLocked inputs the graph after a change of this participant's
// entities. s.mu must be held; the caller then calls writeInfo, after
// releasing it.
func (s *Session) changedLocked() {
	s.cache.UpdateInfo(s.local.Info())
	s.graph.Input(s.cache.Graph())
}

// writeInfo writes this participant's current ros_discovery_info sample.
// It is called without s.mu, so that a transport delivering to local
// readers in the writing goroutine cannot deadlock; writeMu keeps the
// samples in the order of the states they describe.
func (s *Session) writeInfo() {
	s.writeMu.Lock()
	defer s.writeMu.Unlock()
	s.mu.Lock()
	info := s.local.Info()
	s.mu.Unlock()
	var err error
	s.infoBuf, err = info.AppendCDR(s.infoBuf[:0])
	if err == nil {
		err = s.infoW.Write(context.Background(), s.infoBuf)
	}
	if err != nil && !errors.Is(err, dds.ErrClosed) {
		s.log.Warn("rmwdds: cannot publish ros_discovery_info", "err", err)
	}
}

// addEndpointLocked records a local endpoint of node n in the graph and in
// ros_discovery_info. s.mu must be held.
func (s *Session) addEndpointLocked(n *node, g dds.GUID, t dds.Topic, q dds.QoS) {
	s.cache.AddEndpoint(Endpoint{GUID: g, Topic: t.Name, TypeName: t.TypeName, QoS: q, HistoryKnown: true, UserData: q.UserData})
	if isReader(g) {
		s.local.AddReader(n.id, g)
	} else {
		s.local.AddWriter(n.id, g)
	}
}

// removeEndpointsLocked forgets local endpoints. s.mu must be held.
func (s *Session) removeEndpointsLocked(gs ...dds.GUID) {
	for _, g := range gs {
		s.cache.RemoveEndpoint(g)
		s.local.Remove(g)
	}
}

// CreateNode announces a node on the graph.
func (s *Session) CreateNode(name rmw.NodeName) (rmw.Node, error) {
	if err := checkROSName("namespace", name.Namespace+"/x"); err != nil || name.Name == "" {
		return nil, errorf(ErrInvalid, "node %q in namespace %q", name.Name, name.Namespace)
	}
	if len(name.Namespace) > maxNodeName || len(name.Name) > maxNodeName {
		return nil, errorf(ErrInvalid, "node %s/%s: name over %d bytes", name.Namespace, name.Name, maxNodeName)
	}
	if name.Enclave == "" {
		name.Enclave = s.enclave
	}
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil, ErrClosed
	}
	n := &node{s: s, name: name, id: s.local.AddNode(name), entities: make(map[closer]struct{})}
	s.nodes[n] = struct{}{}
	s.changedLocked()
	s.mu.Unlock()
	s.writeInfo()
	return n, nil
}

// Close closes every node, announces the participant's end and closes the
// graph's Sub.
func (s *Session) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	nodes := make([]*node, 0, len(s.nodes))
	for n := range s.nodes {
		nodes = append(nodes, n)
	}
	s.mu.Unlock()
	for _, n := range nodes {
		_ = n.Close()
	}
	s.mu.Lock()
	s.closed = true
	s.mu.Unlock()
	s.unwatch()
	err := s.p.Close()
	close(s.stop)
	<-s.graphDone
	s.graph.CloseWithError(ErrClosed)
	return err
}
