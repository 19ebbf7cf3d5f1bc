"""Shared command line and output of the DDS reference-peer drivers.

Imported by cyclone_peer.py and rclpy_peer.py (run from testdata/); the C
peer (cpeer/) and transport/dds/internal/ddspeer follow the same contract:

Arguments: --role writer|reader|relay, --topic (DDS name, default rt/chatter),
--reliability reliable|best-effort, --durability volatile|transient-local,
--depth N (KEEP_LAST N; 0 means KEEP_ALL), --count N (writer: samples to
write, 0 = until stdin ends; reader: exit after N samples, 0 = never),
--period seconds between writes, --size N (pad every payload to N bytes),
--domain N, --wait-match N (writer: wait for N matched readers before the
first write), --wait-go (writer: then wait for a line on stdin, "go"),
--out-topic (relay: the DDS topic it writes every sample of --topic to,
unchanged, with the same QoS).

Payload of sample i (0, 1, 2...): "<i>:" followed by "x" up to --size bytes.

Output, one JSON object a line on stdout, flushed at once:
  {"ev":"ready"}                              entities created
  {"ev":"matched","count":C}                  matched endpoints now C (a
                                              relay adds "side":"reader"|"writer")
  {"ev":"incompatible","side":"offered"|"requested","policy":"RELIABILITY"}
  {"ev":"sample","i":I,"len":L,"ok":true}     a reader got sample I, L bytes,
                                              its padding intact
  {"ev":"done","count":N}                     a writer wrote its N samples /
                                              a reader got its N samples
The process ends when its stdin reaches end of file (a writer after
"done"), or a reader after its --count samples.
"""

import argparse
import json
import os
import sys
import threading

_lock = threading.Lock()

# DDS QoS policy ids (DDS 1.4 §2.2.3 table, as Cyclone numbers them).
POLICY_NAMES = {
    1: "USER_DATA", 2: "DURABILITY", 3: "PRESENTATION", 4: "DEADLINE",
    5: "LATENCY_BUDGET", 6: "OWNERSHIP", 7: "OWNERSHIP_STRENGTH",
    8: "LIVELINESS", 9: "TIME_BASED_FILTER", 10: "PARTITION",
    11: "RELIABILITY", 12: "DESTINATION_ORDER", 13: "HISTORY",
    14: "RESOURCE_LIMITS", 21: "LIFESPAN", 22: "DURABILITY_SERVICE",
    23: "PROPERTY", 24: "TYPE_CONSISTENCY", 25: "DATA_REPRESENTATION",
}


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--role", choices=["writer", "reader", "relay"], required=True)
    p.add_argument("--topic", default="rt/chatter")
    p.add_argument("--reliability", choices=["reliable", "best-effort"], default="reliable")
    p.add_argument("--durability", choices=["volatile", "transient-local"], default="volatile")
    p.add_argument("--depth", type=int, default=10)
    p.add_argument("--count", type=int, default=0)
    p.add_argument("--period", type=float, default=0.0)
    p.add_argument("--size", type=int, default=0)
    p.add_argument("--domain", type=int, default=0)
    p.add_argument("--wait-match", type=int, default=0)
    p.add_argument("--wait-go", action="store_true")
    p.add_argument("--out-topic", default="")
    return p.parse_args(argv)


def emit(ev, **fields):
    """Prints one event line and flushes it."""
    fields = {"ev": ev, **fields}
    line = json.dumps(fields, separators=(",", ":"))
    with _lock:
        sys.stdout.write(line + "\n")
        sys.stdout.flush()


def payload(i, size):
    """Returns the text of sample i, padded with "x" to size bytes."""
    head = f"{i}:"
    return head + "x" * max(0, size - len(head))


def describe(data):
    """Returns the "sample" fields for a received payload."""
    if isinstance(data, str):
        raw = data.encode()
    else:
        raw = bytes(data)
    head, sep, pad = raw.partition(b":")
    try:
        i = int(head) if sep else -1
    except ValueError:
        i = -1
    ok = i >= 0 and pad.count(b"x") == len(pad)
    return {"i": i, "len": len(raw), "ok": ok}


def watch_stdin():
    """Returns two Events: one set at the first input on stdin ("go"), one
    once stdin reaches end of file (which also sets the first)."""
    go, closed = threading.Event(), threading.Event()

    def watch():
        try:
            while os.read(0, 4096):  # unbuffered: no lock held at exit
                go.set()
        except (OSError, ValueError):
            pass
        go.set()
        closed.set()

    threading.Thread(target=watch, daemon=True).start()
    return go, closed


def wait_to_write(args, matched, go, stop):
    """Blocks a writer until --wait-match readers matched and, with
    --wait-go, a "go" line came, or until stdin closed."""
    while matched[0] < args.wait_match and not stop.wait(0.01):
        pass
    if args.wait_go:
        go.wait()
