"""An rclpy peer for the Go actions interop test (action_interop_py_test.go).

Run it with a Python whose rclpy uses the middleware the Go side speaks:

  rclpy_action.py server   an action server of "fibonacci"
  rclpy_action.py client   an action client of "fibonacci"

The type is example_interfaces/action/Fibonacci (the wheel
ros-example-interfaces); AFOR_ACTION_TYPE=test_msgs.action.Fibonacci picks
the same-shaped type of test_msgs, to try this script rclpy to rclpy.

It prints one JSON event per line on stdout (other output goes to stderr),
the first {"ev": "ready"}.

The server accepts a goal of order >= 0 and rejects the others; it
computes the sequence one number every STEP seconds (0.05), publishing
each partial sequence as feedback, and accepts every cancel request. It
reports {"ev": "goal", "order": N, "accepted": B} for each goal and
{"ev": "done", "order": N, "status": S, "sequence": [...]} when one ends.

The client reads one JSON command per line on stdin:

  {"op": "wait_server"}            -> {"ev": "wait_server", "ok": B}
  {"op": "goal", "order": N, "cancel_after": K}
      sends a goal; with K > 0 cancels it after K feedback messages
      -> {"ev": "result", "accepted": B, "status": S, "sequence": [...],
          "feedback": [[...], ...], "cancel_code": C}

S is an action_msgs/GoalStatus number (4 succeeded, 5 canceled, 6
aborted), C the CancelGoal return code (absent without a cancel). Errors
are {"ev": "error", "error": ...}. The process ends on stdin EOF.
"""

import importlib
import json
import os
import sys
import threading
import time

import rclpy
from rclpy.action import ActionClient, ActionServer, CancelResponse, GoalResponse
from rclpy.callback_groups import ReentrantCallbackGroup
from rclpy.executors import MultiThreadedExecutor

STEP = 0.05
WAIT = 10.0


def load_type():
    name = os.environ.get("AFOR_ACTION_TYPE", "example_interfaces.action.Fibonacci")
    module, _, cls = name.rpartition(".")
    return getattr(importlib.import_module(module), cls)


def emit(**ev):
    sys.stdout.write(json.dumps(ev) + "\n")
    sys.stdout.flush()


def run_server(node, Fibonacci):
    group = ReentrantCallbackGroup()

    def on_goal(goal):
        ok = goal.order >= 0
        emit(ev="goal", order=goal.order, accepted=ok)
        return GoalResponse.ACCEPT if ok else GoalResponse.REJECT

    def execute(handle):
        order = handle.request.order
        seq = [0, 1]
        for i in range(1, order):
            time.sleep(STEP)
            if handle.is_cancel_requested:
                handle.canceled()
                emit(ev="done", order=order, status=5, sequence=seq)
                return Fibonacci.Result(sequence=seq)
            seq.append(seq[i] + seq[i - 1])
            fb = Fibonacci.Feedback()
            fb.sequence = list(seq)
            handle.publish_feedback(fb)
        handle.succeed()
        emit(ev="done", order=order, status=4, sequence=seq)
        return Fibonacci.Result(sequence=seq)

    server = ActionServer(node, Fibonacci, "fibonacci", execute_callback=execute,
                          goal_callback=on_goal,
                          cancel_callback=lambda _goal: CancelResponse.ACCEPT,
                          callback_group=group)
    emit(ev="ready")
    sys.stdin.read()  # until EOF
    server.destroy()


def wait_future(future, timeout=WAIT):
    done = threading.Event()
    future.add_done_callback(lambda _f: done.set())
    if not done.wait(timeout):
        raise TimeoutError("no answer in %ss" % timeout)
    return future.result()


def send_goal(client, Fibonacci, order, cancel_after):
    feedback = []
    enough = threading.Event()

    def on_feedback(msg):
        feedback.append(list(msg.feedback.sequence))
        if cancel_after and len(feedback) >= cancel_after:
            enough.set()

    handle = wait_future(client.send_goal_async(Fibonacci.Goal(order=order), feedback_callback=on_feedback))
    if not handle.accepted:
        return dict(ev="result", accepted=False, status=0, sequence=[], feedback=feedback)
    ev = dict(ev="result", accepted=True)
    if cancel_after:
        if not enough.wait(WAIT):
            raise TimeoutError("no feedback to cancel after")
        ev["cancel_code"] = wait_future(handle.cancel_goal_async()).return_code
    res = wait_future(handle.get_result_async())
    ev.update(status=res.status, sequence=list(res.result.sequence), feedback=feedback)
    return ev


def run_client(node, Fibonacci):
    client = ActionClient(node, Fibonacci, "fibonacci", callback_group=ReentrantCallbackGroup())
    emit(ev="ready")
    for line in sys.stdin:
        try:
            cmd = json.loads(line)
            if cmd["op"] == "wait_server":
                emit(ev="wait_server", ok=client.wait_for_server(timeout_sec=WAIT))
            elif cmd["op"] == "goal":
                emit(**send_goal(client, Fibonacci, cmd["order"], cmd.get("cancel_after", 0)))
            else:
                emit(ev="error", error="unknown op %r" % cmd["op"])
        except Exception as e:  # report, keep serving
            emit(ev="error", error="%s: %s" % (type(e).__name__, e))
    client.destroy()


def main():
    role = sys.argv[1] if len(sys.argv) > 1 else ""
    if role not in ("server", "client"):
        sys.exit("usage: rclpy_action.py server|client")
    Fibonacci = load_type()
    rclpy.init()
    node = rclpy.create_node("py_action_" + role)
    executor = MultiThreadedExecutor()
    executor.add_node(node)
    spinner = threading.Thread(target=executor.spin, daemon=True)
    spinner.start()
    try:
        (run_server if role == "server" else run_client)(node, Fibonacci)
    finally:
        executor.shutdown()
        # Join the spinner before tearing down: a thread still inside
        # rclpy at exit aborts the process on rmw_zenoh_cpp.
        spinner.join(timeout=5)
        node.destroy_node()
        rclpy.try_shutdown()


if __name__ == "__main__":
    main()
