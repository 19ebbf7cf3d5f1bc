"""An rclpy peer for ros/bag's record and play tests (rclpy_py_test.go).

Usage:
  python rclpy_bag.py listen PREFIX
      Subscribes to PREFIX/chatter (std_msgs/String, reliable, volatile,
      keep last 100) at once, and to PREFIX/latched (reliable,
      TRANSIENT_LOCAL, keep last 1) when a line "late" arrives on stdin.
  python rclpy_bag.py talk PREFIX N HZ
      Publishes "latched" once on PREFIX/latched (TRANSIENT_LOCAL), then N
      messages "0".."N-1" on PREFIX/chatter at HZ, once it has a
      subscription, then waits for stdin to close.
  python rclpy_bag.py image TOPIC HZ SECONDS WIDTH HEIGHT
      Publishes sensor_msgs/Image (rgb8, WIDTH x HEIGHT) on TOPIC at HZ for
      SECONDS once it has a subscription, each image's first bytes holding
      its number, then prints {"ev": "done", "count": N}.

Events go to stdout as JSON lines: {"ev": "ready"} once the endpoints
exist, {"ev": "msg", "topic": T, "data": D, "t": monotonic ns} for each
message received, {"ev": "sent", ...}. The process exits when stdin closes.
"""

import json
import os
import sys
import threading
import time

import rclpy
from rclpy.executors import SingleThreadedExecutor
from rclpy.node import Node
from rclpy.qos import DurabilityPolicy, HistoryPolicy, QoSProfile, ReliabilityPolicy
from std_msgs.msg import String

lock = threading.Lock()


def emit(ev):
    with lock:
        sys.stdout.write(json.dumps(ev) + "\n")
        sys.stdout.flush()


def spin_in_background(node):
    ex = SingleThreadedExecutor()
    ex.add_node(node)
    t = threading.Thread(target=ex.spin, daemon=True)
    t.start()
    return ex


def listen(prefix):
    node = Node("bag_listener")
    volatile = QoSProfile(history=HistoryPolicy.KEEP_LAST, depth=100, reliability=ReliabilityPolicy.RELIABLE,
                          durability=DurabilityPolicy.VOLATILE)
    latched = QoSProfile(history=HistoryPolicy.KEEP_LAST, depth=1, reliability=ReliabilityPolicy.RELIABLE,
                         durability=DurabilityPolicy.TRANSIENT_LOCAL)
    subs = []

    def on(topic):
        return lambda m: emit({"ev": "msg", "topic": topic, "data": m.data, "t": time.monotonic_ns()})

    subs.append(node.create_subscription(String, prefix + "/chatter", on(prefix + "/chatter"), volatile))
    ex = spin_in_background(node)
    emit({"ev": "ready"})
    for line in sys.stdin:
        if line.strip() == "late":
            subs.append(node.create_subscription(String, prefix + "/latched", on(prefix + "/latched"), latched))
            emit({"ev": "late"})
    ex.shutdown()


def talk(prefix, n, hz):
    node = Node("bag_talker")
    latched = QoSProfile(history=HistoryPolicy.KEEP_LAST, depth=1, reliability=ReliabilityPolicy.RELIABLE,
                         durability=DurabilityPolicy.TRANSIENT_LOCAL)
    lp = node.create_publisher(String, prefix + "/latched", latched)
    cp = node.create_publisher(String, prefix + "/chatter", 10)
    ex = spin_in_background(node)
    lp.publish(String(data="latched"))
    emit({"ev": "ready"})
    while cp.get_subscription_count() == 0:
        time.sleep(0.01)
    time.sleep(0.2)
    period = 1.0 / float(hz)
    start = time.monotonic()
    for i in range(int(n)):
        target = start + i * period
        d = target - time.monotonic()
        if d > 0:
            time.sleep(d)
        cp.publish(String(data=str(i)))
    emit({"ev": "sent", "count": int(n)})
    sys.stdin.read()
    ex.shutdown()


def image(topic, hz, seconds, width, height):
    from sensor_msgs.msg import Image
    node = Node("bag_camera")
    qos = QoSProfile(history=HistoryPolicy.KEEP_LAST, depth=5, reliability=ReliabilityPolicy.RELIABLE,
                     durability=DurabilityPolicy.VOLATILE)
    pub = node.create_publisher(Image, topic, qos)
    ex = spin_in_background(node)
    w, h = int(width), int(height)
    msg = Image(height=h, width=w, encoding="rgb8", is_bigendian=0, step=3 * w)
    payload = bytearray(os.urandom(3 * w * h))
    emit({"ev": "ready"})
    while pub.get_subscription_count() == 0:
        time.sleep(0.01)
    time.sleep(0.5)
    n = int(float(hz) * float(seconds))
    period = 1.0 / float(hz)
    start = time.monotonic()
    for i in range(n):
        target = start + i * period
        d = target - time.monotonic()
        if d > 0:
            time.sleep(d)
        payload[0:4] = i.to_bytes(4, "little")
        msg.header.frame_id = str(i)
        msg.data = bytes(payload)
        pub.publish(msg)
    emit({"ev": "done", "count": n, "seconds": time.monotonic() - start})
    sys.stdin.read()
    ex.shutdown()


def main():
    rclpy.init()
    cmd, args = sys.argv[1], sys.argv[2:]
    try:
        {"listen": listen, "talk": talk, "image": image}[cmd](*args)
    except BaseException as e:
        emit({"ev": "error", "error": repr(e)})
        os._exit(1)
    sys.stdout.flush()
    os._exit(0)  # skip rclpy's teardown of the spinning executor


if __name__ == "__main__":
    main()
