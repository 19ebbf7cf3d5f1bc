"""An rclpy peer for the Go incompatible QoS test (qos_event_py_test.go).

Usage: python rclpy_qos.py PREFIX

Under the topic prefix PREFIX (a namespace such as /qos_t1) it creates, with
std_msgs/msg/String and rclpy's incompatible_qos event callbacks:

  PREFIX/volatile      a publisher, RELIABLE VOLATILE      (Go subscribes TRANSIENT_LOCAL)
  PREFIX/best_effort   a publisher, BEST_EFFORT VOLATILE   (Go subscribes RELIABLE)
  PREFIX/reliable_sub  a subscription, RELIABLE VOLATILE   (Go publishes BEST_EFFORT)

and publishes on both publishers every 100 ms. It prints one JSON event per
line on stdout: {"ev": "ready"} once the endpoints exist, then
{"ev": "incompatible", "topic": T, "kind": "publisher"|"subscription",
"total": N, "policy": P} for every event rclpy reports, and
{"ev": "message", "topic": T} for every message its subscription receives.
It exits when stdin closes.
"""

import json
import os
import sys
import threading

import rclpy
from rclpy.event_handler import PublisherEventCallbacks, SubscriptionEventCallbacks
from rclpy.executors import SingleThreadedExecutor
from rclpy.node import Node
from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy
from std_msgs.msg import String

lock = threading.Lock()


def emit(ev):
    with lock:
        sys.stdout.write(json.dumps(ev) + "\n")
        sys.stdout.flush()


def policy_name(kind):
    name = getattr(kind, "name", str(kind))
    for suffix in ("_QOS_POLICY",):
        if name.endswith(suffix):
            name = name[: -len(suffix)]
    return name.replace("RMW_QOS_POLICY_", "")


def main():
    prefix = sys.argv[1]
    rclpy.init()
    node = Node("py_qos")

    def on_pub_event(topic):
        return lambda e: emit({"ev": "incompatible", "topic": topic, "kind": "publisher",
                               "total": e.total_count, "policy": policy_name(e.last_policy_kind)})

    def on_sub_event(topic):
        return lambda e: emit({"ev": "incompatible", "topic": topic, "kind": "subscription",
                               "total": e.total_count, "policy": policy_name(e.last_policy_kind)})

    reliable = QoSProfile(depth=10, reliability=ReliabilityPolicy.RELIABLE, durability=DurabilityPolicy.VOLATILE)
    best_effort = QoSProfile(depth=10, reliability=ReliabilityPolicy.BEST_EFFORT, durability=DurabilityPolicy.VOLATILE)
    pubs = []
    for name, qos in (("volatile", reliable), ("best_effort", best_effort)):
        topic = prefix + "/" + name
        pubs.append(node.create_publisher(String, topic, qos,
                                          event_callbacks=PublisherEventCallbacks(incompatible_qos=on_pub_event(topic))))
    sub_topic = prefix + "/reliable_sub"
    node.create_subscription(String, sub_topic, lambda m: emit({"ev": "message", "topic": sub_topic}), reliable,
                             event_callbacks=SubscriptionEventCallbacks(incompatible_qos=on_sub_event(sub_topic)))

    def tick():
        for p in pubs:
            p.publish(String(data="hello"))

    node.create_timer(0.1, tick)
    ex = SingleThreadedExecutor()
    ex.add_node(node)

    def serve():
        sys.stdin.read()
        os._exit(0)  # skip rclpy's teardown

    threading.Thread(target=serve, daemon=True).start()
    emit({"ev": "ready"})
    ex.spin()


if __name__ == "__main__":
    try:
        main()
    except BaseException as e:
        emit({"ev": "error", "error": repr(e)})
        os._exit(1)
