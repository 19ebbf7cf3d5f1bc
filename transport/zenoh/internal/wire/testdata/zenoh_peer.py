"""Reference Rust Zenoh peer (through the eclipse-zenoh Python package) for
the wire codec's interop test.

Usage: zenoh_peer.py connect PORT | zenoh_peer.py listen
It connects as a peer to tcp/127.0.0.1:PORT (no scouting, no listener), or
listens on a free port of 127.0.0.1 and prints LISTEN <port>. It subscribes to afor/wire/**, serves afor/wire/pyq, prints READY, then obeys
commands read from stdin, one per line:
  put KEY VALUE     publish VALUE on KEY (with attachment b"att")
  putbig KEY N      publish N bytes (i % 251) on KEY
  putfull KEY VALUE publish with encoding text/plain;charset=utf-8, a
                    timestamp, priority interactive-high, block, express
  getfull SELECTOR  query with a payload, encoding application/json,
                    attachment b"qatt", target ALL, consolidation LATEST
  token KEY         declare a liveliness token on KEY
  delete KEY        delete KEY
  get SELECTOR      query and print each reply, then GETDONE
  quit              close the session and exit
Output lines: SUB <kind> <key> <payload or len=N,sum=S> <attachment>, REPLY <key> <payload>,
REPLYERR <payload>, GETDONE, QUERY <selector> <payload> <encoding> <attachment>,
and after each SUB line a META enc=<encoding> ts=<0|1> si=<zid:eid:sn|->.
afor/wire/pyerr answers queries with an error reply.
"""
import json
import os
import sys
import threading

import zenoh


_out_lock = threading.Lock()


def out(*parts):
    """Prints one line atomically: callbacks run on several Rust threads."""
    line = " ".join(str(p) for p in parts) + "\n"
    with _out_lock:
        sys.stdout.write(line)
        sys.stdout.flush()


def listening_port():
    """Finds the 127.0.0.1 TCP port this process listens on, through the
    socket inodes of /proc/self/fd and the table of /proc/net/tcp."""
    inodes = set()
    for fd in os.listdir("/proc/self/fd"):
        try:
            link = os.readlink(f"/proc/self/fd/{fd}")
        except OSError:
            continue
        if link.startswith("socket:["):
            inodes.add(link[8:-1])
    with open("/proc/net/tcp") as f:
        next(f)
        for line in f:
            cols = line.split()
            local, state, inode = cols[1], cols[3], cols[9]
            if state == "0A" and inode in inodes and local.startswith("0100007F:"):
                return int(local.split(":")[1], 16)
    raise RuntimeError("no listening socket found")


def main():
    conf = zenoh.Config()
    conf.insert_json5("mode", '"peer"')
    if sys.argv[1] == "connect":
        port = int(sys.argv[2])
        conf.insert_json5("connect/endpoints", json.dumps([f"tcp/127.0.0.1:{port}"]))
        conf.insert_json5("listen/endpoints", "[]")
    else:
        conf.insert_json5("listen/endpoints", '["tcp/127.0.0.1:0"]')
    conf.insert_json5("scouting/multicast/enabled", "false")
    conf.insert_json5("scouting/gossip/enabled", "false")
    session = zenoh.open(conf)
    if sys.argv[1] == "listen":
        out("LISTEN", listening_port())

    def on_sample(s):
        att = s.attachment.to_bytes().decode() if s.attachment is not None else "-"
        data = s.payload.to_bytes()
        shown = data.decode() if len(data) < 64 else "len=%d,sum=%d" % (len(data), sum(data))
        out("SUB", str(s.kind).split(".")[-1], str(s.key_expr), shown or "-", att)
        si = s.source_info
        si_s = "%s:%d:%d" % (si.source_id.zid, si.source_id.eid, si.source_sn) if si is not None else "-"
        out("META", "enc=%s" % s.encoding, "ts=%d" % (s.timestamp is not None), "si=%s" % si_s)

    def on_query(q):
        body = q.payload.to_bytes().decode() if q.payload is not None else "-"
        enc = str(q.encoding) if q.encoding is not None else "-"
        att = q.attachment.to_bytes().decode() if q.attachment is not None else "-"
        out("QUERY", str(q.selector), body, enc, att)
        q.reply("afor/wire/pyq", b"qval-from-py")

    def on_err_query(q):
        q.reply_err(b"boom", encoding=zenoh.Encoding.TEXT_PLAIN)

    sub = session.declare_subscriber("afor/wire/**", on_sample)
    qbl = session.declare_queryable("afor/wire/pyq", on_query)
    qerr = session.declare_queryable("afor/wire/pyerr", on_err_query)
    tokens = []
    out("READY")
    for line in sys.stdin:
        cmd = line.split()
        if not cmd:
            continue
        if cmd[0] == "put":
            session.put(cmd[1], cmd[2].encode(), attachment=b"att")
        elif cmd[0] == "putfull":
            session.put(cmd[1], cmd[2].encode(), encoding=zenoh.Encoding("text/plain;charset=utf-8"),
                        attachment=b"att", timestamp=session.new_timestamp(),
                        priority=zenoh.Priority.INTERACTIVE_HIGH,
                        congestion_control=zenoh.CongestionControl.BLOCK, express=True)
        elif cmd[0] == "getfull":
            for reply in session.get(cmd[1], target=zenoh.QueryTarget.ALL,
                                     consolidation=zenoh.ConsolidationMode.LATEST,
                                     payload=b"qbody", encoding=zenoh.Encoding.APPLICATION_JSON,
                                     attachment=b"qatt", timeout=5.0):
                if reply.ok is not None:
                    out("REPLY", str(reply.ok.key_expr), reply.ok.payload.to_bytes().decode())
                else:
                    out("REPLYERR", reply.err.payload.to_bytes().decode())
            out("GETDONE")
        elif cmd[0] == "token":
            tokens.append(session.liveliness().declare_token(cmd[1]))
        elif cmd[0] == "putbig":
            n = int(cmd[2])
            session.put(cmd[1], bytes(i % 251 for i in range(n)))
        elif cmd[0] == "delete":
            session.delete(cmd[1])
        elif cmd[0] == "get":
            for reply in session.get(cmd[1], timeout=5.0):
                if reply.ok is not None:
                    out("REPLY", str(reply.ok.key_expr), reply.ok.payload.to_bytes().decode())
                else:
                    out("REPLYERR", reply.err.payload.to_bytes().decode())
            out("GETDONE")
        elif cmd[0] == "quit":
            break
    for tok in tokens:
        tok.undeclare()
    sub.undeclare()
    qbl.undeclare()
    qerr.undeclare()
    session.close()


if __name__ == "__main__":
    main()
