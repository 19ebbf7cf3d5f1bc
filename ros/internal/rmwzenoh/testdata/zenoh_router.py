"""Run a Rust Zenoh router (the eclipse-zenoh Python package) for the Go
rmw_zenoh interop tests.

Usage: zenoh_router.py --listen EP [--rmw] [--set PATH=JSON5]...

Multicast scouting is off. With --rmw, the router is configured as
rmw_zenohd's default config does: gossip on, and no failover brokering, so
that peers exchange data only over their direct links. Prints {"ev": "ready", "zid": ...,
"endpoint": ...} once the router listens (the endpoint with the port the system chose when EP's
port is 0), and exits when stdin closes. EP is a tcp/ or tls/ endpoint (the
last --listen given counts); --set inserts a configuration value (TLS
certificates, a password dictionary).
"""

import argparse
import json
import os
import sys

import zenoh


def bound_endpoint(ep):
    """Returns ep with port 0 replaced by the port this process listens on
    (read from /proc: the Python API does not tell it)."""
    proto, addr = ep.split("/", 1)
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
    for path in ("/proc/self/net/tcp", "/proc/self/net/tcp6"):
        with open(path) as f:
            for line in f.readlines()[1:]:
                fields = line.split()
                if fields[3] == "0A" and fields[9] in inodes:  # 0A: LISTEN
                    return "%s/%s:%d" % (proto, host, int(fields[1].rsplit(":", 1)[1], 16))
    raise SystemExit("zenoh_router.py: no listening socket found for " + ep)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--listen", required=True)
    ap.add_argument("--rmw", action="store_true")
    ap.add_argument("--set", action="append", default=[])
    args = ap.parse_args()
    conf = zenoh.Config()
    conf.insert_json5("mode", json.dumps("router"))
    conf.insert_json5("scouting/multicast/enabled", "false")
    conf.insert_json5("listen/endpoints", json.dumps([args.listen]))
    conf.insert_json5("timestamping/enabled", "true")
    if args.rmw:
        conf.insert_json5("scouting/gossip/enabled", "true")
        conf.insert_json5("routing/router/peers_failover_brokering", "false")
    for kv in args.set:
        k, v = kv.split("=", 1)
        conf.insert_json5(k, v)
    session = zenoh.open(conf)
    ready = {"ev": "ready", "zid": str(session.info.zid()), "endpoint": bound_endpoint(args.listen)}
    sys.stdout.write(json.dumps(ready) + "\n")
    sys.stdout.flush()
    sys.stdin.read()
    session.close()


if __name__ == "__main__":
    main()
