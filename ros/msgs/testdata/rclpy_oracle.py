"""CDR oracle for ros/msgs tests, driven by rclpy_test.go.

Reads a JSON request on stdin and writes a JSON answer on stdout:

  {"mode": "roundtrip", "cases": [{"type": "pkg/msg/Name", "hex": "..."}]}
      deserializes each payload with rclpy (rmw_fastrtps_cpp typesupport),
      serializes the result again and answers
      [{"type": ..., "hex": ..., "error": ...}] ("unavailable" when the type's
      Python package is not installed).

  {"mode": "produce"}
      answers [{"name": ..., "type": ..., "hex": ...}] for messages built
      here, independently of the Go side.
"""

import importlib
import json
import sys

from rclpy.serialization import deserialize_message, serialize_message


def lookup(full):
    pkg, ns, name = full.split("/")
    base, _, part = name.partition("_")
    try:
        mod = importlib.import_module(f"{pkg}.{ns}")
    except ImportError:
        return None
    cls = getattr(mod, base, None)
    if cls is None:
        return None
    # Parts of actions live under Impl: Fibonacci_SendGoal_Request is
    # Fibonacci.Impl.SendGoalService.Request, Fibonacci_FeedbackMessage is
    # Fibonacci.Impl.FeedbackMessage.
    path = part.split("_") if part else []
    if ns == "action" and path and path[0] in ("SendGoal", "GetResult", "FeedbackMessage"):
        path = ["Impl", path[0] + ("Service" if path[0] != "FeedbackMessage" else "")] + path[1:]
    for p in path:
        cls = getattr(cls, p, None)
        if cls is None:
            return None
    return cls


def roundtrip(cases):
    out = []
    for c in cases:
        cls = lookup(c["type"])
        if cls is None:
            out.append({"type": c["type"], "hex": "", "error": "unavailable"})
            continue
        try:
            msg = deserialize_message(bytes.fromhex(c["hex"]), cls)
            out.append({"type": c["type"], "hex": serialize_message(msg).hex(), "error": ""})
        except Exception as e:  # reported to the Go test
            out.append({"type": c["type"], "hex": "", "error": repr(e)})
    return out


def produce():
    from builtin_interfaces.msg import Time
    from geometry_msgs.msg import Twist, Vector3
    from nav_msgs.msg import Odometry
    from sensor_msgs.msg import Image, Imu, JointState, PointCloud2, PointField
    from std_msgs.msg import Header, String
    from std_srvs.srv import SetBool

    hdr = Header(stamp=Time(sec=1700000000, nanosec=123456789), frame_id="camera")
    odom = Odometry(header=hdr, child_frame_id="base_link")
    odom.pose.pose.position.x = 1.0
    odom.pose.pose.position.y = 2.0
    odom.pose.covariance[35] = 1.0
    imu = Imu(header=hdr, orientation_covariance=[float(i) for i in range(1, 10)])
    imu.orientation.w = 1.0
    imu.linear_acceleration.z = 9.81
    cloud = PointCloud2(
        header=hdr, height=1, width=2,
        fields=[PointField(name="x", offset=0, datatype=PointField.FLOAT32, count=1),
                PointField(name="y", offset=4, datatype=PointField.FLOAT32, count=1)],
        is_bigendian=False, point_step=8, row_step=16, data=bytes([0xAB] * 16), is_dense=True)
    msgs = {
        "string": String(data="hello 0"),
        "header": hdr,
        "image": Image(header=hdr, height=2, width=3, encoding="mono8", step=3, data=bytes([1, 2, 3, 4, 5, 6])),
        "joint_state": JointState(header=hdr, name=["a", "", "joint_3"], position=[0.5, -1.0]),
        "twist": Twist(linear=Vector3(x=0.5), angular=Vector3(z=-0.1)),
        "imu": imu,
        "odometry": odom,
        "point_cloud2": cloud,
        "set_bool_request": SetBool.Request(data=True),
    }
    out = []
    for name, m in msgs.items():
        t = type(m)
        full = t.__module__.split(".")[0] + "/" + t.__module__.split(".")[1].lstrip("_") + "/" + t.__name__
        out.append({"name": name, "type": full, "hex": serialize_message(m).hex()})
    return out


def main():
    req = json.load(sys.stdin)
    if req["mode"] == "roundtrip":
        res = roundtrip(req["cases"])
    else:
        res = produce()
    json.dump(res, sys.stdout)


if __name__ == "__main__":
    main()
