"""rclpy probes (Fast DDS) for the discovery-range tests: the twin of the
Go probe role (probe_role_test.go).

Usage: rclpy_probe.py SIDE (a or b, in the node names)

Reads one JSON command per line on stdin,
{"id": I, "domain": D, "range": "SUBNET"|"LOCALHOST"|"OFF", "peers": [...]},
and for each starts a context of its own with ROS_DOMAIN_ID,
ROS_AUTOMATIC_DISCOVERY_RANGE and ROS_STATIC_PEERS set so (rcl reads them
when the context starts) and a node probe_<SIDE>_<I> in it; prints
{"ev": "started", "id": I}, then {"ev": "found", "id": I, "node": N} when
another node shows in that node's graph. Exits when stdin closes. Run
with RMW_IMPLEMENTATION=rmw_fastrtps_cpp and FASTDDS_BUILTIN_TRANSPORTS=UDPv4.
"""

import json
import os
import sys
import threading
import time

import rclpy
from rclpy.context import Context

lock = threading.Lock()


def emit(**ev):
    with lock:
        sys.stdout.write(json.dumps(ev) + "\n")
        sys.stdout.flush()


def main():
    side = sys.argv[1] if len(sys.argv) > 1 else "a"
    probes = []
    done = threading.Event()

    def watch():
        found = set()
        while not done.is_set():
            for pid, node in list(probes):
                if pid in found:
                    continue
                try:
                    names = node.get_node_names_and_namespaces()
                except Exception:  # noqa: BLE001 - a context shutting down
                    continue
                for n, ns in names:
                    full = ns.rstrip("/") + "/" + n
                    if n != "probe_%s_%s" % (side, pid):
                        found.add(pid)
                        emit(ev="found", id=pid, node=full, t=time.time_ns())
                        break
            time.sleep(0.05)

    threading.Thread(target=watch, daemon=True).start()
    for line in sys.stdin:
        line = line.strip()
        if not line:
            continue
        c = json.loads(line)
        os.environ["ROS_DOMAIN_ID"] = str(c["domain"])
        os.environ["ROS_AUTOMATIC_DISCOVERY_RANGE"] = c["range"]
        os.environ["ROS_STATIC_PEERS"] = ";".join(c.get("peers") or [])
        ctx = Context()
        rclpy.init(context=ctx)
        node = rclpy.create_node("probe_%s_%s" % (side, c["id"]), context=ctx)
        probes.append((c["id"], node))
        emit(ev="started", id=c["id"])
    done.set()
    for _, node in probes:
        ctx = node.context
        node.destroy_node()
        rclpy.try_shutdown(context=ctx)


main()
