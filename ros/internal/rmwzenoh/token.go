package rmwzenoh

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/afor-go/afor/ros/internal/rmw"
)

// Kinds of rmw_zenoh liveliness tokens.
const (
	kindNode         = "NN"
	kindPublisher    = "MP"
	kindSubscription = "MS"
	kindService      = "SS"
	kindClient       = "SC"
)

// Token part counts: a node token has 9 '/'-separated parts, an entity
// token 13.
const (
	nodeTokenParts   = 9
	entityTokenParts = 13
)

// token is a parsed rmw_zenoh liveliness token.
type token struct {
	Domain   int
	ZID      string
	NodeID   uint64
	EntityID uint64 // NodeID again for a node token
	Kind     string // kindNode, kindPublisher, ...
	Node     rmw.NodeName
	// The rest is set for entity tokens only.
	Name    string // fully qualified topic or service name
	DDSType string
	Hash    string
	QoS     rmw.QoS
}

// orRoot returns s, or "/" when s is empty.
func orRoot(s string) string {
	if s == "" {
		return "/"
	}
	return s
}

// appendNodePart appends the node-identifying part of a token:
// "@ros2_lv/<domain>/<zid>/<nid>/<eid>/<kind>/<enclave>/<ns>/<name>".
func appendNodePart(b []byte, domain int, zid string, nid, eid uint64, kind string, n rmw.NodeName) []byte {
	b = append(b, livelinessPrefix...)
	b = append(b, '/')
	b = strconv.AppendInt(b, int64(domain), 10)
	b = append(b, '/')
	b = append(b, zid...)
	b = append(b, '/')
	b = strconv.AppendUint(b, nid, 10)
	b = append(b, '/')
	b = strconv.AppendUint(b, eid, 10)
	b = append(b, '/')
	b = append(b, kind...)
	b = append(b, '/')
	b = append(b, mangle(orRoot(n.Enclave))...)
	b = append(b, '/')
	b = append(b, mangle(orRoot(n.Namespace))...)
	b = append(b, '/')
	return append(b, mangle(n.Name)...)
}

// nodeToken is the liveliness token of node n, whose id is nid.
func nodeToken(domain int, zid string, nid uint64, n rmw.NodeName) string {
	return string(appendNodePart(make([]byte, 0, 96), domain, zid, nid, nid, kindNode, n))
}

// entityToken is the liveliness token of an entity of node n: kind is
// kindPublisher, kindSubscription, kindService or kindClient, name the
// fully qualified topic or service name, q the adapted QoS.
func entityToken(domain int, zid string, nid, eid uint64, kind string, n rmw.NodeName, name, ddsType, hash string, q rmw.QoS) string {
	b := appendNodePart(make([]byte, 0, 256), domain, zid, nid, eid, kind, n)
	b = append(b, '/')
	b = append(b, mangle(name)...)
	b = append(b, '/')
	b = append(b, mangle(ddsType)...)
	b = append(b, '/')
	b = append(b, mangle(hash)...)
	b = append(b, '/')
	b = append(b, qosString(q)...)
	return string(b)
}

// parseToken reads an rmw_zenoh liveliness token. A token of another shape
// is an error matching ErrMalformed.
func parseToken(s string) (token, error) {
	bad := func(why string) (token, error) {
		return token{}, fmt.Errorf("%w: liveliness token %q: %s", ErrMalformed, s, why)
	}
	parts := strings.Split(s, "/")
	if len(parts) != nodeTokenParts && len(parts) != entityTokenParts {
		return bad("wrong number of parts")
	}
	for _, p := range parts {
		if p == "" {
			return bad("empty part")
		}
	}
	if parts[0] != livelinessPrefix {
		return bad("not an " + livelinessPrefix + " token")
	}
	var t token
	domain, err := strconv.ParseUint(parts[1], 10, 31)
	if err != nil {
		return bad("bad domain id")
	}
	t.Domain = int(domain)
	t.ZID = parts[2]
	if t.NodeID, err = strconv.ParseUint(parts[3], 10, 64); err != nil {
		return bad("bad node id")
	}
	if t.EntityID, err = strconv.ParseUint(parts[4], 10, 64); err != nil {
		return bad("bad entity id")
	}
	t.Kind = parts[5]
	switch t.Kind {
	case kindNode:
		if len(parts) != nodeTokenParts {
			return bad("node token with entity parts")
		}
	case kindPublisher, kindSubscription, kindService, kindClient:
		if len(parts) != entityTokenParts {
			return bad("entity token without entity parts")
		}
	default:
		return bad("unknown kind " + strconv.Quote(t.Kind))
	}
	t.Node = rmw.NodeName{Enclave: demangle(parts[6]), Namespace: demangle(parts[7]), Name: demangle(parts[8])}
	if t.Kind == kindNode {
		return t, nil
	}
	t.Name = demangle(parts[9])
	t.DDSType = demangle(parts[10])
	t.Hash = demangle(parts[11])
	if t.QoS, err = parseQoS(parts[12]); err != nil {
		return bad(err.Error())
	}
	return t, nil
}

// endpointKind maps an entity token kind to its rmw endpoint kind.
func endpointKind(kind string) rmw.EndpointKind {
	switch kind {
	case kindPublisher:
		return rmw.KindPublisher
	case kindSubscription:
		return rmw.KindSubscription
	case kindService:
		return rmw.KindService
	case kindClient:
		return rmw.KindClient
	}
	return 0
}

// endpoint describes the entity of a parsed token; raw is the token as
// received, whose hash is the entity's GID.
func (t *token) endpoint(raw string) rmw.Endpoint {
	return rmw.Endpoint{
		Kind:     endpointKind(t.Kind),
		Node:     t.Node,
		Name:     t.Name,
		Type:     rosTypeName(t.DDSType),
		TypeHash: t.Hash,
		QoS:      t.QoS,
		GID:      gidOf(raw),
	}
}
