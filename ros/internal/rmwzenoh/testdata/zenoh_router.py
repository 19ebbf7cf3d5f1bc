"""Run a Rust Zenoh router (the eclipse-zenoh Python package) for the Go
rmw_zenoh interop tests.

Usage: zenoh_router.py --listen EP [--rmw]

Multicast scouting is off. With --rmw, the router is configured as
rmw_zenohd's default config does: gossip on, and no failover brokering, so
that peers exchange data only over their direct links. Prints {"ev": "ready", "zid": ...} once the
router listens, and exits when stdin closes.
"""

import argparse
import json
import sys

import zenoh


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--listen", required=True)
    ap.add_argument("--rmw", action="store_true")
    args = ap.parse_args()
    conf = zenoh.Config()
    conf.insert_json5("mode", json.dumps("router"))
    conf.insert_json5("scouting/multicast/enabled", "false")
    conf.insert_json5("listen/endpoints", json.dumps([args.listen]))
    conf.insert_json5("timestamping/enabled", "true")
    if args.rmw:
        conf.insert_json5("scouting/gossip/enabled", "true")
        conf.insert_json5("routing/router/peers_failover_brokering", "false")
    session = zenoh.open(conf)
    sys.stdout.write(json.dumps({"ev": "ready", "zid": str(session.info.zid())}) + "\n")
    sys.stdout.flush()
    sys.stdin.read()
    session.close()


if __name__ == "__main__":
    main()
