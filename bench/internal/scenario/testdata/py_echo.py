"""Echo driver for the Python afor (asyncio-for-robotics), run by bench/.

Reproduces the Python library's own echo benchmark: two topics, "hello" and
"world", one message in flight, each side answering the other from an
``async for msg in sub.listen_reliable()`` loop, on uvloop.

Usage: python py_echo.py MODE DURATION_S WARMUP_S [PORT]
  MODE inproc: two plain BaseSub fed with input_data by two tasks (no transport)
  MODE zenoh:  two afor zenoh Subs and two publishers in one isolated Zenoh
               session (no scouting, listening on 127.0.0.1 only); payloads are
               ASCII decimal counters, as in the library's benchmark.
  MODE world:  the world half alone, in its own process: listens on
               tcp/127.0.0.1:PORT (0: the system picks), prints "ready PORT",
               answers until stdin closes.
  MODE hello:  the hello half alone: connects to tcp/127.0.0.1:PORT, seeds the
               echo and measures (the library's --hello/--world split).

Unlike the library's benchmark, the hop counter is read at the start and at
the end of the measured window, so warm-up hops are not counted.
Prints one JSON object on stdout: hops, seconds, cpu_seconds and versions.
"""

import asyncio
import json
import os
import sys
import time
from importlib import metadata

import uvloop

from asyncio_for_robotics import BaseSub


def _version(dist):
    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return ""


async def _measure(last, duration, warmup):
    await asyncio.sleep(warmup)
    if last[0] == 0:
        raise RuntimeError("no hop during warm-up")
    c0, t0, cpu0 = last[0], time.perf_counter(), time.process_time()
    await asyncio.sleep(duration)
    # At least one hop in the window: on a loaded machine one hop may take
    # longer than a short window (the window then ends with that hop).
    while last[0] == c0 and time.perf_counter() - t0 < duration + 30:
        await asyncio.sleep(0.001)
    c1, t1, cpu1 = last[0], time.perf_counter(), time.process_time()
    return {"hops": c1 - c0, "seconds": t1 - t0, "cpu_seconds": cpu1 - cpu0}


async def inproc(duration, warmup):
    hello, world = BaseSub(scope=None), BaseSub(scope=None)
    last = [0]

    async def answer(gen, dst):
        async for msg in gen:
            last[0] = msg
            dst.input_data(msg + 1)

    # listen_reliable registers at the call: do it before the seed.
    tasks = [
        asyncio.create_task(answer(hello.listen_reliable(), world)),
        asyncio.create_task(answer(world.listen_reliable(), hello)),
    ]
    hello.input_data(0)
    try:
        return await _measure(last, duration, warmup)
    finally:
        for t in tasks:
            t.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        hello.close()
        world.close()


async def over_zenoh(duration, warmup):
    import zenoh
    from asyncio_for_robotics import zenoh as afor_zenoh

    conf = zenoh.Config()
    conf.insert_json5("mode", '"peer"')
    conf.insert_json5("scouting/multicast/enabled", "false")
    conf.insert_json5("listen/endpoints", '["tcp/127.0.0.1:0"]')
    conf.insert_json5("connect/endpoints", "[]")
    session = zenoh.open(conf)
    prefix = "afor_bench/py/" + session.info.zid().__str__()
    try:
        with afor_zenoh.auto_context(session):
            hello = afor_zenoh.Sub(prefix + "/hello", session, scope=None)
            world = afor_zenoh.Sub(prefix + "/world", session, scope=None)
            pub_hello = session.declare_publisher(prefix + "/hello")
            pub_world = session.declare_publisher(prefix + "/world")
            last = [0]

            async def answer(gen, pub):
                async for sample in gen:
                    msg = int(sample.payload.to_bytes())
                    last[0] = msg
                    pub.put(str(msg + 1).encode())

            tasks = [
                asyncio.create_task(answer(hello.listen_reliable(), pub_world)),
                asyncio.create_task(answer(world.listen_reliable(), pub_hello)),
            ]
            pub_hello.put(b"0")
            try:
                return await _measure(last, duration, warmup)
            finally:
                for t in tasks:
                    t.cancel()
                await asyncio.gather(*tasks, return_exceptions=True)
                hello.close()
                world.close()
                pub_hello.undeclare()
                pub_world.undeclare()
    finally:
        session.close()


