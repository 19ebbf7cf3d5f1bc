"""Multicast scouting with the reference Zenoh (the eclipse-zenoh Python
package), for the Go scouting interop tests.

Usage:
  zenoh_scout.py scout --address A --interface I [--what peer|router]
                       [--seconds S]
      Run zenoh.scout and print {"ev": "hello", "zid", "whatami",
      "locators"} for each HELLO received, for S seconds (default 10) or
      until stdin closes, then {"ev": "done"}.
  zenoh_scout.py peer --address A --interface I --listen EP
                      [--mode peer|client] [--sub KEY] [--put KEY]
      Open a peer (or, with --mode client, a client, which does not
      listen) with multicast scouting (and autoconnect to routers and
      peers) on and no connect endpoint; print {"ev": "ready", "zid"}. With --sub, print
      {"ev": "sample", "key", "payload"} for each sample; with --put,
      publish "py-<n>" on KEY every 100 ms. Runs until stdin closes.

Gossip scouting is off: only multicast scouting can link the nodes.
"""

import argparse
import json
import sys
import threading
import time

import zenoh


def emit(**ev):
    sys.stdout.write(json.dumps(ev) + "\n")
    sys.stdout.flush()


def config(args, mode):
    conf = zenoh.Config()
    conf.insert_json5("mode", json.dumps(mode))
    conf.insert_json5("scouting/multicast/enabled", "true")
    conf.insert_json5("scouting/multicast/address", json.dumps(args.address))
    conf.insert_json5("scouting/multicast/interface", json.dumps(args.interface))
    conf.insert_json5("scouting/gossip/enabled", "false")
    return conf


def scout(args):
    conf = config(args, "client")
    what = args.what
    sc = zenoh.scout(what=what, config=conf)
    closed = threading.Event()

    def watch_stdin():
        sys.stdin.read()
        closed.set()
    threading.Thread(target=watch_stdin, daemon=True).start()
    deadline = time.monotonic() + args.seconds
    while time.monotonic() < deadline and not closed.is_set():
        hello = sc.try_recv()
        if hello is None:
            time.sleep(0.02)
            continue
        emit(ev="hello", zid=str(hello.zid), whatami=str(hello.whatami),
             locators=[str(l) for l in hello.locators])
    sc.stop()
    emit(ev="done")


def peer(args):
    conf = config(args, args.mode)
    conf.insert_json5("scouting/multicast/autoconnect",
                      '{"peer": ["router", "peer"], "client": ["router", "peer"]}')
    if args.mode == "peer":
        conf.insert_json5("listen/endpoints", json.dumps([args.listen]))
    conf.insert_json5("connect/endpoints", "[]")
    session = zenoh.open(conf)
    if args.sub:
        def on_sample(s):
            emit(ev="sample", key=str(s.key_expr),
                 payload=s.payload.to_bytes().decode("utf-8", "replace"))
        session.declare_subscriber(args.sub, on_sample)
    stop = threading.Event()
    if args.put:
        pub = session.declare_publisher(args.put)

        def publish():
            n = 0
            while not stop.wait(0.1):
                pub.put("py-%d" % n)
                n += 1
        threading.Thread(target=publish, daemon=True).start()
    emit(ev="ready", zid=str(session.zid()))
    sys.stdin.read()
    stop.set()
    session.close()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("cmd", choices=["scout", "peer"])
    ap.add_argument("--address", required=True)
    ap.add_argument("--interface", default="lo")
    ap.add_argument("--what", default="peer|router")
    ap.add_argument("--seconds", type=float, default=10.0)
    ap.add_argument("--listen", default="tcp/127.0.0.1:0")
    ap.add_argument("--mode", choices=["peer", "client"], default="peer")
    ap.add_argument("--sub")
    ap.add_argument("--put")
    args = ap.parse_args()
    if args.cmd == "scout":
        scout(args)
    else:
        peer(args)


if __name__ == "__main__":
    main()
