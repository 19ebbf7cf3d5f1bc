"""The Rust Zenoh stack's side of bench/'s echo and throughput, run by bench/.

Drives eclipse-zenoh (the Rust stack behind a Python API) from its own
subscriber callbacks, without asyncio and without afor, so that what is
measured is the Rust stack plus one Python callback per message. Messages
are bench/'s: a little-endian uint64 sequence number and int64 time stamp,
zero padding up to the size.

Usage: python zenoh_rust.py CONFIG_JSON

CONFIG_JSON keys:
  role      "echo" (side B: answers every counter on PREFIX/hello plus one
            on PREFIX/world), "sink" (side B: acknowledges every message on
            PREFIX/data on PREFIX/ack with its sequence number and one-way
            latency, its wall clock in ns minus clock_start minus the
            message's stamp), "hello" (side A of the echo: measures) or
            "flood" (side A of the throughput: measures)
  listen    endpoint to listen on (port 0: the system picks), or
  connect   endpoint to connect to
  tls       transport/link/tls/* options (file paths), e.g.
            {"root_ca_certificate": "ca.pem"}
  prefix    key prefix ("afor_bench/x/")
  size      message size in bytes (at least 16)
  duration, warmup_s   measured window and warm-up in seconds (echo)
  warmup, window       messages before measuring, most in flight (flood)
  clock_start          ns subtracted from the wall clock (sink)

Sides B print "ready ENDPOINT" (the endpoint listened on, port resolved, or
"-") once they answer, and run until stdin closes. Sides A print one JSON
object: ops, seconds, cpu_seconds, sent, failed and versions.
"""

import json
import os
import struct
import sys
import threading
import time
from importlib import metadata

import zenoh

HDR = struct.Struct("<Qq")


def make_config(c):
    conf = zenoh.Config()
    conf.insert_json5("mode", '"peer"')
    conf.insert_json5("scouting/multicast/enabled", "false")
    conf.insert_json5("scouting/gossip/enabled", "false")
    # Two Rust peers of one host would otherwise move every message of
    # 3 KiB or more through shared memory (transport_optimization), not
    # over the link measured (the Go side has no shared memory).
    conf.insert_json5("transport/shared_memory/enabled", "false")
    conf.insert_json5("listen/endpoints", json.dumps([c["listen"]] if c.get("listen") else []))
    conf.insert_json5("connect/endpoints", json.dumps([c["connect"]] if c.get("connect") else []))
    for k, v in (c.get("tls") or {}).items():
        conf.insert_json5("transport/link/tls/" + k, json.dumps(v))
    return conf


def bound_endpoint(ep):
    """Returns ep with port 0 replaced by the port this process listens on,
    read from /proc (the Python API does not tell it)."""
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
    table, want = ("udp", "07") if proto in ("udp", "quic") else ("tcp", "0A")
    with open("/proc/self/net/" + table) as f:
        for line in f.readlines()[1:]:
            fields = line.split()
            if fields[3] == want and fields[9] in inodes:
                return "%s/%s:%d" % (proto, host, int(fields[1].rsplit(":", 1)[1], 16))
    raise SystemExit("zenoh_rust.py: no listening socket for " + ep)


def wait_matching(pub, what, timeout=10.0):
    deadline = time.monotonic() + timeout
    while not pub.matching_status.matching:
        if time.monotonic() > deadline:
            raise SystemExit("zenoh_rust.py: no subscriber for " + what)
        time.sleep(0.005)


def message(size):
    return bytearray(max(size, HDR.size))


def serve(session, c):
    """Runs side B until stdin closes."""
    prefix, role = c["prefix"], c["role"]
    lock = threading.Lock()  # callbacks may run on several threads
    closed = [False]
    if role == "echo":
        pub = session.declare_publisher(prefix + "world")
        buf = message(c["size"])

        def on(sample):
            seq, _ = HDR.unpack_from(sample.payload.to_bytes())
            with lock:
                if closed[0]:
                    return
                HDR.pack_into(buf, 0, seq + 1, 0)
                pub.put(bytes(buf))

        sub = session.declare_subscriber(prefix + "hello", on)
    else:
        pub = session.declare_publisher(prefix + "ack")
        start = c.get("clock_start", 0)

        def on(sample):
            seq, stamp = HDR.unpack_from(sample.payload.to_bytes())
            ack = HDR.pack(seq, time.time_ns() - start - stamp)
            with lock:
                if not closed[0]:
                    pub.put(ack)

        sub = session.declare_subscriber(prefix + "data", on)
    if c.get("connect"):  # the other side's subscriber exists already
        wait_matching(pub, role)
    print("ready", bound_endpoint(c["listen"]) if c.get("listen") else "-", flush=True)
    sys.stdin.read()
    with lock:  # a callback may still run after the subscriber's undeclaration
        closed[0] = True
    sub.undeclare()
    with lock:
        pub.undeclare()


