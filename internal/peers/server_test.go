package peers

import (
	"os"
	"os/exec"
	"regexp"
	"testing"
)

func TestServerReadsReadyLineAndStopsOnStdinClose(t *testing.T) {
	sh := Command(t, "sh")
	cmd := exec.Command(sh, "-c", `echo starting; echo '{"ev": "ready", "endpoint": "tcp/127.0.0.1:7447"}'; cat >/dev/null`)
	ep := Server{Name: "the fake router", Ready: readyEndpoint}.Start(t, cmd)
	if ep != "tcp/127.0.0.1:7447" {
		t.Errorf("endpoint = %q, want tcp/127.0.0.1:7447", ep)
	}
}

func TestServerReadsStderrAndStopsWithStop(t *testing.T) {
	sh := Command(t, "sh")
	cmd := exec.Command(sh, "-c", `echo "reached at: tcp/127.0.0.1:1234" >&2; while :; do sleep 1; done`)
	re := regexp.MustCompile(`reached at: (\S+)`)
	s := Server{
		Name: "the fake daemon",
		Ready: func(line []byte) (string, bool) {
			if m := re.FindSubmatch(line); m != nil {
				return string(m[1]), true
			}
			return "", false
		},
		Stop:   func(c *exec.Cmd) error { return c.Process.Signal(os.Interrupt) },
		Stderr: true,
	}
	if ep := s.Start(t, cmd); ep != "tcp/127.0.0.1:1234" {
		t.Errorf("endpoint = %q, want tcp/127.0.0.1:1234", ep)
	}
}
