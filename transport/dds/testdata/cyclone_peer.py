"""DDS reference peer on Cyclone DDS (the cyclonedds 11.0.1 PyPI package).

A writer or reader of std_msgs::msg::dds_::String_ (the ROS 2 String on the
wire) with the options and output lines of peer_common.py; driven by
transport/dds/internal/ddspeer.
"""

import time
from dataclasses import dataclass

from cyclonedds.core import Listener, Policy, Qos, ReadCondition, SampleState, ViewState, InstanceState, WaitSet
from cyclonedds.domain import DomainParticipant
from cyclonedds.idl import IdlStruct
from cyclonedds.pub import DataWriter
from cyclonedds.sub import DataReader
from cyclonedds.topic import Topic
from cyclonedds.util import duration

import peer_common as pc


@dataclass
class String_(IdlStruct, typename="std_msgs::msg::dds_::String_"):
    data: str


def qos(args):
    rel = (Policy.Reliability.Reliable(duration(seconds=10)) if args.reliability == "reliable"
           else Policy.Reliability.BestEffort)
    dur = (Policy.Durability.TransientLocal if args.durability == "transient-local"
           else Policy.Durability.Volatile)
    hist = Policy.History.KeepAll if args.depth == 0 else Policy.History.KeepLast(args.depth)
    # Cyclone sizes a TRANSIENT_LOCAL writer's kept history by DURABILITY_SERVICE
    # (default KEEP_LAST 1), not by HISTORY: make them agree.
    service = Policy.DurabilityService(cleanup_delay=0, history=hist, max_samples=-1,
                                       max_instances=-1, max_samples_per_instance=-1)
    return Qos(rel, dur, hist, service)


def main():
    args = pc.parse_args()
    go, stop = pc.watch_stdin()
    matched = [0]

    def on_matched(_entity, status):
        matched[0] = status.current_count
        pc.emit("matched", count=status.current_count)

    def on_relay_matched(side):
        def f(_entity, status):
            pc.emit("matched", count=status.current_count, side=side)
        return f

    def on_incompatible(side):
        def f(_entity, status):
            pc.emit("incompatible", side=side,
                    policy=pc.POLICY_NAMES.get(status.last_policy_id, str(status.last_policy_id)))
        return f

    dp = DomainParticipant(args.domain)
    topic = Topic(dp, args.topic, String_)
    if args.role == "relay":
        relay(args, dp, topic, stop, on_relay_matched)
    elif args.role == "writer":
        listener = Listener(on_publication_matched=on_matched,
                            on_offered_incompatible_qos=on_incompatible("offered"))
        writer = DataWriter(dp, topic, qos=qos(args), listener=listener)
        pc.emit("ready")
        pc.wait_to_write(args, matched, go, stop)
        i = 0
        while (args.count == 0 or i < args.count) and not stop.is_set():
            writer.write(String_(data=pc.payload(i, args.size)))
            i += 1
            if args.period > 0:
                stop.wait(args.period)
        if not stop.is_set():
            pc.emit("done", count=i)
        stop.wait()
    else:
        listener = Listener(on_subscription_matched=on_matched,
                            on_requested_incompatible_qos=on_incompatible("requested"))
        reader = DataReader(dp, topic, qos=qos(args), listener=listener)
        cond = ReadCondition(reader, SampleState.Any | ViewState.Any | InstanceState.Any)
        ws = WaitSet(dp)
        ws.attach(cond)
        pc.emit("ready")
        got = 0
        while not stop.is_set() and (args.count == 0 or got < args.count):
            ws.wait(duration(milliseconds=100))
            for s in reader.take(N=64):
                if not s.sample_info.valid_data:
                    continue
                pc.emit("sample", **pc.describe(s.data))
                got += 1
        if args.count and got >= args.count:
            pc.emit("done", count=got)


def relay(args, dp, topic, stop, on_matched):
    """Writes every sample read on topic to --out-topic, unchanged."""
    out = Topic(dp, args.out_topic, String_)
    writer = DataWriter(dp, out, qos=qos(args), listener=Listener(on_publication_matched=on_matched("writer")))
    reader = DataReader(dp, topic, qos=qos(args), listener=Listener(on_subscription_matched=on_matched("reader")))
    cond = ReadCondition(reader, SampleState.Any | ViewState.Any | InstanceState.Any)
    ws = WaitSet(dp)
    ws.attach(cond)
    pc.emit("ready")
    while not stop.is_set():
        ws.wait(duration(milliseconds=100))
        for s in reader.take(N=64):
            if s.sample_info.valid_data:
                writer.write(String_(data=s.data))


if __name__ == "__main__":
    main()
