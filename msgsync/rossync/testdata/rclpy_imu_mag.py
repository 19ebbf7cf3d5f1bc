"""An rclpy peer for the Go approximate synchronizer test (ros_test.go).

Usage: python rclpy_imu_mag.py PREFIX COUNT SEED

Publishes sensor_msgs/msg/Imu on PREFIX/imu and sensor_msgs/msg/MagneticField
on PREFIX/mag, RELIABLE KEEP_ALL, once each has a subscription: an IMU at
about 50 Hz and a magnetometer at about 20 Hz of stamp time, with stamp
jitter and lost messages (drawn from SEED), COUNT IMU messages in all, in
stamp order per topic with the two topics interleaved by a per-topic delay.
Then one last message on each topic, stamped a second after the others, so
that the synchronizer can settle its last set. It does not sleep between
messages: the stamps are made up, as a bag player's would be.

It prints one JSON event per line on stdout: {"ev": "ready"} once the
publishers exist, then {"ev": "done", "imu": [stamps in ns], "mag": [...]}
with every stamp published. It exits when stdin closes.
"""

import json
import os
import random
import sys
import threading
import time

import rclpy
from rclpy.node import Node
from rclpy.qos import DurabilityPolicy, HistoryPolicy, QoSProfile, ReliabilityPolicy
from sensor_msgs.msg import Imu, MagneticField


def emit(ev):
    sys.stdout.write(json.dumps(ev) + "\n")
    sys.stdout.flush()


def stamps(rng, period_ns, count_until_ns, jitter_ns, loss):
    out = []
    k = 0
    while True:
        t = k * period_ns + rng.randint(-jitter_ns, jitter_ns) + 10**9
        k += 1
        if t > count_until_ns:
            return sorted(out)
        if rng.random() < loss:
            continue
        out.append(t)


def main():
    prefix, count, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    rng = random.Random(seed)
    rclpy.init()
    node = Node("py_imu_mag")
    qos = QoSProfile(history=HistoryPolicy.KEEP_ALL, reliability=ReliabilityPolicy.RELIABLE,
                     durability=DurabilityPolicy.VOLATILE)
    imu_pub = node.create_publisher(Imu, prefix + "/imu", qos)
    mag_pub = node.create_publisher(MagneticField, prefix + "/mag", qos)

    def serve():
        sys.stdin.read()
        os._exit(0)  # skip rclpy's teardown

    threading.Thread(target=serve, daemon=True).start()
    emit({"ev": "ready"})
    while imu_pub.get_subscription_count() < 1 or mag_pub.get_subscription_count() < 1:
        time.sleep(0.01)
    time.sleep(0.2)  # let the Go readers settle after matching

    until = 10**9 + count * 20_000_000
    imu = stamps(rng, 20_000_000, until, 3_000_000, 0.1)
    mag = stamps(rng, 50_000_000, until, 8_000_000, 0.2)
    last = max(imu[-1], mag[-1]) + 10**9
    imu.append(last)
    mag.append(last)
    # Arrival order: each message at its stamp plus its topic's delay.
    events = [(t + 4_000_000, "imu", t) for t in imu] + [(t + 15_000_000, "mag", t) for t in mag]
    events.sort()
    for _, topic, t in events:
        if topic == "imu":
            m = Imu()
            m.header.stamp.sec, m.header.stamp.nanosec = divmod(t, 10**9)
            m.header.frame_id = "imu"
            imu_pub.publish(m)
        else:
            m = MagneticField()
            m.header.stamp.sec, m.header.stamp.nanosec = divmod(t, 10**9)
            m.header.frame_id = "mag"
            mag_pub.publish(m)
    emit({"ev": "done", "imu": imu, "mag": mag})
    rclpy.spin(node)


if __name__ == "__main__":
    try:
        main()
    except BaseException as e:
        emit({"ev": "error", "error": repr(e)})
        os._exit(1)
