"""A Zenoh router for the examples: the Rust implementation, through the
eclipse-zenoh Python package (installed in .venv by .ci/setup-peers).

    .venv/bin/python examples/zenoh-pubsub/router.py tcp/127.0.0.1:7447

It prints "ready on ENDPOINT" once listening (with the port the system
chose when the endpoint's port is 0) and runs until interrupted (Ctrl-C,
SIGTERM), so that it can run in the background with "&". With
--until-stdin-closes (as the tests start it) it also stops when its
standard input closes, so that it never outlives the process that started
it.
"""

import json
import os
import signal
import sys
import threading

import zenoh


def bound_endpoint(endpoint: str) -> str:
    """Returns endpoint with port 0 replaced by the port this process
    listens on, read from /proc (the Python API does not tell it)."""
    host, port = endpoint[len("tcp/"):].rsplit(":", 1)
    if port != "0":
        return endpoint
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
                    return "tcp/%s:%d" % (host, int(fields[1].rsplit(":", 1)[1], 16))
    raise SystemExit("router.py: no listening socket found for " + endpoint)


def main() -> None:
    args = sys.argv[1:]
    watch_stdin = "--until-stdin-closes" in args
    args = [a for a in args if a != "--until-stdin-closes"]
    endpoint = args[0] if args else "tcp/127.0.0.1:7447"
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    signal.signal(signal.SIGINT, lambda *_: stop.set())
    if watch_stdin:
        def read_stdin() -> None:
            sys.stdin.read()
            stop.set()
        threading.Thread(target=read_stdin, daemon=True).start()
    conf = zenoh.Config()
    conf.insert_json5("mode", json.dumps("router"))
    conf.insert_json5("listen/endpoints", json.dumps([endpoint]))
    conf.insert_json5("scouting/multicast/enabled", "false")
    with zenoh.open(conf):
        print("ready on", bound_endpoint(endpoint), flush=True)
        while not stop.wait(1):
            pass


if __name__ == "__main__":
    main()
