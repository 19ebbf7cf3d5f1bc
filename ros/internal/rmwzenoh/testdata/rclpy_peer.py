"""An rclpy node for the Go rmw_zenoh interop test (interop_rmw_test.go).

Run it with a Python whose rclpy uses a real rmw_zenoh_cpp (see the test's
doc comment). Prints one JSON event per line on stdout (other lines are
logs), the first {"ev": "ready"}, and reads one JSON command per line:
  {"op": "pub", "data": S}       publish S on /py_chatter
  {"op": "sub_latched"}          subscribe to /go_latched (transient local,
                                 depth 5): messages are {"ev": "msg", ...}
  {"op": "call", "data": B}      call /go_set_flag -> {"ev": "reply", ...}
  {"op": "graph"}                -> {"ev": "graph", "nodes", "topics", "services"}
  {"op": "pubinfo", "topic": T}  -> {"ev": "pubinfo", "infos": [{"node": "ns|name",
                                 "type", "reliability", "durability", "depth",
                                 "deadline_ns"}, ...]}: T's publishers and their QoS
Messages received on /go_chatter and /go_latched are
{"ev": "msg", "topic": T, "data": S}. Exits when stdin closes.

Offers /py_set_flag (std_srvs/SetBool, answers "py got <data>") and a
transient-local /py_latched (depth 5) holding "py latched 0".."py latched 2".
"""

import json
import sys
import threading

import rclpy
from rclpy.executors import SingleThreadedExecutor
from rclpy.node import Node
from rclpy.qos import DurabilityPolicy, QoSProfile
from std_msgs.msg import String
from std_srvs.srv import SetBool

lock = threading.Lock()


def emit(**ev):
    with lock:
        sys.stdout.write(json.dumps(ev) + "\n")
        sys.stdout.flush()


def main():
    rclpy.init()
    node = Node("py_peer")
    latched_qos = QoSProfile(depth=5, durability=DurabilityPolicy.TRANSIENT_LOCAL)
    pub = node.create_publisher(String, "py_chatter", 10)
    latched = node.create_publisher(String, "py_latched", latched_qos)
    for i in range(3):
        latched.publish(String(data="py latched %d" % i))
    node.create_subscription(String, "go_chatter", lambda m: emit(ev="msg", topic="go_chatter", data=m.data), 10)

    def handle(req, res):
        res.success = req.data
        res.message = "py got %s" % req.data
        return res

    node.create_service(SetBool, "py_set_flag", handle)
    client = node.create_client(SetBool, "go_set_flag")
    executor = SingleThreadedExecutor()
    executor.add_node(node)
    spinner = threading.Thread(target=executor.spin, daemon=True)
    spinner.start()
    emit(ev="ready", rmw=rclpy.utilities.get_rmw_implementation_identifier())

    for line in sys.stdin:
        cmd = json.loads(line)
        op = cmd["op"]
        if op == "pub":
            pub.publish(String(data=cmd["data"]))
        elif op == "sub_latched":
            node.create_subscription(
                String, "go_latched", lambda m: emit(ev="msg", topic="go_latched", data=m.data), latched_qos)
        elif op == "call":
            if not client.wait_for_service(timeout_sec=10.0):
                emit(ev="reply", error="no service")
                continue
            done = threading.Event()
            fut = client.call_async(SetBool.Request(data=cmd["data"]))
            fut.add_done_callback(lambda f: done.set())
            done.wait(10.0)
            res = fut.result()
            emit(ev="reply", success=res.success, message=res.message)
        elif op == "pubinfo":
            emit(ev="pubinfo", infos=[{
                "node": "%s|%s" % (i.node_namespace, i.node_name),
                "type": i.topic_type,
                "reliability": int(i.qos_profile.reliability),
                "durability": int(i.qos_profile.durability),
                "depth": i.qos_profile.depth,
                "deadline_ns": i.qos_profile.deadline.nanoseconds,
            } for i in node.get_publishers_info_by_topic(cmd["topic"])])
        elif op == "graph":
            emit(ev="graph",
                 nodes=["%s|%s" % (ns, n) for n, ns in node.get_node_names_and_namespaces()],
                 topics={t: ts for t, ts in node.get_topic_names_and_types()},
                 services={s: ts for s, ts in node.get_service_names_and_types()})
    executor.shutdown()
    spinner.join(timeout=5)  # a thread inside rclpy at exit aborts rmw_zenoh_cpp
    node.destroy_node()
    rclpy.shutdown()


if __name__ == "__main__":
    main()