def _isolated_config(port, listen):
    import zenoh

    conf = zenoh.Config()
    conf.insert_json5("mode", '"peer"')
    conf.insert_json5("scouting/multicast/enabled", "false")
    endpoint = '["tcp/127.0.0.1:%d"]' % port
    conf.insert_json5("listen/endpoints", endpoint if listen else "[]")
    conf.insert_json5("connect/endpoints", "[]" if listen else endpoint)
    return conf


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


async def world(port):
    import threading

    import zenoh
    from asyncio_for_robotics import zenoh as afor_zenoh

    session = zenoh.open(_isolated_config(port, listen=True))
    loop = asyncio.get_running_loop()
    stdin_closed = asyncio.Event()
    threading.Thread(
        target=lambda: (sys.stdin.read(), loop.call_soon_threadsafe(stdin_closed.set)),
        daemon=True,
    ).start()
    try:
        hello = afor_zenoh.Sub("afor_bench/py/hello", session, scope=None)
        pub_world = session.declare_publisher("afor_bench/py/world")

        async def answer(gen):
            async for sample in gen:
                pub_world.put(str(int(sample.payload.to_bytes()) + 1).encode())

        task = asyncio.create_task(answer(hello.listen_reliable()))
        print("ready", bound_port(port), flush=True)
        await stdin_closed.wait()
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
        hello.close()
        pub_world.undeclare()
    finally:
        session.close()
    return None


async def hello_side(duration, warmup, port):
    import zenoh
    from asyncio_for_robotics import zenoh as afor_zenoh

    session = zenoh.open(_isolated_config(port, listen=False))
    try:
        world_sub = afor_zenoh.Sub("afor_bench/py/world", session, scope=None)
        pub_hello = session.declare_publisher("afor_bench/py/hello")
        last = [0]

        async def answer(gen):
            async for sample in gen:
                msg = int(sample.payload.to_bytes())
                last[0] = msg
                pub_hello.put(str(msg + 1).encode())

        task = asyncio.create_task(answer(world_sub.listen_reliable()))
        # Declarations travel asynchronously: seed until the first answer
        # (a seed that arrives is answered; one chain only, as the next seed
        # is sent only when nothing came back for a whole second).
        for _ in range(10):
            pub_hello.put(b"0")
            for _ in range(100):
                await asyncio.sleep(0.01)
                if last[0]:
                    break
            if last[0]:
                break
        try:
            return await _measure(last, duration, warmup)
        finally:
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)
            world_sub.close()
            pub_hello.undeclare()
    finally:
        session.close()


def main():
    modes = ("inproc", "zenoh", "world", "hello")
    if len(sys.argv) not in (4, 5) or sys.argv[1] not in modes:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    mode, duration, warmup = sys.argv[1], float(sys.argv[2]), float(sys.argv[3])
    port = int(sys.argv[4]) if len(sys.argv) == 5 else 0
    if mode == "world":
        uvloop.run(world(port))
        return
    if mode == "hello":
        out = uvloop.run(hello_side(duration, warmup, port))
    else:
        run = inproc if mode == "inproc" else over_zenoh
        out = uvloop.run(run(duration, warmup))
    out.update(
        {
            "mode": mode,
            "python": sys.version.split()[0],
            "asyncio_for_robotics": _version("asyncio-for-robotics"),
            "eclipse_zenoh": _version("eclipse-zenoh"),
            "uvloop": _version("uvloop"),
        }
    )
    print(json.dumps(out), flush=True)


if __name__ == "__main__":
    main()
