// Package peers locates the reference peers that interop tests drive: the
// Python interpreter of the project's virtual environment (with eclipse-zenoh,
// the ROS 2 wheels and the Python afor installed by .ci/run) and optional
// hand-built programs such as zenoh-pico's examples.
//
// Rules: a registry-installable peer is required when the CI environment
// variable is set (its absence fails the test); outside CI the test skips with
// a message saying how to install it.
package peers

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// EnvPython names the variable that points at the Python interpreter of the
// virtual environment holding the reference peers.
const EnvPython = "AFOR_PYTHON"

// EnvPico names the variable that points at the folder of built zenoh-pico
// examples (z_pub, z_sub, ...).
const EnvPico = "ZENOH_PICO_EXAMPLES"

// ModuleRoot returns the directory holding go.mod, searching upwards from the
// working directory, or "" when none is found.
func ModuleRoot() string {
	dir, err := os.Getwd()
	if err != nil {
		return ""
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}

// PythonPath returns the interpreter to use: $AFOR_PYTHON, else
// <module root>/.venv/bin/python when it exists, else "".
func PythonPath() string {
	if p := os.Getenv(EnvPython); p != "" {
		return p
	}
	if root := ModuleRoot(); root != "" {
		p := filepath.Join(root, ".venv", "bin", "python")
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	return ""
}

// Python returns the reference-peer interpreter after checking that it can
// import every module in modules. Without it the test is skipped, or failed
// when running in CI (CI is set), where .ci/run must have installed it.
func Python(t testing.TB, modules ...string) string {
	t.Helper()
	p := PythonPath()
	if p == "" {
		missing(t, "no Python virtual environment: run .ci/setup-peers (or set "+EnvPython+")")
		return ""
	}
	for _, m := range modules {
		out, err := exec.Command(p, "-c", "import "+m).CombinedOutput()
		if err != nil {
			missing(t, "python module "+m+" not importable with "+p+": "+string(out))
			return ""
		}
	}
	return p
}

// Pico returns the path of a zenoh-pico example program, or skips the test
// when ZENOH_PICO_EXAMPLES is unset. Pico is hand-built, so it never fails
// for being absent, even in CI.
func Pico(t testing.TB, program string) string {
	t.Helper()
	dir := os.Getenv(EnvPico)
	if dir == "" {
		t.Skip(EnvPico + " is unset: build zenoh-pico's examples outside the repo and point it at their folder")
	}
	p := filepath.Join(dir, program)
	if _, err := os.Stat(p); err != nil {
		t.Skipf("%s: %v", program, err)
	}
	return p
}

func missing(t testing.TB, why string) {
	t.Helper()
	if os.Getenv("CI") != "" {
		t.Fatal("reference peer missing in CI: " + why)
	}
	t.Skip(why)
}
