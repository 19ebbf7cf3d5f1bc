"""Drive a Rust Zenoh session (the eclipse-zenoh Python package) for the Go
interop tests.

Usage: zenoh_peer.py --mode peer|client|router [--listen EP] [--connect EP]
                     [--client] [--gossip]

Multicast scouting is always off; gossip scouting is off unless --gossip.

With --client, a second session in client mode is opened, connected to the
first one's listen endpoint, and the commands below act on it (the first
session then only routes).

Reads one JSON command per line on stdin and writes one JSON event per line
on stdout. The first event is {"ev": "ready", "zid": ...}. Commands:
  {"op": "sub", "key": K}                 declare a subscriber -> {"ev": "ok"}
  {"op": "pub", "key": K, "wait": true, "declare_keyexpr": true}
                                          declare a publisher (on a declared key
                                          expression); with wait, answer once
                                          it has a match
  {"op": "put", "key": K, "size": N, "payload": S, "encoding": E,
   "attachment": A, "ts": true}           publish (payload: S, or N pattern bytes;
                                          ts: with a fresh timestamp)
  {"op": "delete", "key": K, "attachment": A}
  {"op": "quit"}
Samples are reported as {"ev": "sample", "key", "kind", "len", "sha256",
"payload" (text, when under 256 bytes), "encoding", "attachment", "ts"}.
"""

import argparse
import hashlib
import json
import sys
import threading

import zenoh

out_lock = threading.Lock()


def emit(**ev):
    line = json.dumps(ev)
    with out_lock:
        sys.stdout.write(line + "\n")
        sys.stdout.flush()


def pattern(n):
    return bytes((i * 7) & 0xFF for i in range(n))


def make_config(mode, listen, connect, gossip=False):
    conf = zenoh.Config()
    conf.insert_json5("mode", json.dumps(mode))
    conf.insert_json5("scouting/multicast/enabled", "false")
    conf.insert_json5("scouting/gossip/enabled", json.dumps(gossip))
    conf.insert_json5("listen/endpoints", json.dumps([listen] if listen else []))
    conf.insert_json5("connect/endpoints", json.dumps([connect] if connect else []))
    return conf


def on_sample(sample):
    payload = sample.payload.to_bytes()
    ev = {
        "ev": "sample",
        "key": str(sample.key_expr),
        "kind": str(sample.kind).split(".")[-1],
        "len": len(payload),
        "sha256": hashlib.sha256(payload).hexdigest(),
        "encoding": str(sample.encoding),
        "attachment": None,
        "ts": None,
    }
    if len(payload) < 256:
        ev["payload"] = payload.decode("utf-8", "replace")
    if sample.attachment is not None:
        ev["attachment"] = sample.attachment.to_bytes().decode("utf-8", "replace")
    if sample.timestamp is not None:
        ev["ts"] = str(sample.timestamp)
    emit(**ev)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mode", default="peer")
    ap.add_argument("--listen")
    ap.add_argument("--connect")
    ap.add_argument("--client", action="store_true")
    ap.add_argument("--gossip", action="store_true")
    args = ap.parse_args()

    zenoh.init_log_from_env_or("error")
    base = zenoh.open(make_config(args.mode, args.listen, args.connect, args.gossip))
    session = base
    if args.client:
        session = zenoh.open(make_config("client", None, args.listen))
    keep = []
    keyexprs = []
    pubs = {}
    emit(ev="ready", zid=str(session.zid()))
    for line in sys.stdin:
        line = line.strip()
        if not line:
            continue
        cmd = json.loads(line)
        op = cmd["op"]
        if op == "quit":
            break
        if op == "sub":
            keep.append(session.declare_subscriber(cmd["key"], on_sample))
        elif op == "pub":
            # Block rather than drop under congestion: the tests count samples.
            key = cmd["key"]
            if cmd.get("declare_keyexpr"):
                # Publish through a declared key expression (D_KEYEXPR and
                # scoped wire expressions on the wire).
                key = session.declare_keyexpr(key)
                keyexprs.append(key)
            pub = session.declare_publisher(
                key, congestion_control=zenoh.CongestionControl.BLOCK
            )
            pubs[cmd["key"]] = pub
            if cmd.get("wait"):
                matched = threading.Event()
                listener = pub.declare_matching_listener(
                    lambda st: st.matching and matched.set()
                )
                if pub.matching_status.matching:
                    matched.set()
                matched.wait()
                listener.undeclare()
        elif op == "put":
            payload = cmd.get("payload")
            payload = payload.encode() if payload is not None else pattern(cmd.get("size", 0))
            kw = {}
            if cmd.get("encoding"):
                kw["encoding"] = zenoh.Encoding(cmd["encoding"])
            if cmd.get("attachment") is not None:
                kw["attachment"] = cmd["attachment"].encode()
            if cmd.get("ts"):
                kw["timestamp"] = session.new_timestamp()
            target = pubs.get(cmd["key"])
            if target is not None:
                target.put(payload, **kw)
            else:
                session.put(
                    cmd["key"], payload,
                    congestion_control=zenoh.CongestionControl.BLOCK, **kw
                )
        elif op == "delete":
            kw = {}
            if cmd.get("attachment") is not None:
                kw["attachment"] = cmd["attachment"].encode()
            target = pubs.get(cmd["key"])
            if target is not None:
                target.delete(**kw)
            else:
                session.delete(cmd["key"], **kw)
        else:
            emit(ev="error", error="unknown op " + op)
            continue
        emit(ev="ok", op=op)
    for p in pubs.values():
        p.undeclare()
    for s in keep:
        s.undeclare()
    for k in keyexprs:
        session.undeclare(k)
    if session is not base:
        session.close()
    base.close()


if __name__ == "__main__":
    main()
