"""Run a Rust Zenoh router (the eclipse-zenoh Python package) for the Go
rmw_zenoh interop tests.

Usage: zenoh_router.py --listen EP

Multicast scouting is off. Prints {"ev": "ready", "zid": ...} once the
router listens, and exits when stdin closes.
"""

import argparse
import json
import sys

import zenoh


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--listen", required=True)
    args = ap.parse_args()
    conf = zenoh.Config()
    conf.insert_json5("mode", json.dumps("router"))
    conf.insert_json5("scouting/multicast/enabled", "false")
    conf.insert_json5("listen/endpoints", json.dumps([args.listen]))
    conf.insert_json5("timestamping/enabled", "true")
    session = zenoh.open(conf)
    sys.stdout.write(json.dumps({"ev": "ready", "zid": str(session.info.zid())}) + "\n")
    sys.stdout.flush()
    sys.stdin.read()
    session.close()


if __name__ == "__main__":
    main()
