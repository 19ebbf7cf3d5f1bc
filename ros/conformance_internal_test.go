package ros

import (
	"context"
	"testing"

	"github.com/afor-go/afor"
	"github.com/afor-go/afor/afortest"
	"github.com/afor-go/afor/ros/cdr"
	"github.com/afor-go/afor/ros/msgs/std_msgs"
)

// echoService is a test service whose request and response are
// std_msgs/String.
type echoService struct{}

func (echoService) TypeName() string    { return "afor_test/srv/Echo" }
func (echoService) DDSTypeName() string { return "afor_test::srv::dds_::Echo_" }
func (echoService) TypeHash() string {
	return "RIHS01_0000000000000000000000000000000000000000000000000000000000000001"
}
func (echoService) RequestCodec() cdr.MessageCodec[std_msgs.String, *std_msgs.String] {
	return cdr.Codec[std_msgs.String]()
}
func (echoService) ResponseCodec() cdr.MessageCodec[std_msgs.String, *std_msgs.String] {
	return cdr.Codec[std_msgs.String]()
}

// strRequester carries string requests as std_msgs/String ones.
type strRequester struct {
	r afor.Requester[std_msgs.String, std_msgs.String]
}

func (s strRequester) Send(ctx context.Context, req string, reply func(string, error)) (func(), error) {
	return s.r.Send(ctx, std_msgs.String{Data: req}, func(res std_msgs.String, err error) { reply(res.Data, err) })
}

func (s strRequester) WaitReady(ctx context.Context) error { return s.r.WaitReady(ctx) }

func conformanceNode(t *testing.T, net *MemoryNetwork, name string) *Node {
	t.Helper()
	n, err := NewNode(context.Background(), name, WithMiddleware(Memory(net)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = n.Close() })
	return n
}

func stringClient(t *testing.T, n *Node, name string) *afor.Client[string, string] {
	t.Helper()
	r, err := newRequester(n, name, echoService{})
	if err != nil {
		t.Fatal(err)
	}
	return afor.NewClient[string, string](strRequester{r})
}

// TestConformanceReqRep runs afortest.RunReqRep over a ROS service on the
// in-memory middleware. The ROS server's requests are bridged, with their
// answers, to a string server by one goroutine.
func TestConformanceReqRep(t *testing.T) {
	afortest.RunReqRep(t, afortest.ReqRep{
		Synctest: true,
		New: func(t *testing.T) (*afor.Server[string, string], *afor.Client[string, string]) {
			net := NewMemoryNetwork()
			srvNode := conformanceNode(t, net, "server")
			rosSrv, err := NewServer(srvNode, "echo", echoService{})
			if err != nil {
				t.Fatal(err)
			}
			srv := afor.NewServer[string, string]()
			srv.OnClose(rosSrv.Close)
			go func() {
				defer srv.Close()
				for r := range rosSrv.ListenReliable(context.Background()) {
					resp := afor.NewResponder(r.Request.Data, func(res string, err error) error {
						if err != nil {
							return r.Fail(err)
						}
						return r.Respond(std_msgs.String{Data: res})
					})
					if !srv.Input(resp) {
						_ = r.Fail(afor.ErrRequestDropped)
					}
				}
			}()
			return srv, stringClient(t, conformanceNode(t, net, "client"), "echo")
		},
		NoServer: func(t *testing.T) *afor.Client[string, string] {
			return stringClient(t, conformanceNode(t, NewMemoryNetwork(), "client"), "nobody")
		},
	})
}
