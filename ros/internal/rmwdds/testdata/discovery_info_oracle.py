"""ros_discovery_info oracle for rmwdds tests, driven by oracle_test.go.

Reads a JSON request on stdin and writes a JSON answer on stdout, using
rclpy's serializer (rmw_fastrtps_cpp typesupport, Fast-CDR) and the
rmw_dds_common message types of the installed ROS 2 wheels:

  {"sample": {"gid": "<32 hex>", "nodes": [{"ns": ..., "name": ...,
   "readers": ["<32 hex>", ...], "writers": [...]}]},
   "ours": "<hex of the Go encoding>"}

answers {"theirs": "<hex of rclpy's encoding of sample>",
         "decoded": <our bytes deserialized by rclpy, in the sample's form>}.
"""

import json
import sys

from rclpy.serialization import deserialize_message, serialize_message
from rmw_dds_common.msg import Gid, NodeEntitiesInfo, ParticipantEntitiesInfo


def gid(h):
    g = Gid()
    g.data = list(bytes.fromhex(h))
    return g


def build(s):
    m = ParticipantEntitiesInfo()
    m.gid = gid(s["gid"])
    for n in s["nodes"]:
        e = NodeEntitiesInfo()
        e.node_namespace = n["ns"]
        e.node_name = n["name"]
        e.reader_gid_seq = [gid(r) for r in n["readers"]]
        e.writer_gid_seq = [gid(w) for w in n["writers"]]
        m.node_entities_info_seq.append(e)
    return m


def hexgid(g):
    return bytes(bytearray(g.data)).hex()


def describe(m):
    return {
        "gid": hexgid(m.gid),
        "nodes": [
            {
                "ns": n.node_namespace,
                "name": n.node_name,
                "readers": [hexgid(r) for r in n.reader_gid_seq],
                "writers": [hexgid(w) for w in n.writer_gid_seq],
            }
            for n in m.node_entities_info_seq
        ],
    }


req = json.load(sys.stdin)
theirs = serialize_message(build(req["sample"])).hex()
decoded = describe(deserialize_message(bytes.fromhex(req["ours"]), ParticipantEntitiesInfo))
json.dump({"theirs": theirs, "decoded": decoded}, sys.stdout)
