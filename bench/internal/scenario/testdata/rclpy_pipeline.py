"""One node of the robot pipeline in rclpy, run by bench/ (pipeline rows
rclpy and rclpy-events), next to the same nodes in Go (ros_dds_pipeline.go).

Usage: python rclpy_pipeline.py NODE EXECUTOR NAMESPACE
  NODE      camera, imu, perception, planning or control
  EXECUTOR  single (SingleThreadedExecutor) or events (EventsExecutor)

The nodes, rates, messages and work are the Go nodes': camera publishes a
1280x720 mono8 sensor_msgs/Image at 30 Hz (one pixel changes per frame),
imu a sensor_msgs/Imu at 200 Hz, perception takes every image and the
latest IMU sample and publishes a geometry_msgs/PoseStamped, planning
publishes a nav_msgs/Path of 50 poses at 10 Hz from the latest pose, and
control takes every IMU sample and the latest path and publishes a
geometry_msgs/Twist. Every topic is on ROS's default QoS (reliable,
volatile, keep last 10).

It prints "ready -" once its endpoints exist, then answers the harness on
stdin: "mark" resets its counts, "report" prints one JSON line (node,
published, received, latency_ns: the end-to-end latencies since the mark,
from the header stamp to the callback). It exits when stdin closes.
"""

import array
import json
import os
import sys
import threading
import time

import rclpy
from geometry_msgs.msg import PoseStamped, Twist
from nav_msgs.msg import Path
from rclpy.node import Node
from rclpy.qos import QoSProfile
from sensor_msgs.msg import Image, Imu

WIDTH, HEIGHT = 1280, 720
CAMERA_HZ, IMU_HZ, PLANNING_HZ = 30, 200, 10
PATH_POSES = 50
MAX_SAMPLES = 720000


class Stats:
    def __init__(self):
        self.lock = threading.Lock()
        self.published = 0
        self.received = 0
        self.latency = []

    def pub(self):
        with self.lock:
            self.published += 1

    def recv(self, stamp):
        lat = time.time_ns() - (stamp.sec * 1000000000 + stamp.nanosec)
        with self.lock:
            self.received += 1
            if len(self.latency) < MAX_SAMPLES:
                self.latency.append(lat)

    def count(self):
        with self.lock:
            self.received += 1

    def mark(self):
        with self.lock:
            self.published, self.received, self.latency = 0, 0, []

    def report(self, node):
        with self.lock:
            return {"node": node, "published": self.published, "received": self.received,
                    "latency_ns": list(self.latency)}


def stamp_now(header):
    ns = time.time_ns()
    header.stamp.sec = ns // 1000000000
    header.stamp.nanosec = ns % 1000000000


def build(node_name, node, st):
    qos = QoSProfile(depth=10)
    if node_name == "camera":
        pub = node.create_publisher(Image, "camera/image_raw", qos)
        img = Image()
        img.header.frame_id = "camera"
        img.height, img.width, img.encoding, img.step = HEIGHT, WIDTH, "mono8", WIDTH
        img.data = array.array("B", bytes(WIDTH * HEIGHT))

        def tick():
            stamp_now(img.header)
            img.data[0] = (img.data[0] + 1) % 256
            pub.publish(img)
            st.pub()

        node.create_timer(1.0 / CAMERA_HZ, tick)
    elif node_name == "imu":
        pub = node.create_publisher(Imu, "imu/data", qos)
        imu = Imu()
        imu.header.frame_id = "imu"
        imu.orientation.w = 1.0
        imu.linear_acceleration.z = 9.81

        def tick():
            stamp_now(imu.header)
            pub.publish(imu)
            st.pub()

        node.create_timer(1.0 / IMU_HZ, tick)
    elif node_name == "perception":
        pub = node.create_publisher(PoseStamped, "perception/pose", qos)
        latest_imu = [Imu()]

        def on_imu(m):
            latest_imu[0] = m

        def on_image(img):
            st.recv(img.header.stamp)
            total = sum(img.data[::4096])
            pose = PoseStamped()
            pose.header = img.header
            pose.pose.position.x = float(total)
            pose.pose.orientation = latest_imu[0].orientation
            pub.publish(pose)
            st.pub()

        node.create_subscription(Imu, "imu/data", on_imu, qos)
        node.create_subscription(Image, "camera/image_raw", on_image, qos)
    elif node_name == "planning":
        pub = node.create_publisher(Path, "planning/path", qos)
        goal = [PoseStamped()]
        path = Path()
        path.header.frame_id = "map"
        path.poses = [PoseStamped() for _ in range(PATH_POSES)]

        def on_pose(m):
            goal[0] = m
            st.count()

        def tick():
            stamp_now(path.header)
            g = goal[0]
            for i, p in enumerate(path.poses):
                p.header = path.header
                p.pose.position.x = g.pose.position.x * i / PATH_POSES
                p.pose.orientation = g.pose.orientation
            pub.publish(path)
            st.pub()

        node.create_subscription(PoseStamped, "perception/pose", on_pose, qos)
        node.create_timer(1.0 / PLANNING_HZ, tick)
    elif node_name == "control":
        pub = node.create_publisher(Twist, "control/cmd_vel", qos)
        plan = [Path()]

        def on_path(m):
            plan[0] = m

        def on_imu(imu):
            st.recv(imu.header.stamp)
            cmd = Twist()
            poses = plan[0].poses
            if len(poses) > 1:
                cmd.linear.x = poses[1].pose.position.x - poses[0].pose.position.x
            cmd.angular.z = -imu.angular_velocity.z
            pub.publish(cmd)
            st.pub()

        node.create_subscription(Path, "planning/path", on_path, qos)
        node.create_subscription(Imu, "imu/data", on_imu, qos)
    else:
        raise ValueError("unknown node " + node_name)


def serve(node_name, st):
    for line in sys.stdin:
        line = line.strip()
        if line == "mark":
            st.mark()
        elif line == "report":
            sys.stdout.write(json.dumps(st.report(node_name)) + "\n")
            sys.stdout.flush()
    sys.stdout.flush()
    os._exit(0)  # skip rclpy's teardown: the executor spins in the main thread


def main():
    node_name, kind, ns = sys.argv[1], sys.argv[2], sys.argv[3]
    rclpy.init()
    node = Node(node_name, namespace=ns)
    st = Stats()
    build(node_name, node, st)
    if kind == "events":
        from rclpy.experimental import EventsExecutor

        ex = EventsExecutor()
    else:
        from rclpy.executors import SingleThreadedExecutor

        ex = SingleThreadedExecutor()
    ex.add_node(node)
    print("ready -", flush=True)
    threading.Thread(target=serve, args=(node_name, st), daemon=True).start()
    if kind == "events":
        # The Kilted wheels' EventsExecutor.spin() runs no callback at all;
        # spin_once does.
        while True:
            ex.spin_once(timeout_sec=1.0)
    ex.spin()


if __name__ == "__main__":
    try:
        main()
    except BaseException:
        import traceback

        traceback.print_exc()
        sys.stderr.flush()
        os._exit(1)
