"""A ROS 2 service client in rmw_cyclonedds_cpp's form, on Cyclone DDS (the
cyclonedds PyPI package), for rmwdds's interop test
(interop_cyclone_py_test.go).

rmw_cyclonedds starts the body of every request and reply with a 16-byte
header: the client's uint64 id and an int64 sequence number, which the
reply echoes. This peer declares std_srvs/SetBool's request and reply with
that header as leading fields, writes a request (data true) on
rq/go_setRequest every 200 ms, and prints {"ev": "response", "seq": n,
"success": b, "message": s} for each reply on rr/go_setReply with its id.
Usage: cyclone_service_client.py DOMAIN. Exits when stdin closes.
"""

import json
import sys
import threading
import time
from dataclasses import dataclass

from cyclonedds.core import Policy, Qos
from cyclonedds.domain import DomainParticipant
from cyclonedds.idl import IdlStruct
from cyclonedds.idl.types import int64, uint64
from cyclonedds.pub import DataWriter
from cyclonedds.sub import DataReader
from cyclonedds.topic import Topic
from cyclonedds.util import duration

CLIENT_ID = 0x0123456789ABCDEF


@dataclass
class SetBool_Request_(IdlStruct, typename="std_srvs::srv::dds_::SetBool_Request_"):
    client_id: uint64
    seq: int64
    data: bool


@dataclass
class SetBool_Response_(IdlStruct, typename="std_srvs::srv::dds_::SetBool_Response_"):
    client_id: uint64
    seq: int64
    success: bool
    message: str


def emit(**kw):
    sys.stdout.write(json.dumps(kw) + "\n")
    sys.stdout.flush()


def main():
    dp = DomainParticipant(int(sys.argv[1]))
    qos = Qos(Policy.Reliability.Reliable(duration(seconds=1)), Policy.Durability.Volatile,
              Policy.History.KeepLast(10))
    writer = DataWriter(dp, Topic(dp, "rq/go_setRequest", SetBool_Request_), qos=qos)
    reader = DataReader(dp, Topic(dp, "rr/go_setReply", SetBool_Response_), qos=qos)
    done = threading.Event()
    threading.Thread(target=lambda: (sys.stdin.read(), done.set()), daemon=True).start()
    emit(ev="ready")
    seq = 0
    while not done.is_set():
        seq += 1
        writer.write(SetBool_Request_(client_id=CLIENT_ID, seq=seq, data=True))
        for r in reader.take(N=16):
            if r.client_id == CLIENT_ID:
                emit(ev="response", seq=r.seq, success=r.success, message=r.message)
        time.sleep(0.2)


main()
