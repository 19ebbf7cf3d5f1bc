package scenario

import (
	"slices"
	"testing"
)

// Every Python echo variant is compared with a Go transport of the
// harness, in the same layout: one process or two.
func TestPythonModeGoTransport(t *testing.T) {
	var names []string
	for _, tr := range Transports() {
		names = append(names, tr.Name)
	}
	modes := append([]PythonMode{PythonInproc, PythonZenoh, PythonZenohProc, PythonRclpy, PythonRclpyEvents, PythonAforRclpy},
		RclpyZenohModes()...)
	for _, m := range append(append(modes, Rclpy1PModes()...), RclpyZenoh1PModes()...) {
		got := m.GoTransport()
		if !slices.Contains(names, got) {
			t.Errorf("%s is compared with %q, no transport of the harness", m, got)
		}
	}
	for _, tr := range Transports() {
		if tr.Python != "" && tr.Python.GoTransport() != tr.Name {
			t.Errorf("%s runs with %s, which is compared with %s", tr.Name, tr.Python, tr.Python.GoTransport())
		}
	}
	for _, m := range Rclpy1PModes() {
		if m.GoTransport() != ROSDDS().Name {
			t.Errorf("%s is compared with %s, want ros-dds (one process)", m, m.GoTransport())
		}
	}
	for _, m := range RclpyZenoh1PModes() {
		if m.GoTransport() != ROSZenoh().Name {
			t.Errorf("%s is compared with %s, want ros-zenoh (one process)", m, m.GoTransport())
		}
	}
	if PythonMode("nope").GoTransport() != "" {
		t.Error("an unknown mode is compared with something")
	}
}
