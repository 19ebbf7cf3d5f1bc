"""rclpy peer on Fast DDS for rmwdds's service and graph interop test
(interop_service_py_test.go).

Runs node /py/pysrv with a std_srvs/SetBool service /py_set (it answers
success = the request's data, message "py <data>"), a client of the Go
node's service /go_set that calls it (data true) whenever the service is
ready and no call is in flight, a TRANSIENT_LOCAL publisher of
std_msgs/String "latched" on /py_latched (one sample, written at start), a
TRANSIENT_LOCAL subscription to /go_latched, and prints one JSON line per
event on stdout: {"ev": "ready"}, {"ev": "response", "success": b,
"message": s}, {"ev": "latched", "data": s}, and every 200 ms {"ev":
"graph", "nodes": [...], "topics": [...], "services": [...],
"go_latched_publishers": n, "py_latched_subscribers": n}. Exits when stdin
closes. Run with RMW_IMPLEMENTATION=rmw_fastrtps_cpp,
FASTDDS_BUILTIN_TRANSPORTS=UDPv4 and ROS_DOMAIN_ID set.
"""

import json
import sys
import threading

import rclpy
from rclpy.executors import SingleThreadedExecutor
from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy
from std_msgs.msg import String
from std_srvs.srv import SetBool


def emit(**kw):
    sys.stdout.write(json.dumps(kw) + "\n")
    sys.stdout.flush()


def main():
    rclpy.init()
    node = rclpy.create_node("pysrv", namespace="/py")

    def serve(req, resp):
        resp.success = req.data
        resp.message = "py %s" % req.data
        return resp

    node.create_service(SetBool, "/py_set", serve)
    client = node.create_client(SetBool, "/go_set")
    latched = QoSProfile(depth=1, reliability=ReliabilityPolicy.RELIABLE,
                         durability=DurabilityPolicy.TRANSIENT_LOCAL)
    pub = node.create_publisher(String, "/py_latched", latched)
    pub.publish(String(data="latched"))
    node.create_subscription(String, "/go_latched", lambda m: emit(ev="latched", data=m.data), latched)
    inflight = [None]

    def done(fut):
        inflight[0] = None
        r = fut.result()
        emit(ev="response", success=r.success, message=r.message)

    def call():
        if inflight[0] is None and client.service_is_ready():
            inflight[0] = client.call_async(SetBool.Request(data=True))
            inflight[0].add_done_callback(done)

    def graph():
        nodes = ["%s|%s" % (ns, n) for n, ns in node.get_node_names_and_namespaces()]
        topics = ["%s|%s" % (t, ",".join(ts)) for t, ts in node.get_topic_names_and_types()]
        services = ["%s|%s" % (s, ",".join(ts)) for s, ts in node.get_service_names_and_types()]
        emit(ev="graph", nodes=sorted(nodes), topics=sorted(topics), services=sorted(services),
             go_latched_publishers=node.count_publishers("/go_latched"),
             py_latched_subscribers=node.count_subscribers("/py_latched"))

    node.create_timer(0.2, call)
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
