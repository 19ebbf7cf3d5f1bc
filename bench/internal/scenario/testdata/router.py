"""A Rust Zenoh router for the bench harness, through the eclipse-zenoh
Python package: python router.py tcp/127.0.0.1:PORT

The data queue holds 16 batches (see below). Prints "ready ENDPOINT" once
listening (with the port the system chose when PORT is 0) and runs until
its standard input closes.
"""

import json
import os
import sys

import zenoh


def bound_port(port: int) -> int:
    """Returns port, or when it is 0 the TCP port this process listens on,
    read from /proc (the Python API does not tell it)."""
    if port != 0:
        return port
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
                    return int(fields[1].rsplit(":", 1)[1], 16)
    raise SystemExit("no listening socket found")


def main() -> None:
    conf = zenoh.Config()
    conf.insert_json5("mode", json.dumps("router"))
    conf.insert_json5("listen/endpoints", json.dumps([sys.argv[1]]))
    conf.insert_json5("scouting/multicast/enabled", "false")
    # Camera frames (900 KB, 15 batches) are published with Zenoh's default
    # congestion control, drop: with the default queue of 2 batches per
    # priority the router drops most of them on their way to a subscriber.
    conf.insert_json5("transport/link/tx/queue/size/data", "16")
    with zenoh.open(conf):
        host, port = sys.argv[1][len("tcp/"):].rsplit(":", 1)
        print("ready tcp/%s:%d" % (host, bound_port(int(port))), flush=True)
        sys.stdin.read()


if __name__ == "__main__":
    main()
