package ros_test

import (
	"errors"
	"testing"
	"time"

	"github.com/afor-go/afor/ros"
)

func TestQoSProfiles(t *testing.T) {
	for _, c := range []struct {
		name  string
		q     ros.QoS
		depth int
		rel   ros.Reliability
		dur   ros.Durability
	}{
		{"default", ros.QoSDefault, 10, ros.Reliable, ros.Volatile},
		{"sensor_data", ros.QoSSensorData, 5, ros.BestEffort, ros.Volatile},
		{"services", ros.QoSServices, 10, ros.Reliable, ros.Volatile},
		{"parameters", ros.QoSParameters, 1000, ros.Reliable, ros.Volatile},
		{"parameter_events", ros.QoSParameterEvents, 1000, ros.Reliable, ros.Volatile},
		{"rosout", ros.QoSRosout, 1000, ros.Reliable, ros.TransientLocal},
	} {
		if c.q.History != ros.KeepLast || c.q.Depth != c.depth || c.q.Reliability != c.rel || c.q.Durability != c.dur {
			t.Errorf("%s = %v", c.name, c.q)
		}
		if err := c.q.Validate(); err != nil {
			t.Errorf("%s: %v", c.name, err)
		}
	}
	if ros.QoSRosout.Lifespan != 10*time.Second {
		t.Errorf("rosout lifespan %v", ros.QoSRosout.Lifespan)
	}
	if ros.QoSSystemDefault != (ros.QoS{}) {
		t.Errorf("system default %v", ros.QoSSystemDefault)
	}
	if q := ros.QoSKeepLast(3); q.Depth != 3 || q.Reliability != ros.Reliable {
		t.Errorf("QoSKeepLast(3) = %v", q)
	}
	if q := ros.QoSKeepAll(); q.History != ros.KeepAll {
		t.Errorf("QoSKeepAll() = %v", q)
	}
	if q := ros.QoSTransientLocal(1); q.Durability != ros.TransientLocal || q.Depth != 1 {
		t.Errorf("QoSTransientLocal(1) = %v", q)
	}
	if got := ros.QoSRosout.String(); got != "keep_last(1000), reliable, transient_local, lifespan 10s" {
		t.Errorf("String() = %q", got)
	}
}

func TestQoSValidate(t *testing.T) {
	for _, q := range []ros.QoS{
		{Depth: -1},
		{History: 3},
		{Reliability: 3},
		{Durability: 3},
		{Liveliness: 2},
		{Deadline: -time.Second},
		{Lifespan: -1},
		{LivelinessLease: -1},
	} {
		if err := q.Validate(); !errors.Is(err, ros.ErrInvalidQoS) {
			t.Errorf("Validate(%+v) = %v", q, err)
		}
	}
}
