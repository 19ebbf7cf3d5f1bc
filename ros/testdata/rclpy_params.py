"""An rclpy peer for the Go parameters, rosout and sim-time interop test
(interop_params_py_test.go).

Run it with a Python whose rclpy uses the middleware the Go side speaks.
It prints one JSON event per line on stdout (other output goes to stderr),
the first {"ev": "ready"}, and reads one JSON command per line on stdin:

  {"op": "list", "node": N, "prefixes": [...], "depth": D}
      -> {"ev": "list", "names": [...], "prefixes": [...]}
  {"op": "get", "node": N, "names": [...]}
      -> {"ev": "get", "values": [{"type": T, "value": V}, ...]}
  {"op": "types", "node": N, "names": [...]}
      -> {"ev": "types", "types": [...]}
  {"op": "describe", "node": N, "names": [...]}
      -> {"ev": "describe", "descriptors": [{"name", "type", "description",
          "read_only", "dynamic_typing", "integer_range", "floating_point_range"}]}
  {"op": "set", "node": N, "params": [{"name": K, "type": T, "value": V}, ...]}
      -> {"ev": "set", "results": [{"successful": B, "reason": R}, ...]}
  {"op": "set_atomically", "node": N, "params": [...]}
      -> {"ev": "set_atomically", "successful": B, "reason": R}
  {"op": "clock", "sec": S, "nanosec": NS}
      publish rosgraph_msgs/Clock on /clock -> {"ev": "clock"}
  {"op": "wait_service", "node": N}
      -> {"ev": "wait_service", "ok": B} once N's parameter services are up

where N is a fully qualified node name and T a rcl_interfaces ParameterType
number (the value is then JSON: a bool, number, string or list). A failed
call is {"ev": "error", "op": ..., "error": ...}.

Unprompted events:
  {"ev": "rosout", "name", "level", "msg", "file", "function", "line"}
      for every /rosout record whose logger name starts with "go"
  {"ev": "param_event", "node", "new": [names], "changed": [[name, T, V]],
   "deleted": [names]} for every /parameter_events message of another node

The peer's own node is /py_params, with the parameters
  speed        double 1.0, range [0, 10] step 0 ("meters per second")
  name         string "py"
  flags        bool[] [true, false]
  ro_param     int 7, read-only
and a set callback that refuses speed above 5 with the reason "too fast".
It exits when stdin closes.
"""

import json
import os
import sys
import threading

import rclpy
from rcl_interfaces.msg import FloatingPointRange, Log, ParameterDescriptor
from rcl_interfaces.msg import ParameterEvent, ParameterType, ParameterValue
from rcl_interfaces.msg import Parameter as ParameterMsg
from rcl_interfaces.msg import SetParametersResult
from rcl_interfaces.srv import DescribeParameters, GetParameters, GetParameterTypes
from rcl_interfaces.srv import ListParameters, SetParameters, SetParametersAtomically
from rclpy.executors import MultiThreadedExecutor
from rclpy.node import Node
from rclpy.qos import qos_profile_parameter_events, QoSProfile, ReliabilityPolicy
from rosgraph_msgs.msg import Clock

lock = threading.Lock()


def emit(**ev):
    with lock:
        sys.stdout.write(json.dumps(ev) + "\n")
        sys.stdout.flush()


FIELDS = {
    ParameterType.PARAMETER_BOOL: "bool_value",
    ParameterType.PARAMETER_INTEGER: "integer_value",
    ParameterType.PARAMETER_DOUBLE: "double_value",
    ParameterType.PARAMETER_STRING: "string_value",
    ParameterType.PARAMETER_BYTE_ARRAY: "byte_array_value",
    ParameterType.PARAMETER_BOOL_ARRAY: "bool_array_value",
    ParameterType.PARAMETER_INTEGER_ARRAY: "integer_array_value",
    ParameterType.PARAMETER_DOUBLE_ARRAY: "double_array_value",
    ParameterType.PARAMETER_STRING_ARRAY: "string_array_value",
}


def value_to_json(v):
    field = FIELDS.get(v.type)
    if field is None:
        return {"type": v.type, "value": None}
    x = getattr(v, field)
    if v.type == ParameterType.PARAMETER_BYTE_ARRAY:
        x = [b if isinstance(b, int) else ord(b) for b in x]
    elif not isinstance(x, (bool, int, float, str)):
        x = list(x)
    return {"type": v.type, "value": x}


def value_from_json(t, x):
    v = ParameterValue(type=t)
    field = FIELDS.get(t)
    if field is not None:
        if t == ParameterType.PARAMETER_BYTE_ARRAY:
            x = [bytes([b]) for b in x]
        setattr(v, field, x)
    return v


def descriptor_to_json(d):
    return {
        "name": d.name,
        "type": d.type,
        "description": d.description,
        "read_only": d.read_only,
        "dynamic_typing": d.dynamic_typing,
        "integer_range": [[r.from_value, r.to_value, r.step] for r in d.integer_range],
        "floating_point_range": [[r.from_value, r.to_value, r.step] for r in d.floating_point_range],
    }


