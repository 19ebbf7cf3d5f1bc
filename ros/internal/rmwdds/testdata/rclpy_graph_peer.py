"""rclpy peer on Fast DDS for rmwdds's interop test (interop_py_test.go).

Runs node /py/pynode: publishes std_msgs/String "py <i>" on /py_chatter
every 50 ms, subscribes to /go_chatter, and prints one JSON line per event
on stdout: {"ev": "ready"}, {"ev": "sample", "data": ...} for each message
received, and every 200 ms {"ev": "graph", "nodes": [...], "topics": [...],
"go_chatter_publishers": n}. Exits when stdin closes. Run with
RMW_IMPLEMENTATION=rmw_fastrtps_cpp, FASTDDS_BUILTIN_TRANSPORTS=UDPv4 and
ROS_DOMAIN_ID set.
"""

import json
import sys
import threading

import rclpy
from rclpy.executors import SingleThreadedExecutor
from std_msgs.msg import String


def emit(**kw):
    sys.stdout.write(json.dumps(kw) + "\n")
    sys.stdout.flush()


def main():
    rclpy.init()
    node = rclpy.create_node("pynode", namespace="/py")
    pub = node.create_publisher(String, "/py_chatter", 10)
    node.create_subscription(String, "/go_chatter", lambda m: emit(ev="sample", data=m.data), 10)
    i = [0]

    def tick():
        pub.publish(String(data="py %d" % i[0]))
        i[0] += 1

    def graph():
        nodes = ["%s|%s" % (ns, n) for n, ns in node.get_node_names_and_namespaces()]
        topics = ["%s|%s" % (t, ",".join(ts)) for t, ts in node.get_topic_names_and_types()]
        emit(ev="graph", nodes=sorted(nodes), topics=sorted(topics),
             go_chatter_publishers=node.count_publishers("/go_chatter"))

    node.create_timer(0.05, tick)
    node.create_timer(0.2, graph)
    executor = SingleThreadedExecutor()
    executor.add_node(node)
    threading.Thread(target=executor.spin, daemon=True).start()
    emit(ev="ready")
    sys.stdin.read()
    executor.shutdown()
    node.destroy_node()
    rclpy.try_shutdown()


main()
