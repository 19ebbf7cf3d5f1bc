"""An rclpy peer for the Go type description tests (type_description_py_test.go).

Usage: python rclpy_typedesc.py

It runs a node "py_types" that uses test_msgs/msg/Defaults,
sensor_msgs/msg/NavSatStatus and geometry_msgs/msg/PoseStamped (publishers
on /types/defaults, /types/nav, /types/pose), std_srvs/srv/SetBool (a
server on /types/set) and afor_test_msgs/msg/Reading, a package afor does
not ship (built by .ci/build-interfaces from ros/testdata/interfaces; a
publisher on /types/reading, of a reading with kind 2 and label "py" every
100 ms), so that its ~/get_type_description serves them.

Commands, one JSON object per line on stdin; answers one per line on stdout:

  {"cmd": "compare", "node": N, "name": T, "hash": H}
      asks N's and py_types's ~/get_type_description for the type and
      answers {"ev": "compared", "name": T, "ok": bool (N succeeded),
      "reason": N's failure reason, "equal": bool (the two descriptions are
      the same), "go": ..., "py": ... (the descriptions as JSON)}
  {"cmd": "describe", "node": N, "name": T, "hash": H}
      answers {"ev": "described", "ok": bool, "reason": ..., "description": ...,
      "sources": [[name, encoding, length], ...]}

It prints {"ev": "ready"} first and exits when stdin closes.
"""

import json
import os
import sys
import threading

import rclpy
from geometry_msgs.msg import PoseStamped
from rclpy.executors import MultiThreadedExecutor
from rclpy.node import Node
from sensor_msgs.msg import NavSatStatus
from std_srvs.srv import SetBool
from test_msgs.msg import Defaults
from type_description_interfaces.srv import GetTypeDescription

from afor_test_msgs.msg import Reading, Sample


def emit(ev):
    sys.stdout.write(json.dumps(ev) + "\n")
    sys.stdout.flush()


def as_dict(td):
    def ind(t):
        return {"type_name": t.type_name, "fields": [
            {"name": f.name, "type_id": f.type.type_id, "capacity": f.type.capacity,
             "string_capacity": f.type.string_capacity, "nested_type_name": f.type.nested_type_name,
             "default_value": f.default_value} for f in t.fields]}
    return {"type_description": ind(td.type_description),
            "referenced_type_descriptions": [ind(t) for t in td.referenced_type_descriptions]}


def main():
    rclpy.init()
    node = Node("py_types")
    node.create_publisher(Defaults, "/types/defaults", 10)
    node.create_publisher(NavSatStatus, "/types/nav", 10)
    node.create_publisher(PoseStamped, "/types/pose", 10)
    node.create_service(SetBool, "/types/set", lambda req, res: res)
    readings = node.create_publisher(Reading, "/types/reading", 10)
    reading = Reading(kind=Reading.KIND_ANGLE, label="py", samples=[Sample(id=7, tags=["x"])])
    node.create_timer(0.1, lambda: readings.publish(reading))
    ex = MultiThreadedExecutor(num_threads=3)
    ex.add_node(node)
    threading.Thread(target=ex.spin, daemon=True).start()
    clients = {}

    def call(target, name, hash_):
        cl = clients.get(target)
        if cl is None:
            cl = node.create_client(GetTypeDescription, target + "/get_type_description")
            clients[target] = cl
        if not cl.wait_for_service(timeout_sec=20):
            raise TimeoutError("no service " + cl.srv_name)
        # wait_for_service looks at the graph only: a first request may
        # reach the server before its reply writer matched this client's
        # reader, and a DDS server then drops the reply after its
        # max_blocking_time (Fast DDS's and ours alike). Ask again.
        for attempt in range(4):
            done = threading.Event()
            fut = cl.call_async(GetTypeDescription.Request(type_name=name, type_hash=hash_, include_type_sources=True))
            fut.add_done_callback(lambda f: done.set())
            if done.wait(5):
                return fut.result()
            cl.remove_pending_request(fut)
        raise TimeoutError("no reply from " + cl.srv_name)

    emit({"ev": "ready"})
    for line in sys.stdin:
        cmd = json.loads(line)
        try:
            if cmd["cmd"] == "compare":
                theirs = call(cmd["node"], cmd["name"], cmd["hash"])
                ours = call("/py_types", cmd["name"], cmd["hash"])
                emit({"ev": "compared", "name": cmd["name"], "ok": theirs.successful, "reason": theirs.failure_reason,
                      "py_ok": ours.successful,
                      "equal": as_dict(theirs.type_description) == as_dict(ours.type_description),
                      "go": as_dict(theirs.type_description), "py": as_dict(ours.type_description)})
            elif cmd["cmd"] == "describe":
                r = call(cmd["node"], cmd["name"], cmd["hash"])
                emit({"ev": "described", "ok": r.successful, "reason": r.failure_reason,
                      "description": as_dict(r.type_description),
                      "sources": [[s.type_name, s.encoding, len(s.raw_file_contents)] for s in r.type_sources]})
        except Exception as e:  # noqa: BLE001 - reported to the test
            emit({"ev": "error", "error": repr(e)})
    os._exit(0)  # skip rclpy's teardown


if __name__ == "__main__":
    try:
        main()
    except BaseException as e:
        emit({"ev": "error", "error": repr(e)})
        os._exit(1)