class Peer:
    def __init__(self):
        self.node = Node("py_params")
        n = self.node
        n.declare_parameter(
            "speed", 1.0,
            ParameterDescriptor(
                description="meters per second",
                floating_point_range=[FloatingPointRange(from_value=0.0, to_value=10.0, step=0.0)]))
        n.declare_parameter("name", "py")
        n.declare_parameter("flags", [True, False])
        n.declare_parameter("ro_param", 7, ParameterDescriptor(read_only=True))
        n.add_on_set_parameters_callback(self.on_set)
        self.clock_pub = n.create_publisher(
            Clock, "/clock", QoSProfile(depth=1, reliability=ReliabilityPolicy.BEST_EFFORT))
        # /rosout with the rosout profile (transient local, so earlier
        # records of a Go node come too).
        n.create_subscription(Log, "/rosout", self.on_log, rclpy.qos.qos_profile_rosout_default)
        n.create_subscription(ParameterEvent, "/parameter_events", self.on_event,
                              qos_profile_parameter_events)
        self.clients = {}

    def on_set(self, params):
        for p in params:
            if p.name == "speed" and p.value > 5:
                return SetParametersResult(successful=False, reason="too fast")
        return SetParametersResult(successful=True)

    def on_log(self, m):
        if m.name.startswith("go"):
            emit(ev="rosout", name=m.name, level=m.level, msg=m.msg, file=m.file,
                 function=m.function, line=m.line, sec=m.stamp.sec)

    def on_event(self, m):
        if m.node == self.node.get_fully_qualified_name():
            return
        emit(ev="param_event", node=m.node,
             new=[p.name for p in m.new_parameters],
             changed=[[p.name, p.value.type, value_to_json(p.value)["value"]] for p in m.changed_parameters],
             deleted=[p.name for p in m.deleted_parameters])

    def client(self, node, srv_type, name):
        key = (node, name)
        if key not in self.clients:
            self.clients[key] = self.node.create_client(srv_type, node + "/" + name)
        return self.clients[key]

    def call(self, node, srv_type, name, req):
        c = self.client(node, srv_type, name)
        if not c.wait_for_service(timeout_sec=10.0):
            raise RuntimeError("no service " + node + "/" + name)
        fut = c.call_async(req)
        done = threading.Event()
        fut.add_done_callback(lambda _: done.set())
        if not done.wait(10.0):
            raise RuntimeError("no reply from " + node + "/" + name)
        return fut.result()

    def handle(self, cmd):
        op = cmd["op"]
        node = cmd.get("node", "")
        if op == "list":
            r = self.call(node, ListParameters, "list_parameters",
                          ListParameters.Request(prefixes=cmd.get("prefixes", []), depth=cmd.get("depth", 0)))
            emit(ev="list", names=list(r.result.names), prefixes=list(r.result.prefixes))
        elif op == "get":
            r = self.call(node, GetParameters, "get_parameters", GetParameters.Request(names=cmd["names"]))
            emit(ev="get", values=[value_to_json(v) for v in r.values])
        elif op == "types":
            r = self.call(node, GetParameterTypes, "get_parameter_types",
                          GetParameterTypes.Request(names=cmd["names"]))
            emit(ev="types", types=list(r.types))
        elif op == "describe":
            r = self.call(node, DescribeParameters, "describe_parameters",
                          DescribeParameters.Request(names=cmd["names"]))
            emit(ev="describe", descriptors=[descriptor_to_json(d) for d in r.descriptors])
        elif op in ("set", "set_atomically"):
            params = [ParameterMsg(name=p["name"], value=value_from_json(p["type"], p["value"]))
                      for p in cmd["params"]]
            if op == "set":
                r = self.call(node, SetParameters, "set_parameters", SetParameters.Request(parameters=params))
                emit(ev="set", results=[{"successful": x.successful, "reason": x.reason} for x in r.results])
            else:
                r = self.call(node, SetParametersAtomically, "set_parameters_atomically",
                              SetParametersAtomically.Request(parameters=params))
                emit(ev="set_atomically", successful=r.result.successful, reason=r.result.reason)
        elif op == "clock":
            m = Clock()
            m.clock.sec = cmd["sec"]
            m.clock.nanosec = cmd.get("nanosec", 0)
            self.clock_pub.publish(m)
            emit(ev="clock")
        elif op == "wait_service":
            c = self.client(node, ListParameters, "list_parameters")
            emit(ev="wait_service", ok=c.wait_for_service(timeout_sec=10.0))
        else:
            raise ValueError("unknown op " + op)


def main():
    rclpy.init()
    peer = Peer()
    executor = MultiThreadedExecutor()
    executor.add_node(peer.node)
    spin = threading.Thread(target=executor.spin, daemon=True)
    spin.start()
    emit(ev="ready")
    for line in sys.stdin:
        line = line.strip()
        if not line:
            continue
        try:
            cmd = json.loads(line)
        except ValueError as e:
            emit(ev="error", op="", error="bad command: %s" % e)
            continue
        # Commands run on their own threads: a slow call does not hold up
        # the others, and replies are matched by their "ev".
        def run(cmd=cmd):
            try:
                peer.handle(cmd)
            except Exception as e:  # reported to the Go side, not fatal
                emit(ev="error", op=cmd.get("op", ""), error=str(e))
        threading.Thread(target=run, daemon=True).start()
    executor.shutdown()
    peer.node.destroy_node()
    rclpy.try_shutdown()
    spin.join(timeout=5)
    sys.stdout.flush()
    # Command threads may still be inside rclpy: leave without running
    # their C++ destructors at interpreter exit.
    os._exit(0)


if __name__ == "__main__":
    main()
