"""An rclpy peer for the afor command-line tests (ros_interop_test.go).

Run it with a Python whose rclpy uses the middleware the Go side speaks:

  rclpy_peer.py talker TOPIC TYPE RATE   publish a fixed message of TYPE
                                         (see SAMPLES) at RATE Hz
  rclpy_peer.py listener TOPIC           print each std_msgs/String received
  rclpy_peer.py server SERVICE           a std_srvs/SetBool server
  rclpy_peer.py params                   a node with parameters
  rclpy_peer.py action ACTION            a test_msgs/Fibonacci action server

Every role runs one node, /py_<role>. It prints one JSON event per line
on stdout (other output goes to stderr), the first {"ev": "ready"} (for a
talker with "hex": the CDR payload it publishes, for the test to ask an
oracle what ros2 topic echo prints for it). The listener prints
{"ev": "msg", "data": D} for each message; the server {"ev": "call",
"data": B} for each request. The process ends when stdin closes.
"""

import json
import sys
import threading
import time

import rclpy
from rclpy.action import ActionServer, GoalResponse
from rclpy.executors import MultiThreadedExecutor
from rclpy.serialization import serialize_message


def emit(**ev):
    sys.stdout.write(json.dumps(ev) + "\n")
    sys.stdout.flush()


def sample(type_name):
    """A message of each type the tests echo, with values that exercise
    the YAML: nesting, arrays, bytes, floats, strings that need quotes."""
    if type_name == "std_msgs/msg/String":
        from std_msgs.msg import String
        return String(data="Hello World")
    if type_name == "test_msgs/msg/BasicTypes":
        from test_msgs.msg import BasicTypes
        m = BasicTypes()
        m.bool_value = True
        m.byte_value = b"\x07"
        m.char_value = 65
        m.float32_value = 0.1
        m.float64_value = -1.5e-07
        m.int8_value = -8
        m.uint8_value = 200
        m.int16_value = -1600
        m.uint16_value = 1600
        m.int32_value = -32
        m.uint32_value = 32
        m.int64_value = -(2 ** 40)
        m.uint64_value = 2 ** 63
        return m
    if type_name == "test_msgs/msg/Arrays":
        from test_msgs.msg import Arrays
        m = Arrays()
        m.bool_values = [True, False, True]
        m.byte_values = [b"\x00", b"\x01", b"\xff"]
        m.float64_values = [1.0, float("inf"), 2.5]
        m.string_values = ["", "yes", "a: b"]
        m.int32_values = [-1, 0, 1]
        return m
    if type_name == "geometry_msgs/msg/PoseStamped":
        from geometry_msgs.msg import PoseStamped
        m = PoseStamped()
        m.header.frame_id = "map"
        m.header.stamp.sec = 12
        m.header.stamp.nanosec = 345
        m.pose.position.x = 1.25
        m.pose.orientation.w = 1.0
        return m
    raise SystemExit("unknown type " + type_name)


def main():
    role = sys.argv[1]
    rclpy.init()
    node = rclpy.create_node("py_" + role)
    ready = {}
    if role == "talker":
        topic, type_name, rate = sys.argv[2], sys.argv[3], float(sys.argv[4])
        msg = sample(type_name)
        pub = node.create_publisher(type(msg), topic, 10)
        node.create_timer(1.0 / rate, lambda: pub.publish(msg))
        ready["hex"] = serialize_message(msg).hex()
    elif role == "listener":
        from std_msgs.msg import String
        node.create_subscription(String, sys.argv[2], lambda m: emit(ev="msg", data=m.data), 10)
    elif role == "server":
        from std_srvs.srv import SetBool

        def handle(req, res):
            emit(ev="call", data=req.data)
            res.success = req.data
            res.message = "py got %s" % req.data
            return res
        node.create_service(SetBool, sys.argv[2], handle)
    elif role == "params":
        node.declare_parameter("speed", 5)
        node.declare_parameter("name", "py")
        node.declare_parameter("gains", [1.5, 2.0])
    elif role == "action":
        from test_msgs.action import Fibonacci

        def execute(handle):
            seq = [0, 1]
            for i in range(1, handle.request.order):
                seq.append(seq[i] + seq[i - 1])
                fb = Fibonacci.Feedback()
                fb.sequence = list(seq)
                handle.publish_feedback(fb)
                time.sleep(0.05)
            handle.succeed()
            return Fibonacci.Result(sequence=seq)
        ActionServer(node, Fibonacci, sys.argv[2], execute_callback=execute,
                     goal_callback=lambda g: GoalResponse.ACCEPT if g.order >= 0 else GoalResponse.REJECT)
    else:
        raise SystemExit("unknown role " + role)

    executor = MultiThreadedExecutor()
    executor.add_node(node)
    threading.Thread(target=executor.spin, daemon=True).start()
    emit(ev="ready", **ready)
    sys.stdin.read()  # until stdin closes
    executor.shutdown()
    node.destroy_node()
    rclpy.try_shutdown()


if __name__ == "__main__":
    main()
