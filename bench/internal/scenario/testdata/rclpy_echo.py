"""Echo driver for rclpy, run by bench/ (the ros-dds-proc comparison rows).

The Python library's echo pattern over ROS 2 topics: "hello" and "world"
(std_msgs/msg/UInt8MultiArray, a 64-byte data field whose first 8 bytes are
a little-endian counter), one message in flight, each side answering the
other plus one. The two halves run in two processes, as the Go rows of
ros-dds-proc do, or both in one process and one node (ROLE both, the Python
library's own layout: "a single participant"); rclpy uses the middleware of
its environment (Fast DDS by default) with ROS_DOMAIN_ID and
ROS_AUTOMATIC_DISCOVERY_RANGE as set by the harness.

Usage: python rclpy_echo.py ROLE EXECUTOR NAMESPACE [DURATION_S WARMUP_S]
  ROLE world:  answer every hello on world until stdin closes; prints
               "ready" once its endpoints exist (start it first).
  ROLE hello:  seed the echo, answer every world on hello, and measure:
               prints one JSON object (hops, seconds, cpu_seconds, versions).
  ROLE both:   one process, one node (one context): both halves, each
               answering the other topic plus one; seeds and measures as
               hello does.
  EXECUTOR single: rclpy callbacks on a SingleThreadedExecutor.
  EXECUTOR events: rclpy callbacks on rclpy.experimental.EventsExecutor
                   (driven by spin_once: its spin() runs no callback in the
                   pinned Kilted wheels).
  EXECUTOR afor:   the Python afor (asyncio_for_robotics.ros2): an
                   afor Sub per topic on a ThreadedSession, each answered
                   from an "async for msg in sub.listen_reliable()" loop on
                   uvloop, as the library's own ROS 2 benchmark does.

The hop counter is read at the start and the end of the measured window,
so warm-up hops are not counted. CPU is the measuring process's only (with
ROLE both, the whole echo's).
"""

import array
import asyncio
import json
import os
import sys
import threading
import time
from importlib import metadata

import rclpy
from rclpy.node import Node
from rclpy.qos import QoSProfile
from std_msgs.msg import UInt8MultiArray

SIZE = 64


def _version(dist):
    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return ""


def _msg(n):
    m = UInt8MultiArray()
    b = array.array("B", bytes(SIZE))
    b[0:8] = array.array("B", n.to_bytes(8, "little"))
    m.data = b
    return m


def _count(msg):
    return int.from_bytes(bytes(msg.data[:8]), "little")


def _executor(kind, context):
    if kind == "events":
        from rclpy.experimental import EventsExecutor

        return EventsExecutor(context=context)
    from rclpy.executors import SingleThreadedExecutor

    return SingleThreadedExecutor(context=context)


def _wait_matched(node, pub, topic_in, timeout=60.0):
    """Wait until our publisher has a subscriber and our input a publisher."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if pub.get_subscription_count() > 0 and node.count_publishers(topic_in) > 0:
            return
        time.sleep(0.01)
    raise RuntimeError(
        "echo peer not matched in time: %d subscriptions, %d publishers of %s, nodes %s"
        % (pub.get_subscription_count(), node.count_publishers(topic_in), topic_in, node.get_node_names_and_namespaces())
    )


def _measure(last, duration, warmup, reseed):
    time.sleep(warmup)
    for _ in range(10):  # the seed may go out before the far reader matched
        if last[0] != 0:
            break
        reseed()
        time.sleep(0.5)
    else:
        raise RuntimeError("no hop during warm-up")
    c0, t0, cpu0 = last[0], time.perf_counter(), time.process_time()
    time.sleep(duration)
    # At least one hop in the window: on a loaded machine one hop may take
    # longer than a short window (the window then ends with that hop).
    while last[0] == c0 and time.perf_counter() - t0 < duration + 30:
        time.sleep(0.001)
    c1, t1, cpu1 = last[0], time.perf_counter(), time.process_time()
    return {"hops": c1 - c0, "seconds": t1 - t0, "cpu_seconds": cpu1 - cpu0}


# The (input, output) topic pairs each role answers.
PAIRS = {
    "world": [("hello", "world")],
    "hello": [("world", "hello")],
    "both": [("hello", "world"), ("world", "hello")],
}


def _answerer(pub, last):
    """A callback answering every message on pub with its counter plus one."""
    out = _msg(0)

    def answer(msg):
        n = _count(msg)
        last[0] = n
        out.data[0:8] = array.array("B", (n + 1).to_bytes(8, "little"))
        pub.publish(out)

    return answer


def run_rclpy(role, kind, ns, duration, warmup):
    context = rclpy.Context()
    rclpy.init(context=context)
    node = Node("echo_" + role, namespace=ns, context=context)
    qos = QoSProfile(depth=10)
    last = [0]
    pubs = {}
    for topic_in, topic_out in PAIRS[role]:
        pubs[topic_out] = node.create_publisher(UInt8MultiArray, topic_out, qos)
        node.create_subscription(UInt8MultiArray, topic_in, _answerer(pubs[topic_out], last), qos)
    ex = _executor(kind, context)
    ex.add_node(node)
    result = [None]

    def drive():
        # The executor spins in the main thread (the EventsExecutor needs
        # it); this thread drives the run, and the process exits without
        # teardown (see main).
        try:
            if role == "world":  # answers whoever comes: the hello side waits for us
                print("ready", flush=True)
                sys.stdin.read()
                return
            for topic_in, topic_out in PAIRS[role]:
                _wait_matched(node, pubs[topic_out], topic_in)
            seed = pubs["hello"]
            seed.publish(_msg(0))
            result[0] = _measure(last, duration, warmup, lambda: seed.publish(_msg(0)))
        except BaseException as e:
            result[0] = e
        finally:
            _finish(result[0], kind)

    threading.Thread(target=drive, daemon=True).start()
    _spin(ex, kind)


def _spin(ex, kind):
    """Run the executor's callbacks forever, in this thread."""
    if kind == "events":
        # The Kilted wheels' EventsExecutor.spin() (and rclpy.spin with it)
        # runs no callback at all; spin_once does.
        while True:
            ex.spin_once(timeout_sec=1.0)
    ex.spin()