def hello(session, c):
    """Side A of the echo: answers every counter on world plus one on hello
    from the callback and counts the hops."""
    prefix = c["prefix"]
    pub = session.declare_publisher(prefix + "hello")
    buf = message(c["size"])
    last = [0]
    lock = threading.Lock()
    closed = [False]

    def on(sample):
        seq, _ = HDR.unpack_from(sample.payload.to_bytes())
        with lock:
            if closed[0]:
                return
            last[0] = seq
            HDR.pack_into(buf, 0, seq + 1, 0)
            pub.put(bytes(buf))

    sub = session.declare_subscriber(prefix + "world", on)
    wait_matching(pub, "hello")
    # Declarations travel asynchronously: seed until the first answer (one
    # chain only: the next seed goes out after a whole second of silence).
    for _ in range(10):
        with lock:
            pub.put(bytes(message(c["size"])))
        for _ in range(100):
            time.sleep(0.01)
            if last[0]:
                break
        if last[0]:
            break
    if not last[0]:
        raise SystemExit("zenoh_rust.py: no answer to the echo's seed")
    time.sleep(c["warmup_s"])
    c0, t0, cpu0 = last[0], time.perf_counter(), time.process_time()
    time.sleep(c["duration"])
    c1, t1, cpu1 = last[0], time.perf_counter(), time.process_time()
    with lock:  # a callback may still run after the subscriber's undeclaration
        closed[0] = True
    sub.undeclare()
    with lock:
        pub.undeclare()
    return {"ops": c1 - c0, "seconds": t1 - t0, "cpu_seconds": cpu1 - cpu0}


def flood(session, c):
    """Side A of the throughput: keeps at most window messages in flight,
    each acknowledged by the sink, for duration seconds after warmup
    messages, and reports from the first send to the last ack."""
    prefix, window = c["prefix"], max(1, c["window"])
    batch = max(1, window // 4)
    cond = threading.Condition()
    st = {"recv": 0, "next": 0, "failed": 0, "want": 1 << 62}

    def on(sample):
        seq, _ = HDR.unpack_from(sample.payload.to_bytes())
        with cond:
            if seq < st["next"]:
                st["failed"] += 1
            else:
                st["next"] = seq + 1
            st["recv"] += 1
            n = st["recv"]
            if n % batch == 0 or n >= st["want"]:
                cond.notify()

    sub = session.declare_subscriber(prefix + "ack", on)
    pub = session.declare_publisher(prefix + "data", congestion_control=zenoh.CongestionControl.BLOCK)
    wait_matching(pub, "data")
    buf = message(c["size"])
    sent = [0]

    def wait_for(n, deadline):
        with cond:
            st["want"] = n
            while st["recv"] < n:
                if not cond.wait(timeout=max(0.0, deadline - time.monotonic())) and time.monotonic() >= deadline:
                    raise SystemExit("zenoh_rust.py: %d of %d messages acknowledged" % (st["recv"], n))
            st["want"] = 1 << 62

    def send():
        if sent[0] - st["recv"] >= window:  # racy read: wait_for rechecks
            wait_for(sent[0] - window + batch, time.monotonic() + 10)
        HDR.pack_into(buf, 0, sent[0], time.time_ns())
        pub.put(bytes(buf))
        sent[0] += 1

    for _ in range(c["warmup"]):
        send()
    wait_for(sent[0], time.monotonic() + 10)
    s0, t0, cpu0 = sent[0], time.perf_counter(), time.process_time()
    end = t0 + c["duration"]
    while time.perf_counter() < end:
        for _ in range(batch):
            send()
    wait_for(sent[0], time.monotonic() + 10)
    t1, cpu1 = time.perf_counter(), time.process_time()
    sub.undeclare()
    pub.undeclare()
    return {"ops": sent[0] - s0, "seconds": t1 - t0, "cpu_seconds": cpu1 - cpu0,
            "sent": sent[0], "failed": st["failed"]}


def main():
    if len(sys.argv) != 2:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    c = json.loads(sys.argv[1])
    session = zenoh.open(make_config(c))
    try:
        if c["role"] in ("echo", "sink"):
            serve(session, c)
            return
        out = (hello if c["role"] == "hello" else flood)(session, c)
    finally:
        session.close()
    out.update({"python": sys.version.split()[0], "eclipse_zenoh": metadata.version("eclipse-zenoh")})
    print(json.dumps(out), flush=True)


if __name__ == "__main__":
    main()
