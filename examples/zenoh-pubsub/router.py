"""A Zenoh router for the examples: the Rust implementation, through the
eclipse-zenoh Python package (installed in .venv by .ci/setup-peers).

    .venv/bin/python examples/zenoh-pubsub/router.py tcp/127.0.0.1:7447

It prints "ready" once listening and runs until interrupted or until its
standard input closes.
"""

import json
import sys

import zenoh


def main() -> None:
    endpoint = sys.argv[1] if len(sys.argv) > 1 else "tcp/127.0.0.1:7447"
    conf = zenoh.Config()
    conf.insert_json5("mode", json.dumps("router"))
    conf.insert_json5("listen/endpoints", json.dumps([endpoint]))
    conf.insert_json5("scouting/multicast/enabled", "false")
    with zenoh.open(conf):
        print("ready", flush=True)
        try:
            sys.stdin.read()
        except KeyboardInterrupt:
            pass


if __name__ == "__main__":
    main()
