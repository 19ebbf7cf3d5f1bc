"""Publishes one message, given as CDR, until stdin closes (ros2cli_test.go).

Usage: publish.py TOPIC TYPE HEX. The payload is decoded by rclpy into the
message class of TYPE ("pkg/msg/Name") and published every 100 ms with the
default QoS (reliable, volatile, depth 10), which ros2 topic echo's
best-effort subscription matches.
"""

import importlib
import sys
import threading

import rclpy
from rclpy.serialization import deserialize_message


def main():
    topic, full, payload = sys.argv[1], sys.argv[2], bytes.fromhex(sys.argv[3])
    pkg, ns, name = full.split('/')
    cls = getattr(importlib.import_module(f'{pkg}.{ns}'), name)
    msg = deserialize_message(payload, cls)
    rclpy.init()
    node = rclpy.create_node('dynmsg_publisher')
    pub = node.create_publisher(cls, topic, 10)
    node.create_timer(0.1, lambda: pub.publish(msg))
    done = threading.Event()
    threading.Thread(target=lambda: (sys.stdin.read(), done.set()), daemon=True).start()
    while not done.is_set() and rclpy.ok():
        rclpy.spin_once(node, timeout_sec=0.1)
    node.destroy_node()
    rclpy.shutdown()


if __name__ == '__main__':
    main()
