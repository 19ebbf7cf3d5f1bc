"""Drive zenoh-ext's advanced publisher or subscriber (the eclipse-zenoh
Python package), configured as rmw_zenoh_cpp configures them for a
TRANSIENT_LOCAL + RELIABLE entity, for the Go interop tests.

Usage: zenoh_adv.py pub|sub --connect EP --key K --depth N [--count C]

The session is a peer (multicast and gossip scouting off, timestamping on)
connected to EP.

pub: an AdvancedPublisher with a cache of N samples, sporadic heartbeat
     sample-miss detection (500 ms) and publisher detection. It puts C
     samples "adv <i>" with an rmw_zenoh attachment (seq i+1, GID 16 x 0xab),
     then prints {"ev": "ready"}; each stdin line {"op": "put", "payload": S}
     puts S with the next attachment.
sub: an AdvancedSubscriber with history (late publisher detection, N
     samples), heartbeat recovery and subscriber detection. It prints
     {"ev": "ready"} as it declares it, and then {"ev": "sample", "payload": S, "attachment": hex}
     for each sample.
Exits when stdin closes.
"""

import argparse
import json
import struct
import sys
import threading
import time

import zenoh
import zenoh.ext as ext

lock = threading.Lock()


def emit(**ev):
    with lock:
        sys.stdout.write(json.dumps(ev) + "\n")
        sys.stdout.flush()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("role", choices=["pub", "sub"])
    ap.add_argument("--connect", required=True)
    ap.add_argument("--key", required=True)
    ap.add_argument("--depth", type=int, default=5)
    ap.add_argument("--count", type=int, default=3)
    args = ap.parse_args()
    conf = zenoh.Config()
    conf.insert_json5("mode", json.dumps("peer"))
    conf.insert_json5("scouting/multicast/enabled", "false")
    conf.insert_json5("scouting/gossip/enabled", "false")
    conf.insert_json5("timestamping/enabled", "true")
    conf.insert_json5("listen/endpoints", "[]")
    conf.insert_json5("connect/endpoints", json.dumps([args.connect]))
    session = zenoh.open(conf)

    if args.role == "pub":
        pub = ext.declare_advanced_publisher(
            session, args.key,
            cache=ext.CacheConfig(args.depth),
            sample_miss_detection=ext.MissDetectionConfig(sporadic_heartbeat=0.5),
            publisher_detection=True)
        seq = [0]

        def put(payload):
            seq[0] += 1
            att = struct.pack("<qqB", seq[0], time.time_ns(), 16) + b"\xab" * 16
            pub.put(payload, attachment=att)

        for i in range(args.count):
            put("adv %d" % i)
        emit(ev="ready")
        for line in sys.stdin:
            put(json.loads(line)["payload"])
        pub.undeclare()
    else:
        def on_sample(s):
            att = s.attachment.to_bytes().hex() if s.attachment is not None else None
            emit(ev="sample", payload=s.payload.to_bytes().decode("utf-8", "replace"), attachment=att)

        emit(ev="ready")  # before its first sample
        sub = ext.declare_advanced_subscriber(
            session, args.key, on_sample,
            history=ext.HistoryConfig(detect_late_publishers=True, max_samples=args.depth),
            recovery=ext.RecoveryConfig(heartbeat=True),
            subscriber_detection=True)
        sys.stdin.read()
        sub.undeclare()
    session.close()


if __name__ == "__main__":
    main()
