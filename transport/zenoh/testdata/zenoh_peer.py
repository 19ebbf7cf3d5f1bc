"""Drive a Rust Zenoh session (the eclipse-zenoh Python package) for the Go
interop tests.

Usage: zenoh_peer.py --mode peer|client|router [--listen EP] [--connect EP]
                     [--client] [--gossip] [--rmw] [--zid HEX]
                     [--set PATH=JSON5]...

Multicast scouting is always off; gossip scouting is off unless --gossip.
--rmw sets gossip up as rmw_zenoh's session config does (on, multihop off,
a peer gossiping to routers only and dialling only peers with a smaller
ZID), and for a router rmw_zenohd's (no failover brokering between peers).
--zid sets the Zenoh ID (hex, as printed).
--set inserts a configuration value (e.g. transport/link/tls/enable_mtls=true)
into every session it opens. EP may be of any link type (tcp, tls, quic, udp,
unixsock-stream, IPv6 addresses in brackets).

With --client, a second session in client mode is opened, connected to the
first one's listen endpoint, and the commands below act on it (the first
session then only routes).

Reads one JSON command per line on stdin and writes one JSON event per line
on stdout. The first event is {"ev": "ready", "zid": ..., "listen": EP}, EP
being the endpoint listened on, with the port the system chose if --listen
gave port 0 (so that tests never pick a "free" port and race for it).
Commands:
  {"op": "sub", "key": K}                 declare a subscriber -> {"ev": "ok"}
  {"op": "pub", "key": K, "wait": true, "declare_keyexpr": true}
                                          declare a publisher (on a declared key
                                          expression); with wait, answer once
                                          it has a match
  {"op": "put", "key": K, "size": N, "payload": S, "encoding": E,
   "attachment": A, "ts": true}           publish (payload: S, or N pattern bytes;
                                          ts: with a fresh timestamp)
  {"op": "delete", "key": K, "attachment": A}
  {"op": "queryable", "key": K, "replies": N, "error": E, "complete": C}
                                          declare a queryable answering each query
                                          with N replies on the query's key (payload
                                          "py<i>:<parameters>:<query payload>"), then
                                          an error reply E if given
  {"op": "get", "selector": S, "payload": P, "timeout": T, "target": "all"}
                                          query (consolidation none) and answer
                                          {"ev": "ok", "replies": [{"key", "payload",
                                          "err", "kind", "attachment"}, ...]}
  {"op": "token", "key": K}               declare a liveliness token
  {"op": "untoken", "key": K}             undeclare it
  {"op": "lsub", "key": K, "history": H}  declare a liveliness subscriber; its
                                          events are {"ev": "live", "key", "kind"}
  {"op": "lget", "key": K, "timeout": T}  liveliness get -> {"ev": "ok", "keys": [...]}
  {"op": "echo", "from": K1, "to": K2}    republish every sample of K1 on K2, from
                                          the subscriber's callback (benchmarks)
  {"op": "crash"}                         exit at once, closing nothing
  {"op": "quit"}
Samples are reported as {"ev": "sample", "key", "kind", "len", "sha256",
"payload" (text, when under 256 bytes), "encoding", "attachment", "ts",
"qos": "PRIORITY/CONGESTION/express-or-dash"}.
"""

import argparse
import hashlib
import json
import os
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


def make_config(mode, listen, connect, gossip=False, rmw=False, zid=None):
    conf = zenoh.Config()
    conf.insert_json5("mode", json.dumps(mode))
    if zid:
        conf.insert_json5("id", json.dumps(zid))
    conf.insert_json5("scouting/multicast/enabled", "false")
    conf.insert_json5("scouting/gossip/enabled", json.dumps(gossip or rmw))
    if rmw:
        conf.insert_json5("scouting/gossip/multihop", "false")
        conf.insert_json5("scouting/gossip/target", '{"router": ["router", "peer"], "peer": ["router"]}')
        conf.insert_json5("scouting/gossip/autoconnect", '{"router": [], "peer": ["router", "peer"]}')
        conf.insert_json5("scouting/gossip/autoconnect_strategy",
                          '{"peer": {"to_router": "always", "to_peer": "greater-zid"}}')
        if mode == "router":
            conf.insert_json5("routing/router/peers_failover_brokering", "false")
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
        "qos": "%s/%s/%s" % (str(sample.priority).split(".")[-1], str(sample.congestion_control).split(".")[-1],
                             "express" if sample.express else "-"),
    }
    if len(payload) < 256:
        ev["payload"] = payload.decode("utf-8", "replace")
    if sample.attachment is not None:
        ev["attachment"] = sample.attachment.to_bytes().decode("utf-8", "replace")
    if sample.timestamp is not None:
        ev["ts"] = str(sample.timestamp)
    emit(**ev)


def make_queryable_handler(n, error):
    def handler(query):
        params = str(query.parameters)
        body = query.payload.to_bytes().decode("utf-8", "replace") if query.payload is not None else ""
        for i in range(n):
            query.reply(query.key_expr, f"py{i}:{params}:{body}".encode(), attachment=b"pyatt")
        if error:
            query.reply_err(error.encode())

    return handler


