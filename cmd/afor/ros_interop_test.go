package main

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/afor-go/afor/internal/netns"
	"github.com/afor-go/afor/internal/peers"
)

// rclpyDomain hands each test its own ROS domain (200 to 231: the ros
// packages' tests take 100 to 199), so that one test's peers never see
// another's.
var rclpyDomain atomic.Int32

// rosWorld is an rclpy peer set-up: the Python to run and the environment
// both sides share.
type rosWorld struct {
	t   *testing.T
	py  string
	env []string // for the binary and the peers alike
}

func newROSWorld(t *testing.T) *rosWorld {
	netns.Require(t)
	py := peers.Python(t, "rclpy", "std_msgs.msg", "std_srvs.srv", "test_msgs.action")
	d := 200 + int(rclpyDomain.Add(1)-1)%32
	return &rosWorld{t: t, py: py, env: []string{
		"ROS_DOMAIN_ID=" + strconv.Itoa(d), "ROS_AUTOMATIC_DISCOVERY_RANGE=SUBNET",
		"RMW_IMPLEMENTATION=rmw_fastrtps_cpp", "FASTDDS_BUILTIN_TRANSPORTS=UDPv4",
	}}
}

// peer starts testdata/rclpy_peer.py in a role and waits for it to be ready.
func (w *rosWorld) peer(ctx context.Context, args ...string) (*proc, map[string]any) {
	p := start(w.t, w.env, w.py, append([]string{filepath.Join("testdata", "rclpy_peer.py")}, args...)...)
	return p, p.event(ctx, "ready")
}

func (w *rosWorld) afor(ctx context.Context, args ...string) (int, string) {
	return runAfor(ctx, w.t, w.env, args...)
}

func TestROSListsRclpyNodeAndTopics(t *testing.T) {
	w := newROSWorld(t)
	ctx := testCtx(t, 120*time.Second)
	w.peer(ctx, "talker", "/afor_chatter", "std_msgs/msg/String", "10")
	code, out := w.afor(ctx, "topic", "list", "-t", "--spin-time", "2s")
	if code != 0 || !strings.Contains(out, "/afor_chatter [std_msgs/msg/String]\n") || !strings.Contains(out, "/rosout [rcl_interfaces/msg/Log]\n") {
		t.Fatalf("topic list: exit %d:\n%s", code, out)
	}
	code, out = w.afor(ctx, "node", "list", "--spin-time", "2s")
	if code != 0 || !strings.Contains(out, "/py_talker\n") || strings.Contains(out, "_afor_cli") {
		t.Fatalf("node list: exit %d:\n%s", code, out)
	}
	code, out = w.afor(ctx, "node", "info", "/py_talker", "--spin-time", "2s")
	if code != 0 || !strings.Contains(out, "  Publishers:\n") || !strings.Contains(out, "    /afor_chatter: std_msgs/msg/String\n") ||
		!strings.Contains(out, "    /py_talker/get_parameters: rcl_interfaces/srv/GetParameters\n") {
		t.Fatalf("node info: exit %d:\n%s", code, out)
	}
	code, out = w.afor(ctx, "topic", "info", "/afor_chatter", "-v", "--spin-time", "2s")
	if code != 0 || !strings.Contains(out, "Node name: py_talker\n") || !strings.Contains(out, "Topic type hash: RIHS01_") {
		t.Fatalf("topic info -v: exit %d:\n%s", code, out)
	}
}

// echoOracle asks ros/dynmsg's oracle (rclpy and the yaml.dump call of
// ros2 topic echo) what `ros2 topic echo` prints for a payload.
func echoOracle(t *testing.T, py, typ, hexPayload string) string {
	t.Helper()
	req, _ := json.Marshal(map[string]any{
		"mode":    "echo",
		"cases":   []map[string]string{{"type": typ, "hex": hexPayload}},
		"options": []map[string]any{{"truncate": 128, "no_arr": false, "no_str": false, "flow": false}},
	})
	cmd := exec.Command(py, filepath.Join("..", "..", "ros", "dynmsg", "testdata", "echo_oracle.py"))
	cmd.Stdin = strings.NewReader(string(req))
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("echo oracle: %v", err)
	}
	var res []struct {
		YAML  []string `json:"yaml"`
		Error string   `json:"error"`
	}
	if err := json.Unmarshal(out, &res); err != nil || len(res) != 1 || len(res[0].YAML) != 1 {
		t.Fatalf("echo oracle answered %s (%v)", out, err)
	}
	return res[0].YAML[0]
}

