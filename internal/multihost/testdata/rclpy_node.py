"""An rclpy node (Fast DDS) for the multi-host tests: the twin of the Go
node role (node_role_test.go), driven by the same JSON commands, one per
line on stdin, answering with the same events on stdout.

Usage: rclpy_node.py NAME

Every message is a sensor_msgs/Image whose header carries the time it was
published and its sequence number (frame_id). Commands:

  {"op":"pub","id":I,"topic":T,"qos":Q,"n":N,"hz":H,"size":S,"subs":K}
      -> {"ev":"pubdone","id":I,"n":N}
  {"op":"stop","id":I}
  {"op":"sub","topic":T,"qos":Q} -> {"ev":"recv","topic":T,"seq":N,"lat":ns,"size":S}
  {"op":"serve","service":S}     a std_srvs/SetBool server
  {"op":"call","id":I,"service":S,"n":N} -> {"ev":"called","id":I,"ok":K,"rtt":[ns]}
  {"op":"action_server","action":A}    a test_msgs/Fibonacci server
  {"op":"goal","id":I,"action":A,"order":N}
      -> {"ev":"result","id":I,"status":S,"sequence":[...],"feedback":K}
  {"op":"graph","id":I,"nodes":[...],"topics":[...],"services":[...]}
      -> {"ev":"graph","id":I,"nodes":[...]}

Q is {"reliable":bool,"depth":D (0: keep all),"transient_local":bool}.
Starts with {"ev":"ready"}; exits when stdin closes. Run with
RMW_IMPLEMENTATION=rmw_fastrtps_cpp, FASTDDS_BUILTIN_TRANSPORTS=UDPv4 and
ROS_DOMAIN_ID (and the discovery variables) set.
"""

import json
import sys
import threading
import time

import rclpy
from rclpy.action import ActionClient, ActionServer, GoalResponse
from rclpy.callback_groups import ReentrantCallbackGroup
from rclpy.executors import MultiThreadedExecutor
from rclpy.qos import DurabilityPolicy, HistoryPolicy, QoSProfile, ReliabilityPolicy
from sensor_msgs.msg import Image
from std_srvs.srv import SetBool
from test_msgs.action import Fibonacci

lock = threading.Lock()


class SafeActionClient(ActionClient):
    """An ActionClient that can be made while an executor spins.

    rclpy adds the client to its node before it sets the client's lock: an
    executor thread that counts the node's entities in between fails with
    "'ActionClient' object has no attribute '_lock'" and stops spinning.
    """

    def __init__(self, *args, **kwargs):
        self._lock = threading.Lock()
        super().__init__(*args, **kwargs)


def emit(**ev):
    line = json.dumps(ev) + "\n"
    with lock:
        sys.stdout.write(line)
        sys.stdout.flush()


def qos_of(q):
    q = q or {}
    depth = q.get("depth", 0)
    return QoSProfile(
        history=HistoryPolicy.KEEP_LAST if depth > 0 else HistoryPolicy.KEEP_ALL,
        depth=max(depth, 1),
        reliability=ReliabilityPolicy.RELIABLE if q.get("reliable") else ReliabilityPolicy.BEST_EFFORT,
        durability=DurabilityPolicy.TRANSIENT_LOCAL if q.get("transient_local") else DurabilityPolicy.VOLATILE,
    )


