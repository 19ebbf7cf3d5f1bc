"""An rclpy peer for the Go lifecycle interop tests (interop_py_test.go).

Usage: python rclpy_lifecycle.py GO_NODE TOPIC    (GO_NODE "-": no Go node to drive)

It runs two nodes on a multi-threaded executor:

  py_driver   a plain node that drives the Go managed node GO_NODE through
              its lifecycle services, as ros2 lifecycle does, and listens to
              its transition_event topic and to TOPIC (std_msgs/msg/String,
              the Go node's lifecycle publisher);
  py_managed  an rclpy.lifecycle.LifecycleNode for the Go client to drive,
              whose on_configure raises while "configure_error" is set.

Commands, one JSON object per line on stdin; answers and events, one JSON
object per line on stdout:

  {"cmd": "change", "label": L} or {"cmd": "change", "id": N}
      -> {"ev": "changed", "success": bool}
  {"cmd": "get"}                       -> {"ev": "state", "id": N, "label": L}
  {"cmd": "available"}                 -> {"ev": "available", "list": ["label [id] start->goal", ...]}
  {"cmd": "configure_error", "on": bool} -> {"ev": "ok"}

  {"ev": "transition", "start": L, "goal": L, "tid": N, "tlabel": L, "stamp": N}
      for every transition event of GO_NODE
  {"ev": "chatter", "data": S}         for every message on TOPIC
  {"ev": "handler", "name": N, "from": L} for every py_managed callback
  {"ev": "ready"} once everything exists. It exits when stdin closes.
"""

import json
import sys
import threading

import rclpy
from lifecycle_msgs.msg import Transition, TransitionEvent
from lifecycle_msgs.srv import ChangeState, GetAvailableTransitions, GetState
from rclpy.executors import MultiThreadedExecutor
from rclpy.lifecycle import LifecycleNode, TransitionCallbackReturn
from rclpy.node import Node
from std_msgs.msg import String

lock = threading.Lock()


def emit(ev):
    with lock:
        sys.stdout.write(json.dumps(ev) + "\n")
        sys.stdout.flush()


class Managed(LifecycleNode):
    def __init__(self):
        super().__init__("py_managed")
        self.configure_error = False

    def _record(self, name, state):
        emit({"ev": "handler", "name": name, "from": state.label})

    def on_configure(self, state):
        self._record("on_configure", state)
        if self.configure_error:
            raise RuntimeError("configure failed on purpose")
        return TransitionCallbackReturn.SUCCESS

    def on_activate(self, state):
        self._record("on_activate", state)
        return TransitionCallbackReturn.SUCCESS

    def on_deactivate(self, state):
        self._record("on_deactivate", state)
        return TransitionCallbackReturn.SUCCESS

    def on_cleanup(self, state):
        self._record("on_cleanup", state)
        return TransitionCallbackReturn.SUCCESS

    def on_shutdown(self, state):
        self._record("on_shutdown", state)
        return TransitionCallbackReturn.SUCCESS

    def on_error(self, state):
        self._record("on_error", state)
        return TransitionCallbackReturn.SUCCESS


def call(client, request, retry=False):
    # wait_for_service looks at the graph only: a first request may reach
    # the server before its reply writer matched this client's reader, and
    # a DDS server then drops the reply after its max_blocking_time. A
    # query (retry) is asked again; a change of state is not.
    for attempt in range(4 if retry else 1):
        done = threading.Event()
        fut = client.call_async(request)
        fut.add_done_callback(lambda f: done.set())
        if done.wait(5 if retry else 20):
            return fut.result()
        client.remove_pending_request(fut)
    raise TimeoutError("no reply from " + client.srv_name)


def main():
    go_node, topic = sys.argv[1], sys.argv[2]
    if go_node == "-":
        go_node = "/none"
    rclpy.init()
    driver = Node("py_driver")
    managed = Managed()
    driver.create_subscription(
        TransitionEvent, go_node + "/transition_event",
        lambda m: emit({"ev": "transition", "start": m.start_state.label, "goal": m.goal_state.label,
                        "tid": m.transition.id, "tlabel": m.transition.label, "stamp": m.timestamp}), 10)
    driver.create_subscription(String, topic, lambda m: emit({"ev": "chatter", "data": m.data}), 10)
    change = driver.create_client(ChangeState, go_node + "/change_state")
    get = driver.create_client(GetState, go_node + "/get_state")
    available = driver.create_client(GetAvailableTransitions, go_node + "/get_available_transitions")

    ex = MultiThreadedExecutor(num_threads=4)
    ex.add_node(driver)
    ex.add_node(managed)
    spin = threading.Thread(target=ex.spin, daemon=True)
    spin.start()
    for c in (change, get, available) if go_node != "/none" else ():
        if not c.wait_for_service(timeout_sec=20):
            emit({"ev": "error", "msg": "no service " + c.srv_name})
            return
    emit({"ev": "ready"})

    for line in sys.stdin:
        cmd = json.loads(line)
        try:
            if cmd["cmd"] == "change":
                req = ChangeState.Request()
                req.transition = Transition(id=cmd.get("id", 0), label=cmd.get("label", ""))
                emit({"ev": "changed", "success": call(change, req).success})
            elif cmd["cmd"] == "get":
                s = call(get, GetState.Request(), retry=True).current_state
                emit({"ev": "state", "id": s.id, "label": s.label})
            elif cmd["cmd"] == "available":
                ts = call(available, GetAvailableTransitions.Request(), retry=True).available_transitions
                emit({"ev": "available", "list": ["%s [%d] %s->%s" % (t.transition.label, t.transition.id,
                                                                      t.start_state.label, t.goal_state.label)
                                                  for t in ts]})
            elif cmd["cmd"] == "configure_error":
                managed.configure_error = cmd["on"]
                emit({"ev": "ok"})
        except Exception as e:  # noqa: BLE001 - reported to the test
            emit({"ev": "error", "msg": repr(e)})
    rclpy.try_shutdown()
    spin.join(5)
    ex.shutdown()


if __name__ == "__main__":
    main()
