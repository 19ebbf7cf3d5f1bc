"""Outside readers and writers of rosbag2 MCAP bags, for ros/bag's tests.

Reads with the `mcap` package and `mcap-ros2-support` (Foxglove's), and with
`rosbags` (Ternaris's), and writes bags with both. Every command prints JSON
on stdout: messages as one object per line, {"topic", "log_time",
"publish_time", "sequence", "msg"}, msg being the decoded message as plain
JSON values (byte arrays as lists of numbers, floats as numbers). Several
commands separated by "--" run in one process (Python and numpy start
once), each output after a line {"__cmd__": i}.

  read-mcap FILE            every message, decoded by mcap_ros2
  read-rosbags PATH         every message, decoded by rosbags's typestore
                            built from the bag's own definitions
  info-rosbags PATH         {"count", "start", "end", "duration", "topics": {name: [type, count]}}
  info-mcap FILE            the same from the MCAP summary
  write-mcap FILE COMP      a ros2 MCAP file (COMP: none, zstd, lz4), several types
  write-rosbags DIR COMP    a rosbag2 folder with the MCAP storage (COMP: none, zstd chunks)
"""
import json
import math
import sys

import numpy as np


def plain(v):
    """A decoded ROS message (any library's) as plain JSON values."""
    if isinstance(v, (bytes, bytearray, memoryview)):
        return list(bytes(v))
    if isinstance(v, np.ndarray):
        return [plain(x) for x in v.tolist()]
    if isinstance(v, (list, tuple)):
        return [plain(x) for x in v]
    if isinstance(v, (bool, np.bool_)):
        return bool(v)
    if isinstance(v, (int, np.integer)):
        return int(v)
    if isinstance(v, (float, np.floating)):
        f = float(v)
        if math.isnan(f):
            return "nan"
        if math.isinf(f):
            return "inf" if f > 0 else "-inf"
        return f
    if isinstance(v, str):
        return v
    if hasattr(v, "__slots__") and v.__slots__:
        return {k: plain(getattr(v, k)) for k in v.__slots__ if not k.startswith("_")}
    if hasattr(v, "__dataclass_fields__"):
        return {k: plain(getattr(v, k)) for k in v.__dataclass_fields__ if not k.startswith("_")}
    if hasattr(v, "__dict__"):
        return {k: plain(x) for k, x in vars(v).items() if not k.startswith("_")}
    raise TypeError(f"cannot convert {type(v)}")


def emit(topic, log_time, publish_time, sequence, msg):
    print(json.dumps({"topic": topic, "log_time": log_time, "publish_time": publish_time,
                      "sequence": sequence, "msg": plain(msg)}))


def read_mcap(path):
    from mcap.reader import make_reader
    from mcap_ros2.decoder import DecoderFactory
    with open(path, "rb") as f:
        reader = make_reader(f, decoder_factories=[DecoderFactory()])
        for schema, channel, message, decoded in reader.iter_decoded_messages(log_time_order=True):
            emit(channel.topic, message.log_time, message.publish_time, message.sequence, decoded)


def typestore_for(reader):
    from rosbags.typesys import Stores, get_typestore, get_types_from_msg
    store = get_typestore(Stores.EMPTY)
    types = {}
    for conn in reader.connections:
        if conn.msgdef.data:
            types.update(get_types_from_msg(conn.msgdef.data, conn.msgtype) if conn.msgdef.format == "msg"
                         else {})
    store.register(types)
    return store


def read_rosbags(path):
    from pathlib import Path
    from rosbags.highlevel import AnyReader
    with AnyReader([Path(path)]) as reader:
        for conn, t, raw in reader.messages():
            msg = reader.deserialize(raw, conn.msgtype)
            emit(conn.topic, t, None, None, msg)


def info_rosbags(path):
    from pathlib import Path
    from rosbags.highlevel import AnyReader
    with AnyReader([Path(path)]) as reader:
        topics = {}
        for conn in reader.connections:
            name, cnt = conn.topic, conn.msgcount
            if name in topics:
                topics[name][1] += cnt
            else:
                topics[name] = [conn.msgtype, cnt]
        print(json.dumps({"count": reader.message_count, "start": reader.start_time,
                          "end": reader.end_time, "duration": reader.duration, "topics": topics}))


def info_mcap(path):
    from mcap.reader import make_reader
    with open(path, "rb") as f:
        s = make_reader(f).get_summary()
        topics = {}
        for cid, ch in s.channels.items():
            topics[ch.topic] = [s.schemas[ch.schema_id].name, s.statistics.channel_message_counts.get(cid, 0)]
        print(json.dumps({"count": s.statistics.message_count, "start": s.statistics.message_start_time,
                          "end": s.statistics.message_end_time, "topics": topics,
                          "profile": make_reader(open(path, "rb")).get_header().profile}))


STRING = "string data\n"
POINT = "float64 x\nfloat64 y\nfloat64 z\n"
HEADER_DEPS = ("builtin_interfaces/Time stamp\nstring frame_id\n"
               "================================================================================\n"
               "MSG: builtin_interfaces/Time\nint32 sec\nuint32 nanosec\n")
