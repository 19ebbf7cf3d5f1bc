"""The rclpy side of ros/tf2's interop test (interop_py_test.go), on rclpy
with the tf2_msgs type support that .ci/build-interfaces builds (there is
no tf2_ros wheel: the publishers and subscriptions below use tf2_ros's
topics and QoS by hand).

Usage: python rclpy_tf.py SPEC

SPEC is a JSON object: {"t0": ns, "static_a": [T...], "static_b": [T...]},
each T {"parent", "child", "t": [x, y, z], "q": [x, y, z, w]}.

  static_a, static_b  two nodes, each with a /tf_static publisher
                      (reliable, transient local, keep last 1, as tf2_ros's
                      StaticTransformBroadcaster) that publishes its set
                      once, before "ready"
  tf_pub              /tf (reliable, volatile, keep last 100) at 50 Hz:
                      map -> odom and odom -> base_link, stamped now, as
                      functions of s = (stamp - t0) / 1e9 (see motion in
                      listener_test.go)
  py_listener         subscribes to /tf (keep last 100) and /tf_static
                      (transient local, keep last 100) and prints every
                      transform whose child frame starts with "go_"

It prints JSON lines on stdout: {"ev": "ready"} once the static sets are
published, then {"ev": "tf", "static": bool, "parent", "child", "stamp": ns,
"t": [...], "q": [...], "n": transforms in the message} per transform
received. It exits when stdin closes.
"""
import json
import math
import os
import sys
import threading

import rclpy
from geometry_msgs.msg import TransformStamped
from rclpy.executors import SingleThreadedExecutor
from rclpy.node import Node
from rclpy.qos import DurabilityPolicy, HistoryPolicy, QoSProfile, ReliabilityPolicy
from tf2_msgs.msg import TFMessage

lock = threading.Lock()


def emit(ev):
    with lock:
        sys.stdout.write(json.dumps(ev) + "\n")
        sys.stdout.flush()


def qos(depth, transient):
    return QoSProfile(history=HistoryPolicy.KEEP_LAST, depth=depth, reliability=ReliabilityPolicy.RELIABLE,
                      durability=DurabilityPolicy.TRANSIENT_LOCAL if transient else DurabilityPolicy.VOLATILE)


def transform(parent, child, t, q, stamp=None):
    m = TransformStamped()
    m.header.frame_id = parent
    m.child_frame_id = child
    if stamp is not None:
        m.header.stamp = stamp
    # float(): JSON gives 1 for 1.0, and rclpy stores a Python int's bits
    # in a float64 field as they are (1 becomes 5e-324).
    t, q = [float(v) for v in t], [float(v) for v in q]
    m.transform.translation.x, m.transform.translation.y, m.transform.translation.z = t
    m.transform.rotation.x, m.transform.rotation.y, m.transform.rotation.z, m.transform.rotation.w = q
    return m


def yaw_quat(yaw):
    return (0.0, 0.0, math.sin(yaw / 2), math.cos(yaw / 2))


def main():
    spec = json.loads(sys.argv[1])
    t0 = spec["t0"]
    rclpy.init()
    ex = SingleThreadedExecutor()
    nodes = []
    for name in ("static_a", "static_b"):
        node = Node(name)
        pub = node.create_publisher(TFMessage, "/tf_static", qos(1, True))
        pub.publish(TFMessage(transforms=[transform(x["parent"], x["child"], x["t"], x["q"]) for x in spec[name]]))
        nodes.append((node, pub))

    tf_pub = Node("tf_pub")
    dyn = tf_pub.create_publisher(TFMessage, "/tf", qos(100, False))

    def tick():
        now = tf_pub.get_clock().now()
        s = (now.nanoseconds - t0) / 1e9
        stamp = now.to_msg()
        dyn.publish(TFMessage(transforms=[
            transform("map", "odom", (0.5 + 0.1 * s, -0.2, 0.0), yaw_quat(0.05 * s), stamp),
            transform("odom", "base_link", (1.0 * s, 0.5 * s, 0.0), yaw_quat(0.3 * s), stamp),
        ]))

    tf_pub.create_timer(0.02, tick)

    listener = Node("py_listener")

    def on_tf(static):
        def cb(msg):
            for x in msg.transforms:
                if not x.child_frame_id.startswith("go_"):
                    continue
                tt, r = x.transform.translation, x.transform.rotation
                emit({"ev": "tf", "static": static, "parent": x.header.frame_id, "child": x.child_frame_id,
                      "stamp": x.header.stamp.sec * 10**9 + x.header.stamp.nanosec,
                      "t": [tt.x, tt.y, tt.z], "q": [r.x, r.y, r.z, r.w], "n": len(msg.transforms)})
        return cb

    listener.create_subscription(TFMessage, "/tf", on_tf(False), qos(100, False))
    listener.create_subscription(TFMessage, "/tf_static", on_tf(True), qos(100, True))

    for n in [n for n, _ in nodes] + [tf_pub, listener]:
        ex.add_node(n)

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
