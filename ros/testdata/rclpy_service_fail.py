"""An rclpy peer for the Go test of failing service requests
(service_fail_py_test.go), std_srvs/srv/SetBool.

Usage: python rclpy_service_fail.py server|client SERVICE

  server  serves SERVICE: a request with data true is answered
          success=true, message "ok"; with data false its callback raises
          RuntimeError("refused"), as a failing rclpy server does. rclpy
          sends no reply then (DDS services have no error reply); the
          exception is printed on stderr and the server keeps serving.
  client  reads {"op": "call", "data": B, "timeout": S} lines on stdin and
          calls SERVICE, printing {"ev": "reply", "success": B, "message": M}
          or {"ev": "timeout"} when no reply came within S seconds (rclpy's
          Client.call with timeout_sec).

It prints {"ev": "ready"} first (the client once the service is available),
one JSON event per line on stdout, and exits when stdin closes.
"""

import json
import os
import sys
import threading
import traceback

import rclpy
from rclpy.executors import SingleThreadedExecutor
from rclpy.node import Node
from std_srvs.srv import SetBool


def emit(ev):
    sys.stdout.write(json.dumps(ev) + "\n")
    sys.stdout.flush()


def serve(node, service):
    def handle(req, res):
        if not req.data:
            raise RuntimeError("refused")
        res.success, res.message = True, "ok"
        return res

    node.create_service(SetBool, service, handle)
    ex = SingleThreadedExecutor()
    ex.add_node(node)
    threading.Thread(target=lambda: (sys.stdin.read(), os._exit(0)), daemon=True).start()
    emit({"ev": "ready"})
    while True:
        try:
            ex.spin_once(timeout_sec=0.1)
        except Exception:  # a raising callback surfaces here: log it, keep serving
            traceback.print_exc()
            sys.stderr.flush()
            emit({"ev": "raised"})


def call(node, service):
    cli = node.create_client(SetBool, service)
    if not cli.wait_for_service(timeout_sec=30):
        emit({"ev": "error", "error": "service not available"})
        os._exit(1)
    ex = SingleThreadedExecutor()
    ex.add_node(node)
    threading.Thread(target=ex.spin, daemon=True).start()
    emit({"ev": "ready"})
    for line in sys.stdin:
        cmd = json.loads(line)
        if cmd.get("op") != "call":
            continue
        req = SetBool.Request(data=bool(cmd["data"]))
        fut = cli.call_async(req)
        done = threading.Event()
        fut.add_done_callback(lambda f: done.set())
        if done.wait(float(cmd.get("timeout", 5))):
            res = fut.result()
            emit({"ev": "reply", "success": res.success, "message": res.message})
        else:
            cli.remove_pending_request(fut)
            emit({"ev": "timeout"})
    os._exit(0)


def main():
    role, service = sys.argv[1], sys.argv[2]
    rclpy.init()
    node = Node("py_srv_" + role)
    if role == "server":
        serve(node, service)
    else:
        call(node, service)


if __name__ == "__main__":
    try:
        main()
    except BaseException as e:
        emit({"ev": "error", "error": repr(e)})
        os._exit(1)
