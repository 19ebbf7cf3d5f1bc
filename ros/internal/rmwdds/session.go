package rmwdds

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"sync/atomic"

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
}

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

	badInfo, droppedRequests, droppedReplies atomic.Uint64

	mu      sync.Mutex
	local   *LocalEntities
	cache   *GraphCache
	remotes map[dds.GUID][2]byte // participant → vendor
	// requestReaders maps a request topic ("rq/…Request") to the vendors
	// of the remote readers on it, for a client to pick its form.
	requestReaders map[string]map[dds.GUID][2]byte
	nodes          map[*node]struct{}
	closed         bool

	infoMu  sync.Mutex // serialises writeInfo
	infoBuf []byte     // guarded by infoMu
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
	}
	s.cache.AddParticipant(p.GUID(), dc.UserData)
	if s.infoW, err = dds.NewWriter(p, DiscoveryInfoTopic(), DiscoveryInfoWriterQoS()); err == nil {
		s.infoR, err = dds.NewReaderFunc(p, DiscoveryInfoTopic(), DiscoveryInfoReaderQoS(), s.onInfo)
	}
	if err != nil {
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
	}
}

// onInfo applies a ros_discovery_info sample.
func (s *Session) onInfo(smp dds.Sample) {
	info, err := ParseParticipantInfo(smp.Payload)
	if err != nil {
		s.badInfo.Add(1)
		s.log.Debug("rmwdds: ros_discovery_info sample ignored", "writer", smp.Writer, "err", err)
		return
	}
	if info.GUID == s.p.GUID() {
		return // ours, known first hand
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.closed && s.cache.UpdateInfo(info) {
		s.graph.Input(s.cache.Graph())
	}
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
// readers in the writing goroutine cannot deadlock; infoMu keeps the
// samples in the order of the states they describe.
func (s *Session) writeInfo() {
	s.infoMu.Lock()
	defer s.infoMu.Unlock()
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
	s.graph.CloseWithError(ErrClosed)
	return err
}