def _finish(res, kind):
    """Print the hello side's report (or the error) and exit at once."""
    if isinstance(res, BaseException):
        import traceback

        traceback.print_exception(res)
        sys.stderr.flush()
        os._exit(1)
    if res is not None:
        res["mode"] = kind
        res["python"] = sys.version.split()[0]
        res["asyncio_for_robotics"] = _version("asyncio_for_robotics") if kind == "afor" else ""
        res["rclpy"] = _version("ros-rclpy") or _version("rclpy")
        print(json.dumps(res), flush=True)
    os._exit(0)


def run_afor(role, ns, duration, warmup):
    import uvloop
    import asyncio_for_robotics.ros2 as afor

    async def run():
        with afor.auto_context("echo_" + role) as session:
            qos = QoSProfile(depth=10)
            last = [0]
            pubs = {}
            subs = []
            for topic_in, topic_out in PAIRS[role]:
                with session.lock() as node:
                    pubs[topic_out] = node.create_publisher(UInt8MultiArray, ns + "/" + topic_out, qos)
                subs.append((afor.Sub(UInt8MultiArray, ns + "/" + topic_in, qos, session, scope=None), pubs[topic_out]))

            async def answer(sub, pub):
                out = _msg(0)
                async for msg in sub.listen_reliable():
                    n = _count(msg)
                    last[0] = n
                    out.data[0:8] = array.array("B", (n + 1).to_bytes(8, "little"))
                    pub.publish(out)

            tasks = [asyncio.create_task(answer(sub, pub)) for sub, pub in subs]
            loop = asyncio.get_running_loop()
            if role == "world":  # answers whoever comes: the hello side waits for us
                print("ready", flush=True)
                await loop.run_in_executor(None, sys.stdin.read)
                return None
            end = time.monotonic() + 60
            while True:
                with session.lock() as node:
                    ok = all(
                        pubs[topic_out].get_subscription_count() > 0 and node.count_publishers(ns + "/" + topic_in) > 0
                        for topic_in, topic_out in PAIRS[role]
                    )
                if ok:
                    break
                if time.monotonic() > end:
                    raise RuntimeError("echo peer not matched in time")
                await asyncio.sleep(0.01)
            seed = pubs["hello"]
            seed.publish(_msg(0))
            await asyncio.sleep(warmup)
            for _ in range(10):  # the seed may go out before the far reader matched
                if last[0] != 0:
                    break
                seed.publish(_msg(0))
                await asyncio.sleep(0.5)
            else:
                raise RuntimeError("no hop during warm-up")
            c0, t0, cpu0 = last[0], time.perf_counter(), time.process_time()
            await asyncio.sleep(duration)
            while last[0] == c0 and time.perf_counter() - t0 < duration + 30:  # at least one hop
                await asyncio.sleep(0.001)
            c1, t1, cpu1 = last[0], time.perf_counter(), time.process_time()
            return {"hops": c1 - c0, "seconds": t1 - t0, "cpu_seconds": cpu1 - cpu0}

    return uvloop.run(run())


def main():
    role, kind, ns = sys.argv[1], sys.argv[2], sys.argv[3]
    duration = float(sys.argv[4]) if len(sys.argv) > 4 else 0
    warmup = float(sys.argv[5]) if len(sys.argv) > 5 else 0
    if kind == "afor":
        _finish(run_afor(role, ns, duration, warmup), kind)
    run_rclpy(role, kind, ns, duration, warmup)


if __name__ == "__main__":
    try:
        main()
    except BaseException as e:
        _finish(e, "")
