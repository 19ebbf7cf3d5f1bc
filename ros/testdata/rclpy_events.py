"""An rclpy peer for the Go QoS event tests (events_py_test.go).

Usage: python rclpy_events.py PREFIX

Under the topic prefix PREFIX it creates, with std_msgs/msg/String and
rclpy's event callbacks:

  PREFIX/py_beat  a publisher, RELIABLE, deadline 100 ms, AUTOMATIC
                  liveliness with a 500 ms lease, publishing every 20 ms
                  until told to stop; its offered deadline misses are
                  reported;
  PREFIX/go_beat  a subscription, RELIABLE, deadline 100 ms, AUTOMATIC
                  liveliness with a 1 s lease, reporting its requested
                  deadline misses and liveliness changes.

It prints one JSON event per line on stdout: {"ev": "ready"}, then
{"ev": "msg"} for every message of go_beat,
{"ev": "deadline", "side": "publisher"|"subscription", "total": N, "change": N},
{"ev": "liveliness", "alive": N, "not_alive": N, "alive_change": N,
"not_alive_change": N}. Commands on stdin, one per line: "stop" stops
publishing. It exits when stdin closes.
"""

import json
import os
import sys
import threading

import rclpy
from rclpy.duration import Duration
from rclpy.event_handler import PublisherEventCallbacks, SubscriptionEventCallbacks
from rclpy.executors import SingleThreadedExecutor
from rclpy.node import Node
from rclpy.qos import DurabilityPolicy, LivelinessPolicy, QoSProfile, ReliabilityPolicy
from std_msgs.msg import String

lock = threading.Lock()


def emit(ev):
    with lock:
        sys.stdout.write(json.dumps(ev) + "\n")
        sys.stdout.flush()


def main():
    prefix = sys.argv[1]
    rclpy.init()
    node = Node("py_events")

    def qos(lease):
        return QoSProfile(depth=10, reliability=ReliabilityPolicy.RELIABLE, durability=DurabilityPolicy.VOLATILE,
                          deadline=Duration(seconds=0.1), liveliness=LivelinessPolicy.AUTOMATIC,
                          liveliness_lease_duration=Duration(seconds=lease))

    pub = node.create_publisher(
        String, prefix + "/py_beat", qos(0.5),
        event_callbacks=PublisherEventCallbacks(
            deadline=lambda e: emit({"ev": "deadline", "side": "publisher", "total": e.total_count,
                                     "change": e.total_count_change})))
    node.create_subscription(
        String, prefix + "/go_beat", lambda m: emit({"ev": "msg"}), qos(1.0),
        event_callbacks=SubscriptionEventCallbacks(
            deadline=lambda e: emit({"ev": "deadline", "side": "subscription", "total": e.total_count,
                                     "change": e.total_count_change}),
            liveliness=lambda e: emit({"ev": "liveliness", "alive": e.alive_count, "not_alive": e.not_alive_count,
                                       "alive_change": e.alive_count_change,
                                       "not_alive_change": e.not_alive_count_change})))
    running = [True]

    def tick():
        if running[0]:
            pub.publish(String(data="beat"))

    node.create_timer(0.02, tick)
    ex = SingleThreadedExecutor()
    ex.add_node(node)

    def serve():
        for line in sys.stdin:
            if line.strip() == "stop":
                running[0] = False
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
