"""rclpy echo peer on Fast DDS for rmwdds's topic interop test
(interop_types_py_test.go).

Node /py/pyecho: for each topic /go_<name> it subscribes to, it publishes
every message it receives, unchanged, on /py_<name>: pose
(geometry_msgs/PoseArray), joints (sensor_msgs/JointState), image
(sensor_msgs/Image), all RELIABLE KEEP_LAST 10, and sensor
(std_msgs/String) with the sensor-data profile (BEST_EFFORT KEEP_LAST 5),
bounded, unbounded, arrays and nested (test_msgs/BoundedSequences,
UnboundedSequences, Arrays, Nested), RELIABLE KEEP_LAST 10.
Prints {"ev": "ready"} and {"ev": "got", "data": name} per message, one
JSON line each; exits when stdin closes. Run with
RMW_IMPLEMENTATION=rmw_fastrtps_cpp, FASTDDS_BUILTIN_TRANSPORTS=UDPv4 and
ROS_DOMAIN_ID set.
"""

import json
import sys
import threading

import rclpy
from geometry_msgs.msg import PoseArray
from rclpy.executors import SingleThreadedExecutor
from rclpy.qos import qos_profile_sensor_data
from sensor_msgs.msg import Image, JointState
from std_msgs.msg import String
from test_msgs.msg import Arrays, BoundedSequences, Nested, UnboundedSequences


def emit(**kw):
    sys.stdout.write(json.dumps(kw) + "\n")
    sys.stdout.flush()


def main():
    rclpy.init()
    node = rclpy.create_node("pyecho", namespace="/py")
    for name, typ, qos in (("pose", PoseArray, 10), ("joints", JointState, 10), ("image", Image, 10),
                           ("sensor", String, qos_profile_sensor_data), ("bounded", BoundedSequences, 10),
                           ("unbounded", UnboundedSequences, 10), ("arrays", Arrays, 10), ("nested", Nested, 10)):
        pub = node.create_publisher(typ, "/py_" + name, qos)

        def echo(m, pub=pub, name=name):
            emit(ev="got", data=name)
            pub.publish(m)

        node.create_subscription(typ, "/go_" + name, echo, qos)
    executor = SingleThreadedExecutor()
    executor.add_node(node)
    threading.Thread(target=executor.spin, daemon=True).start()
    emit(ev="ready")
    sys.stdin.read()
    executor.shutdown()
    node.destroy_node()
    rclpy.try_shutdown()


main()
