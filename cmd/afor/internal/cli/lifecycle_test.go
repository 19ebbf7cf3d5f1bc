package cli

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"testing"

	"github.com/afor-go/afor/ros"
	"github.com/afor-go/afor/ros/lifecycle"
)

func TestLifecycleCommands(t *testing.T) {
	w := newWorld(t)
	ctx := testCtx(t)
	n, err := ros.NewNode(ctx, "cam", ros.WithMiddleware(ros.Memory(w.net)), ros.WithNamespace("/robot"),
		ros.WithLogger(slog.New(slog.DiscardHandler)))
	if err != nil {
		t.Fatal(err)
	}
	lc, err := lifecycle.Manage(n, lifecycle.OnActivate(func(context.Context, lifecycle.State) error {
		return errors.New("no stream")
	}))
	if err != nil {
		t.Fatal(err)
	}
	defer lc.Close()
	for _, tc := range []struct {
		args     []string
		code     int
		out, err string
	}{
		{[]string{"lifecycle", "nodes"}, 0, "/robot/cam\n", ""},
		{[]string{"lifecycle", "nodes", "-c"}, 0, "1\n", ""},
		{[]string{"lifecycle", "get"}, 0, "/robot/cam: unconfigured [1]\n", ""},
		{[]string{"lifecycle", "get", "robot/cam"}, 0, "unconfigured [1]\n", ""},
		{[]string{"lifecycle", "get", "/peer"}, 1, "", "Node not found"},
		{[]string{"lifecycle", "list", "/robot/cam"}, 0,
			"- configure [1]\n\tStart: unconfigured\n\tGoal: configuring\n- shutdown [5]\n\tStart: unconfigured\n\tGoal: shuttingdown\n", ""},
		{[]string{"lifecycle", "set", "/robot/cam", "activate"}, 1, "",
			"Unknown transition requested, available ones are:\n- configure [1]\n- shutdown [5]\n"},
		{[]string{"lifecycle", "set", "/robot/cam", "1"}, 0, "Transitioning successful\n", ""},
		{[]string{"lifecycle", "get", "/robot/cam"}, 0, "inactive [2]\n", ""},
		{[]string{"lifecycle", "set", "/robot/cam", "activate"}, 1, "", "Transitioning failed\n"},
		{[]string{"lifecycle", "get", "/robot/cam"}, 0, "unconfigured [1]\n", ""},
		{[]string{"lifecycle", "set", "/robot/cam", "shutdown"}, 0, "Transitioning successful\n", ""},
		{[]string{"lifecycle", "get", "/robot/cam"}, 0, "finalized [4]\n", ""},
		{[]string{"lifecycle", "list", "/robot/cam"}, 0, "", ""},
		{[]string{"lifecycle", "set", "/robot/cam"}, 2, "", "takes 2 argument(s)"},
	} {
		code, out, errOut := w.run(ctx, tc.args...)
		if code != tc.code || out != tc.out || !strings.Contains(errOut, tc.err) {
			t.Errorf("%v: %d %q %q, want %d %q %q", tc.args, code, out, errOut, tc.code, tc.out, tc.err)
		}
	}
	code, out, _ := w.run(ctx, "lifecycle", "list", "/robot/cam", "-a")
	if code != 0 || strings.Count(out, "\n- ") != 24 || !strings.HasPrefix(out, "- configure [1]\n") {
		t.Errorf("list -a: %d\n%s", code, out)
	}
}