POSE_STAMPED = ("std_msgs/Header header\ngeometry_msgs/Pose pose\n"
                "================================================================================\n"
                "MSG: geometry_msgs/Pose\ngeometry_msgs/Point position\ngeometry_msgs/Quaternion orientation\n"
                "================================================================================\n"
                "MSG: geometry_msgs/Point\n" + POINT +
                "================================================================================\n"
                "MSG: geometry_msgs/Quaternion\nfloat64 x 0\nfloat64 y 0\nfloat64 z 0\nfloat64 w 1\n"
                "================================================================================\n"
                "MSG: std_msgs/Header\n" + HEADER_DEPS)
IMAGE = ("std_msgs/Header header\nuint32 height\nuint32 width\nstring encoding\nuint8 is_bigendian\n"
         "uint32 step\nuint8[] data\n"
         "================================================================================\n"
         "MSG: std_msgs/Header\n" + HEADER_DEPS)
N = 40


def sample(i):
    """The i-th message of each topic the writers write, as dicts."""
    stamp = {"sec": 1700000000 + i, "nanosec": 1000 * i}
    return {
        "/chatter": ("std_msgs/msg/String", STRING, {"data": f"hello {i}"}),
        "/pose": ("geometry_msgs/msg/PoseStamped", POSE_STAMPED,
                  {"header": {"stamp": stamp, "frame_id": "map"},
                   "pose": {"position": {"x": i * 0.5, "y": -1.25, "z": 3.0},
                            "orientation": {"x": 0.0, "y": 0.0, "z": 0.0, "w": 1.0}}}),
        "/camera": ("sensor_msgs/msg/Image", IMAGE,
                    {"header": {"stamp": stamp, "frame_id": "cam"}, "height": 2, "width": 3,
                     "encoding": "mono8", "is_bigendian": 0, "step": 3,
                     "data": bytes(range(i, i + 6))}),
    }


def t_of(i, topic):
    return 1_700_000_000_000_000_000 + i * 10_000_000 + {"/chatter": 0, "/pose": 1, "/camera": 2}[topic]


def write_mcap(path, comp):
    from mcap.writer import CompressionType
    from mcap_ros2.writer import Writer
    ct = {"none": CompressionType.NONE, "zstd": CompressionType.ZSTD, "lz4": CompressionType.LZ4}[comp]
    with open(path, "wb") as f:
        w = Writer(f, chunk_size=4096, compression=ct)
        schemas = {}
        for i in range(N):
            for topic, (typ, text, msg) in sample(i).items():
                if typ not in schemas:
                    schemas[typ] = w.register_msgdef(typ, text)
                t = t_of(i, topic)
                w.write_message(topic, schemas[typ], msg, log_time=t, publish_time=t - 5, sequence=i)
        w.finish()


def write_rosbags(path, comp):
    from rosbags.rosbag2 import Writer
    from rosbags.rosbag2.enums import CompressionFormat, CompressionMode, StoragePlugin
    from rosbags.typesys import Stores, get_typestore
    store = get_typestore(Stores.ROS2_KILTED)
    w = Writer(path, version=9, storage_plugin=StoragePlugin.MCAP)
    if comp == "zstd":  # zstd chunks ("storage" compression)
        w.set_compression(CompressionMode.STORAGE, CompressionFormat.ZSTD)
    with w:
        conns = {}
        for i in range(N):
            for topic, (typ, _text, msg) in sample(i).items():
                if topic not in conns:
                    conns[topic] = w.add_connection(topic, typ, typestore=store)
                obj = build(store, typ, msg)
                w.write(conns[topic], t_of(i, topic), store.serialize_cdr(obj, typ))


def build(store, typ, value):
    cls = store.types[typ]
    fields = {}
    for name, desc in zip(cls.__dataclass_fields__, store.fielddefs[typ][1]):
        v = value[name]
        kind = desc[1]
        if kind[0] == 2:  # nested message
            fields[name] = build(store, kind[1], v)
        elif isinstance(v, (bytes, bytearray)):
            fields[name] = np.frombuffer(v, dtype=np.uint8).copy()
        else:
            fields[name] = v
    return cls(**fields)


def main():
    """Runs the commands of the arguments, separated by "--", one after the
    other in this process, each output preceded by a line {"__cmd__": i}."""
    cmds = {"read-mcap": read_mcap, "read-rosbags": read_rosbags, "info-rosbags": info_rosbags,
            "info-mcap": info_mcap, "write-mcap": write_mcap, "write-rosbags": write_rosbags}
    args, group = [], []
    for a in sys.argv[1:] + ["--"]:
        if a == "--":
            if group:
                args.append(group)
            group = []
        else:
            group.append(a)
    for i, (cmd, *rest) in enumerate(args):
        print(json.dumps({"__cmd__": i}), flush=True)
        cmds[cmd](*rest)
    sys.stdout.flush()


if __name__ == "__main__":
    main()