// envROS2CLI names the ros2 command (ros2cli's Kilted sources installed
// with pip next to the rclpy wheels): when set, the echo test compares
// afor's output with that of the real `ros2 topic echo`.
const envROS2CLI = "AFOR_ROS2_CLI"

func TestROSEchoPrintsWhatRos2Prints(t *testing.T) {
	w := newROSWorld(t)
	for _, c := range []struct {
		typ    string
		golden string // "" to ask the oracle
	}{
		{"std_msgs/msg/String", "data: Hello World\n---\n"},
		{"test_msgs/msg/BasicTypes", ""},
		{"test_msgs/msg/Arrays", ""},
		{"geometry_msgs/msg/PoseStamped", ""},
	} {
		t.Run(strings.ReplaceAll(c.typ, "/", "_"), func(t *testing.T) {
			w.t = t
			ctx := testCtx(t, 120*time.Second)
			topic := "/afor_echo_" + strings.ReplaceAll(c.typ, "/", "_")
			_, ready := w.peer(ctx, "talker", topic, c.typ, "20")
			want := c.golden
			if want == "" {
				want = echoOracle(t, w.py, c.typ, ready["hex"].(string)) + "---\n"
			}
			code, out := w.afor(ctx, "topic", "echo", topic, "--once", "--spin-time", "5s")
			if code != 0 || out != want {
				t.Fatalf("topic echo --once: exit %d, printed\n%s\nwant\n%s", code, out, want)
			}
			// The real ros2 CLI, when one is named, prints the same.
			if ros2 := os.Getenv(envROS2CLI); ros2 != "" {
				p := start(t, w.env, ros2, "topic", "echo", "--once", "--no-daemon", topic)
				if code, ref := p.wait(ctx); code != 0 || ref != out {
					t.Errorf("ros2 topic echo --once: exit %d, printed\n%s\nafor printed\n%s", code, ref, out)
				}
			}
			// And with the type given, as JSON.
			code, out = w.afor(ctx, "topic", "echo", topic, c.typ, "--once", "--json")
			if code != 0 || !strings.HasPrefix(out, "{") || strings.Count(out, "\n") != 1 {
				t.Fatalf("topic echo --json: exit %d:\n%s", code, out)
			}
		})
	}
}

func TestROSPubReachesRclpyListener(t *testing.T) {
	w := newROSWorld(t)
	ctx := testCtx(t, 120*time.Second)
	listener, _ := w.peer(ctx, "listener", "/afor_pub")
	code, out := w.afor(ctx, "topic", "pub", "/afor_pub", "std_msgs/msg/String", "{data: 'from afor'}", "--once")
	if code != 0 || !strings.Contains(out, "publishing #1: std_msgs.msg.String(data='from afor')") {
		t.Fatalf("topic pub: exit %d:\n%s", code, out)
	}
	if ev := listener.event(ctx, "msg"); ev["data"] != "from afor" {
		t.Fatalf("listener got %v", ev)
	}
}

var hzLine = regexp.MustCompile(`^average rate: ([0-9.]+)$`)

func TestROSHzOfRclpyPublisher(t *testing.T) {
	w := newROSWorld(t)
	ctx := testCtx(t, 120*time.Second)
	w.peer(ctx, "talker", "/afor_hz", "std_msgs/msg/String", "10")
	hz := start(t, w.env, aforBinary(t), "topic", "hz", "/afor_hz")
	var rate float64
	for range 3 { // the third report averages over about 3 s of messages
		l := hz.nextLine(ctx, "average rate:")
		m := hzLine.FindStringSubmatch(l)
		if m == nil {
			t.Fatalf("hz printed %q", l)
		}
		rate, _ = strconv.ParseFloat(m[1], 64)
		stats := hz.nextLine(ctx, "min:")
		if !regexp.MustCompile(`^\tmin: [0-9.]+s max: [0-9.]+s std dev: [0-9.]+s window: [0-9]+$`).MatchString(stats) {
			t.Fatalf("hz printed %q", stats)
		}
	}
	if rate < 9.5 || rate > 10.5 {
		t.Errorf("hz reports %.3f Hz of a 10 Hz publisher, want within 5%%:\n%s", rate, hz.output())
	}
	// Ctrl-C ends it cleanly.
	if err := hz.cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	if code, _ := hz.wait(ctx); code != 0 {
		t.Errorf("hz exit code %d after Ctrl-C", code)
	}
}

