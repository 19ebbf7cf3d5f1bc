"""A Rust Zenoh router (the eclipse-zenoh Python package) for the
multi-host tests, configured as rmw_zenohd's default configuration is:
gossip on, no failover brokering (peers exchange data over their direct
links only), timestamps; it listens on the given endpoint and, with
--scout, answers multicast scouting on the LAN.

Usage: zenoh_router.py --listen EP [--scout]

Prints {"ev": "ready", "zid": ...} once it listens; exits when stdin
closes.
"""

import argparse
import json
import sys

import zenoh


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--listen", required=True)
    ap.add_argument("--scout", action="store_true")
    args = ap.parse_args()
    conf = zenoh.Config()
    conf.insert_json5("mode", json.dumps("router"))
    conf.insert_json5("listen/endpoints", json.dumps([args.listen]))
    conf.insert_json5("scouting/multicast/enabled", json.dumps(args.scout))
    conf.insert_json5("scouting/gossip/enabled", "true")
    conf.insert_json5("routing/router/peers_failover_brokering", "false")
    conf.insert_json5("timestamping/enabled", "true")
    session = zenoh.open(conf)
    sys.stdout.write(json.dumps({"ev": "ready", "zid": str(session.info.zid())}) + "\n")
    sys.stdout.flush()
    sys.stdin.read()
    session.close()


if __name__ == "__main__":
    main()
