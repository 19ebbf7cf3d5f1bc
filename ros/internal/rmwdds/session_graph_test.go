package rmwdds

import (
	"slices"
	"testing"

	"github.com/afor-go/afor/ros/internal/rmw"
)

// TestSessionGraphRemoteEndpoints checks that a session's graph has the
// other session's topics and services, learnt from SEDP and tied to its
// node by ros_discovery_info, and drops them when they close.
func TestSessionGraphRemoteEndpoints(t *testing.T) {
	a, b := sessionPair(t)
	na, err := a.CreateNode(rmw.NodeName{Namespace: "/ns", Name: "talker"})
	if err != nil {
		t.Fatal(err)
	}
	pub, err := na.CreatePublisher("/ns/chatter", stringType, qosDefault)
	if err != nil {
		t.Fatal(err)
	}
	srv, err := na.CreateService("/ns/set_flag", setBool, qosDefault, func(rmw.Request) {})
	if err != nil {
		t.Fatal(err)
	}
	talker := rmw.NodeName{Namespace: "/ns", Name: "talker", Enclave: "/"}
	has := func(g *rmw.Graph, k rmw.EndpointKind, name, typ string, gid rmw.GID) bool {
		return slices.ContainsFunc(g.Endpoints, func(e rmw.Endpoint) bool {
			return e.Kind == k && e.Name == name && e.Type == typ && e.Node == talker && e.GID == gid
		})
	}
	waitGraph(t, b, func(g *rmw.Graph) bool {
		return slices.Contains(g.Nodes, talker) &&
			has(g, rmw.KindPublisher, "/ns/chatter", "std_msgs/msg/String", pub.GID()) &&
			has(g, rmw.KindService, "/ns/set_flag", "std_srvs/srv/SetBool", srv.GID())
	})
	_ = pub.Close()
	waitGraph(t, b, func(g *rmw.Graph) bool {
		return !has(g, rmw.KindPublisher, "/ns/chatter", "std_msgs/msg/String", pub.GID()) &&
			has(g, rmw.KindService, "/ns/set_flag", "std_srvs/srv/SetBool", srv.GID())
	})
	// The session leaving takes its node and endpoints with it.
	_ = a.Close()
	waitGraph(t, b, func(g *rmw.Graph) bool {
		return !slices.Contains(g.Nodes, talker) && !slices.ContainsFunc(g.Endpoints, func(e rmw.Endpoint) bool { return e.Node == talker })
	})
}