class Node:
    def __init__(self, name):
        self.node = rclpy.create_node(name)
        self.group = ReentrantCallbackGroup()
        self.pubs = {}
        self.stops = {}
        self.keep = []

    def run(self, c):
        getattr(self, "op_" + c["op"])(c)

    def op_stop(self, c):
        ev = self.stops.get(c.get("id"))
        if ev:
            ev.set()

    def op_pub(self, c):
        topic = c["topic"]
        pub = self.pubs.get(topic)
        if pub is None:
            pub = self.node.create_publisher(Image, topic, qos_of(c.get("qos")))
            self.pubs[topic] = pub
        stop = threading.Event()
        if c.get("id"):
            self.stops[c["id"]] = stop
        subs = c.get("subs", 0)
        while subs > 0 and pub.get_subscription_count() < subs and not stop.is_set():
            time.sleep(0.01)
        n, hz, size = c.get("n", 1), c.get("hz", 0), c.get("size", 0)
        data = bytes(size)
        start = time.time()
        sent = 0
        i = 0
        while (n < 0 or i < n) and not stop.is_set():
            if hz > 0:
                delay = start + i / hz - time.time()
                if delay > 0:
                    if stop.wait(delay):
                        break
            msg = Image()
            now = time.time_ns()
            msg.header.stamp.sec = now // 1_000_000_000
            msg.header.stamp.nanosec = now % 1_000_000_000
            msg.header.frame_id = str(i)
            msg.height, msg.width, msg.step, msg.encoding = 1, size, size, "mono8"
            msg.data = data
            pub.publish(msg)
            sent += 1
            i += 1
        emit(ev="pubdone", id=c.get("id", ""), n=sent, elapsed=int((time.time() - start) * 1e9))

    def op_sub(self, c):
        topic = c["topic"]

        def on_msg(m):
            now = time.time_ns()
            sent = m.header.stamp.sec * 1_000_000_000 + m.header.stamp.nanosec
            emit(ev="recv", topic=topic, seq=int(m.header.frame_id or 0), lat=now - sent, size=len(m.data), t=now)

        # The node's default group runs one callback at a time: messages
        # are reported in the order they arrive.
        self.keep.append(self.node.create_subscription(Image, topic, on_msg, qos_of(c.get("qos"))))

    def op_serve(self, c):
        def on_request(req, res):
            res.success = True
            res.message = "ok " + ("true" if req.data else "false")
            return res

        self.keep.append(self.node.create_service(SetBool, c["service"], on_request, callback_group=self.group))

    def op_call(self, c):
        cli = self.node.create_client(SetBool, c["service"], callback_group=self.group)
        cli.wait_for_service()
        ok, rtts = 0, []
        for i in range(max(c.get("n", 1), 1)):
            req = SetBool.Request()
            req.data = i % 2 == 0
            start = time.time_ns()
            fut = cli.call_async(req)
            done = threading.Event()
            fut.add_done_callback(lambda _f: done.set())
            if not done.wait(10):
                emit(ev="error", error="call %s #%d timed out" % (c.get("id"), i))
                continue
            res = fut.result()
            rtts.append(time.time_ns() - start)
            if res.success and res.message == "ok " + ("true" if req.data else "false"):
                ok += 1
        emit(ev="called", id=c.get("id", ""), ok=ok, rtt=rtts)

    def op_action_server(self, c):
        def on_goal(goal):
            return GoalResponse.ACCEPT if goal.order >= 0 else GoalResponse.REJECT

        def execute(handle):
            order = handle.request.order
            seq = [0, 1]
            for i in range(1, order):
                seq.append(seq[i] + seq[i - 1])
                fb = Fibonacci.Feedback()
                fb.sequence = list(seq)
                handle.publish_feedback(fb)
                time.sleep(0.01)
            handle.succeed()
            return Fibonacci.Result(sequence=seq[:max(order + 1, 1)])

        self.keep.append(ActionServer(self.node, Fibonacci, c["action"], execute_callback=execute,
                                      goal_callback=on_goal, callback_group=self.group))

    def op_goal(self, c):
        cl = SafeActionClient(self.node, Fibonacci, c["action"], callback_group=self.group)
        cl.wait_for_server()
        feedback = [0]

        def on_feedback(_fb):
            feedback[0] += 1

        done = threading.Event()
        fut = cl.send_goal_async(Fibonacci.Goal(order=c["order"]), feedback_callback=on_feedback)
        fut.add_done_callback(lambda _f: done.set())
        done.wait(30)
        handle = fut.result()
        if not handle.accepted:
            emit(ev="result", id=c.get("id", ""), status=-1, sequence=[], feedback=0)
            return
        done = threading.Event()
        rfut = handle.get_result_async()
        rfut.add_done_callback(lambda _f: done.set())
        done.wait(30)
        r = rfut.result()
        emit(ev="result", id=c.get("id", ""), status=r.status, sequence=list(r.result.sequence), feedback=feedback[0])

    def op_graph(self, c):
        while True:
            names = sorted((ns.rstrip("/") + "/" + n) for n, ns in self.node.get_node_names_and_namespaces())
            topics = {t for t, _ in self.node.get_topic_names_and_types()}
            services = {s for s, _ in self.node.get_service_names_and_types()}
            if (all(n in names for n in c.get("nodes", [])) and all(t in topics for t in c.get("topics", []))
                    and all(s in services for s in c.get("services", []))):
                emit(ev="graph", id=c.get("id", ""), nodes=names)
                return
            time.sleep(0.05)


def main():
    rclpy.init()
    n = Node(sys.argv[1] if len(sys.argv) > 1 else "py_node")
    executor = MultiThreadedExecutor(num_threads=4)
    executor.add_node(n.node)
    threading.Thread(target=executor.spin, daemon=True).start()
    emit(ev="ready", t=time.time_ns())
    for line in sys.stdin:
        line = line.strip()
        if not line:
            continue
        try:
            c = json.loads(line)
        except ValueError as e:
            emit(ev="error", error="command %r: %s" % (line, e))
            continue

        def run(c=c):
            try:
                n.run(c)
            except Exception as e:  # noqa: BLE001 - reported to the test
                emit(ev="error", error="%s %s: %r" % (c.get("op"), c.get("id", ""), e))

        if c.get("op") == "stop":
            run()
        else:
            threading.Thread(target=run, daemon=True).start()
    executor.shutdown(timeout_sec=1)
    n.node.destroy_node()
    rclpy.try_shutdown()


main()