def do_get(session, cmd):
    kw = {"consolidation": zenoh.ConsolidationMode.NONE}
    if cmd.get("payload") is not None:
        kw["payload"] = cmd["payload"].encode()
    if cmd.get("timeout") is not None:
        kw["timeout"] = cmd["timeout"]
    if cmd.get("target") == "all":
        kw["target"] = zenoh.QueryTarget.ALL
    replies = []
    for reply in session.get(cmd["selector"], **kw):
        if reply.ok is not None:
            smp = reply.ok
            replies.append({
                "key": str(smp.key_expr),
                "payload": smp.payload.to_bytes().decode("utf-8", "replace"),
                "kind": str(smp.kind).split(".")[-1],
                "attachment": smp.attachment.to_bytes().decode() if smp.attachment is not None else None,
                "err": False,
            })
        else:
            replies.append({"payload": reply.err.payload.to_bytes().decode("utf-8", "replace"), "err": True})
    return replies


def bound_endpoint(ep):
    """Returns ep with port 0 replaced by the port this process listens on
    (read from /proc: the Python API does not tell it), without its
    configuration (after '#')."""
    if not ep:
        return ep
    ep = ep.split("#", 1)[0]
    proto, rest = ep.split("/", 1)
    if proto not in ("tcp", "tls", "udp", "quic"):
        return ep
    addr, meta = (rest.split("?", 1) + [""])[:2]
    host, port = addr.rsplit(":", 1)
    if port != "0":
        return ep
    inodes = set()
    for fd in os.listdir("/proc/self/fd"):
        try:
            target = os.readlink("/proc/self/fd/" + fd)
        except OSError:
            continue
        if target.startswith("socket:["):
            inodes.add(target[len("socket:["):-1])
    table = "udp" if proto in ("udp", "quic") else "tcp"
    want = "07" if table == "udp" else "0A"  # 07: unconnected UDP, 0A: LISTEN
    v6 = host.startswith("[")
    for path in ("/proc/self/net/" + table + ("6" if v6 else ""),):
        with open(path) as f:
            for line in f.readlines()[1:]:
                fields = line.split()
                if fields[3] == want and fields[9] in inodes:
                    out = "%s/%s:%d" % (proto, host, int(fields[1].rsplit(":", 1)[1], 16))
                    return out + ("?" + meta if meta else "")
    raise SystemExit("zenoh_peer.py: no listening socket found for " + ep)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mode", default="peer")
    ap.add_argument("--listen")
    ap.add_argument("--connect")
    ap.add_argument("--client", action="store_true")
    ap.add_argument("--gossip", action="store_true")
    ap.add_argument("--rmw", action="store_true")
    ap.add_argument("--zid")
    ap.add_argument("--set", action="append", default=[])
    args = ap.parse_args()

    def configure(conf):
        for kv in args.set:
            k, v = kv.split("=", 1)
            conf.insert_json5(k, v)
        return conf

    zenoh.init_log_from_env_or("error")
    base = zenoh.open(configure(make_config(args.mode, args.listen, args.connect, args.gossip, args.rmw, args.zid)))
    listen = bound_endpoint(args.listen)
    session = base
    if args.client:
        session = zenoh.open(configure(make_config("client", None, listen)))
    keep = []
    keyexprs = []
    pubs = {}
    tokens = {}
    emit(ev="ready", zid=str(session.zid()), listen=listen or "")
    for line in sys.stdin:
        line = line.strip()
        if not line:
            continue
        cmd = json.loads(line)
        op = cmd["op"]
        if op == "quit":
            break
        if op == "crash":
            # Die without closing anything: links drop, as when a process is killed.
            os._exit(0)
        if op == "sub":
            keep.append(session.declare_subscriber(cmd["key"], on_sample))
        elif op == "echo":
            back = session.declare_publisher(cmd["to"], congestion_control=zenoh.CongestionControl.BLOCK)
            keep.append(back)
            keep.append(session.declare_subscriber(cmd["from"], lambda smp, back=back: back.put(smp.payload)))
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
        elif op == "queryable":
            keep.append(session.declare_queryable(
                cmd["key"], make_queryable_handler(cmd.get("replies", 1), cmd.get("error")),
                complete=bool(cmd.get("complete")),
            ))
        elif op == "get":
            emit(ev="ok", op=op, replies=do_get(session, cmd))
            continue
        elif op == "token":
            tokens[cmd["key"]] = session.liveliness().declare_token(cmd["key"])
        elif op == "untoken":
            tokens.pop(cmd["key"]).undeclare()
        elif op == "lsub":
            keep.append(session.liveliness().declare_subscriber(
                cmd["key"],
                lambda smp: emit(ev="live", key=str(smp.key_expr), kind=str(smp.kind).split(".")[-1]),
                history=bool(cmd.get("history")),
            ))
        elif op == "lget":
            keys = []
            for reply in session.liveliness().get(cmd["key"], timeout=cmd.get("timeout", 5)):
                if reply.ok is not None:
                    keys.append(str(reply.ok.key_expr))
            emit(ev="ok", op=op, keys=sorted(keys))
            continue
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
    for tok in tokens.values():
        tok.undeclare()
    for k in keyexprs:
        session.undeclare(k)
    if session is not base:
        session.close()
    base.close()


if __name__ == "__main__":
    main()