func TestROSServiceCallRclpyServer(t *testing.T) {
	w := newROSWorld(t)
	ctx := testCtx(t, 120*time.Second)
	server, _ := w.peer(ctx, "server", "/afor_flag")
	code, out := w.afor(ctx, "service", "call", "/afor_flag", "std_srvs/srv/SetBool", "{data: true}")
	want := "requester: making request: std_srvs.srv.SetBool_Request(data=True)\n\nresponse:\nstd_srvs.srv.SetBool_Response(success=True, message='py got True')\n\n"
	if code != 0 || !strings.HasSuffix(out, want) {
		t.Fatalf("service call: exit %d, printed\n%s\nwant\n%s", code, out, want)
	}
	if ev := server.event(ctx, "call"); ev["data"] != true {
		t.Fatalf("server got %v", ev)
	}
	code, out = w.afor(ctx, "service", "list", "-t", "--spin-time", "2s")
	if code != 0 || !strings.Contains(out, "/afor_flag [std_srvs/srv/SetBool]\n") {
		t.Fatalf("service list: exit %d:\n%s", code, out)
	}
}

func TestROSParamGetSetRclpyNode(t *testing.T) {
	w := newROSWorld(t)
	ctx := testCtx(t, 120*time.Second)
	w.peer(ctx, "params")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"param", "get", "/py_params", "speed"}, "Integer value is: 5\n"},
		{[]string{"param", "get", "/py_params", "name"}, "String value is: py\n"},
		{[]string{"param", "get", "/py_params", "gains"}, "Double values are: array('d', [1.5, 2.0])\n"},
		{[]string{"param", "set", "/py_params", "speed", "8"}, "Set parameter successful\n"},
		{[]string{"param", "get", "/py_params", "speed"}, "Integer value is: 8\n"},
	} {
		code, out := w.afor(ctx, append(c.args, "--timeout", "10s")...)
		if code != 0 || out != c.want {
			t.Fatalf("%v: exit %d, printed %q, want %q", c.args, code, out, c.want)
		}
	}
	code, out := w.afor(ctx, "param", "dump", "/py_params")
	if code != 0 || !strings.Contains(out, "/py_params:\n  ros__parameters:\n") || !strings.Contains(out, "    speed: 8\n") ||
		!strings.Contains(out, "    gains:\n    - 1.5\n    - 2.0\n") {
		t.Fatalf("param dump: exit %d:\n%s", code, out)
	}
}

func TestROSActionSendGoalRclpyServer(t *testing.T) {
	w := newROSWorld(t)
	ctx := testCtx(t, 120*time.Second)
	w.peer(ctx, "action", "/afor_fibonacci")
	code, out := w.afor(ctx, "action", "send_goal", "/afor_fibonacci", "test_msgs/action/Fibonacci", "{order: 5}", "--feedback")
	if code != 0 {
		t.Fatalf("send_goal: exit %d:\n%s", code, out)
	}
	for _, want := range []string{
		"Waiting for an action server to become available...\nSending goal:\n     order: 5\n\nGoal accepted with ID: ",
		"Feedback:\n    sequence:\n- 0\n- 1\n- 1\n- 2\n- 3\n- 5\n\n",
		"Result:\n    sequence:\n- 0\n- 1\n- 1\n- 2\n- 3\n- 5\n\nGoal finished with status: SUCCEEDED\n",
	} {
		if !strings.Contains(out, want) {
			t.Fatalf("send_goal printed\n%s\nwithout\n%s", out, want)
		}
	}
	code, out = w.afor(ctx, "action", "list", "-t", "--spin-time", "2s")
	if code != 0 || !strings.Contains(out, "/afor_fibonacci [test_msgs/action/Fibonacci]\n") {
		t.Fatalf("action list: exit %d:\n%s", code, out)
	}
}

func TestROSErrorsSayWhatWasWrong(t *testing.T) {
	w := newROSWorld(t)
	ctx := testCtx(t, 120*time.Second)
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"topic", "echo", "/afor_nobody", "--spin-time", "200ms"}, 1, "/afor_nobody is not published yet"},
		{[]string{"topic", "pub", "/x", "std_msgs/msg/Strin", "{data: x}"}, 1, `unknown message type "std_msgs/msg/Strin"`},
		{[]string{"topic", "pub", "/x", "std_msgs/msg/String", "{dta: x}"}, 1, "malformed VALUES"},
		{[]string{"topic", "hz"}, 2, "takes 1 argument(s)"},
	} {
		code, _, errOut := runAforErr(ctx, t, w.env, c.args...)
		if code != c.code || !strings.Contains(errOut, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want %d and %q", c.args, code, errOut, c.code, c.want)
		}
	}
}
