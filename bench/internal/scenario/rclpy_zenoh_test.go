package scenario

import (
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/afor-go/afor/internal/peers"
)

// TestRclpyZenohEcho runs the rclpy-on-rmw_zenoh echo rows briefly, in two
// processes and in one; it skips unless AFOR_RMW_ZENOH_PYTHON names a
// launcher (a hand-built peer).
func TestRclpyZenohEcho(t *testing.T) {
	if r, rep := RunEchoRclpyZenoh(t.Context(), "", "", PythonPlainRclpyZenoh, time.Millisecond, 0); r.Failed != 1 || !strings.Contains(r.Error, EnvRMWZenohPython) || rep != nil {
		t.Fatalf("no launcher: %+v", r)
	}
	launcher := os.Getenv(EnvRMWZenohPython)
	if launcher == "" {
		t.Skipf("set %s to a launcher of Python with rclpy on rmw_zenoh_cpp", EnvRMWZenohPython)
	}
	py := peers.Python(t, RouterModules()...)
	for _, mode := range append(RclpyZenohModes(), RclpyZenoh1PModes()...) {
		r, rep := RunEchoRclpyZenoh(t.Context(), launcher, py, mode, 300*time.Millisecond, 200*time.Millisecond)
		if r.Error != "" || r.Ops <= 0 || rep == nil || rep.Rclpy == "" {
			t.Fatalf("%s: %+v %+v", mode, r, rep)
		}
		oneProcess := slices.Contains(RclpyZenoh1PModes(), mode)
		if want := map[bool]string{false: ROSZenohProc().Name, true: ROSZenoh().Name}[oneProcess]; mode.GoTransport() != want ||
			oneProcess != strings.HasPrefix(r.Note, "one process, one node") {
			t.Errorf("%s: compared with %q, note %q", mode, mode.GoTransport(), r.Note)
		}
	}
}
