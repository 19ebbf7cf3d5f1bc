"""A Rust Zenoh router for the bench harness, through the eclipse-zenoh
Python package: python router.py tcp/127.0.0.1:PORT

The data queue holds 16 batches (see below). Prints "ready" once listening and runs until its standard input closes.
"""

import json
import sys

import zenoh


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
        print("ready", flush=True)
        sys.stdin.read()


if __name__ == "__main__":
    main()
