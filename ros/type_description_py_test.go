package ros

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/afor-go/afor/ros/cdr"
	"github.com/afor-go/afor/ros/dynmsg"
	"github.com/afor-go/afor/ros/idl"
	"github.com/afor-go/afor/ros/interfaces"
	"github.com/afor-go/afor/ros/msgs/geometry_msgs"
	"github.com/afor-go/afor/ros/msgs/sensor_msgs"
	"github.com/afor-go/afor/ros/msgs/std_srvs"
	"github.com/afor-go/afor/ros/msgs/test_msgs"
)

// Against rclpy on Fast DDS: rclpy gets a Go node's type descriptions
// (~/get_type_description) equal to those its own node gives for the same
// types (default values included), and a Go client gets an rclpy node's,
// equal to those the Go registry computes, with their sources.
func TestTypeDescriptionInteropRclpy(t *testing.T) {
	peer := rclpyMiddleware(t, "std_msgs", "test_msgs", "sensor_msgs", "geometry_msgs", "std_srvs", "type_description_interfaces",
		"afor_test_msgs")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	// afor_test_msgs: a package afor neither ships nor generates; the Go
	// node has its definitions at run time only.
	custom := os.DirFS(filepath.Join("testdata", "interfaces"))
	c, err := Open(ctx, WithMiddleware(peer.mw), WithDomainID(peer.domain), WithLogger(slog.New(slog.DiscardHandler)),
		WithInterfaces(custom))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	n, err := c.NewNode("go_types")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := NewPublisher[test_msgs.Defaults](n, "/types/defaults", QoSDefault); err != nil {
		t.Fatal(err)
	}
	if _, err := NewPublisher[sensor_msgs.NavSatStatus](n, "/types/nav", QoSDefault); err != nil {
		t.Fatal(err)
	}
	if _, err := NewPublisher[geometry_msgs.PoseStamped](n, "/types/pose", QoSDefault); err != nil {
		t.Fatal(err)
	}
	if _, err := NewServer(n, "/types/set", std_srvs.SetBool{}); err != nil {
		t.Fatal(err)
	}
	customReg := idl.NewRegistry()
	if err := customReg.LoadFS(custom); err != nil {
		t.Fatal(err)
	}
	if err := interfaces.Load(customReg); err != nil {
		t.Fatal(err)
	}
	readingHash, err := customReg.TypeHash("afor_test_msgs/msg/Reading")
	if err != nil {
		t.Fatal(err)
	}
	reading := RawType{Name: "afor_test_msgs/msg/Reading", Hash: readingHash}
	if _, err := NewRawPublisher(n, "/types/reading_go", reading, QoSDefault); err != nil {
		t.Fatal(err)
	}
	types := []cdr.Named{&test_msgs.Defaults{}, &sensor_msgs.NavSatStatus{}, &geometry_msgs.PoseStamped{}, std_srvs.SetBool{},
		rawNamed(reading)}
	py := startPyEvents(t, peer, "rclpy_typedesc.py")
	py.next(ctx, isEvent("ready"))

	// rclpy asks the Go node, and its own, for each type.
	for _, typ := range types {
		py.sendJSON(map[string]any{"cmd": "compare", "node": "/go_types", "name": typ.TypeName(), "hash": typ.TypeHash()})
		e := py.next(ctx, isEvent("compared"))
		if ok, _ := e["ok"].(bool); !ok {
			t.Errorf("%s: the Go node failed: %v", typ.TypeName(), e["reason"])
			continue
		}
		if eq, _ := e["equal"].(bool); !eq {
			goD, _ := json.Marshal(e["go"])
			pyD, _ := json.Marshal(e["py"])
			t.Errorf("%s: the Go node's description\n%s\nrclpy's\n%s", typ.TypeName(), goD, pyD)
		}
	}
	// A type the Go node does not use.
	py.sendJSON(map[string]any{"cmd": "describe", "node": "/go_types", "name": "std_msgs/msg/Bool", "hash": "RIHS01_feb91e995ff9ebd09c0cb3d2aed18b11077585839fb5db80193b62d74528f6c9"})
	if e := py.next(ctx, isEvent("described")); e["ok"] != false || e.str("reason") != "Type not currently in use by this node" {
		t.Errorf("an unused type: %v", e)
	}

	// The Go client asks the rclpy node.
	reg := customReg
	tc, err := NewTypeDescriptionClient(n, "/py_types")
	if err != nil {
		t.Fatal(err)
	}
	if err := tc.WaitReady(ctx); err != nil {
		t.Fatal(err)
	}
	for _, typ := range types {
		info, err := tc.Get(ctx, typ.TypeName(), typ.TypeHash(), true)
		if err != nil {
			t.Errorf("%s: %v", typ.TypeName(), err)
			continue
		}
		want, err := reg.TypeDescription(typ.TypeName())
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(info.Description, want) {
			t.Errorf("%s: rclpy's description\n%+v\nours\n%+v", typ.TypeName(), info.Description, want)
		}
		if len(info.Sources) != 1+len(want.Referenced) || info.Sources[0].TypeName != typ.TypeName() || info.Sources[0].Contents == "" {
			t.Errorf("%s: sources %+v", typ.TypeName(), info.Sources)
		}
	}
	if _, err := tc.Get(ctx, "std_msgs/msg/Bool", "RIHS01_feb91e995ff9ebd09c0cb3d2aed18b11077585839fb5db80193b62d74528f6c9", false); !errors.Is(err, ErrTypeDescription) {
		t.Errorf("a type rclpy does not use: %v", err)
	}

	// A Go node with no definition of afor_test_msgs hears rclpy's
	// readings: the type, as rclpy's node describes it, with the hash the
	// graph advertises.
	g, err := n.Graph().WaitFor(ctx, func(g *GraphSnapshot) bool { return len(g.Publishers("/types/reading")) > 0 })
	if err != nil {
		t.Fatal(err)
	}
	ep := g.Publishers("/types/reading")[0]
	info, err := tc.Get(ctx, ep.Type, ep.TypeHash, false)
	if err != nil {
		t.Fatal(err)
	}
	typ, err := dynmsg.NewTypeFromDescription(info.Description)
	if err != nil {
		t.Fatal(err)
	}
	if typ.Hash() != ep.TypeHash || typ.Hash() != readingHash {
		t.Fatalf("the described type hashes to %s; the graph says %s, our definition %s", typ.Hash(), ep.TypeHash, readingHash)
	}
	sub, err := SubscribeRaw(n, "/types/reading", RawType{Name: typ.Name(), Hash: typ.Hash()}, QoSDefault)
	if err != nil {
		t.Fatal(err)
	}
	m, err := sub.WaitForNext(ctx)
	if err != nil {
		t.Fatal(err)
	}
	msg, err := typ.Decode(m.Payload)
	if err != nil {
		t.Fatal(err)
	}
	if got := typ.FormatYAML(msg, dynmsg.FormatOptions{FlowStyle: true}); !strings.Contains(got, "kind: 2\nvalues: [0.5, 1.5, 2.5]\nlabel: py\nsamples: [{id: 7, ok: true, tags: [x]}]") {
		t.Errorf("rclpy's reading, decoded:\n%s", got)
	}
}
