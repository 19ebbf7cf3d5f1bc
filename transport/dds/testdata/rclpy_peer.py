"""DDS reference peer on rclpy with Fast DDS (rmw_fastrtps_cpp).

A talker, listener or relay of std_msgs/msg/String with the options and output
lines of peer_common.py; the DDS topic rt/<name> is the ROS topic /<name>.
Run with RMW_IMPLEMENTATION=rmw_fastrtps_cpp, FASTDDS_BUILTIN_TRANSPORTS=UDPv4
and ROS_DOMAIN_ID (which --domain overrides); driven by
transport/dds/internal/ddspeer.
"""

import os
import sys
import threading

import peer_common as pc


def main():
    args = pc.parse_args()
    if not args.topic.startswith("rt/"):
        sys.exit(f"rclpy_peer: topic {args.topic!r} is not a ROS topic (no rt/ prefix)")
    os.environ["ROS_DOMAIN_ID"] = str(args.domain)

    import rclpy
    from rclpy.event_handler import PublisherEventCallbacks, SubscriptionEventCallbacks
    from rclpy.executors import SingleThreadedExecutor
    from rclpy.qos import DurabilityPolicy, HistoryPolicy, QoSProfile, ReliabilityPolicy
    from std_msgs.msg import String

    qos = QoSProfile(
        history=HistoryPolicy.KEEP_ALL if args.depth == 0 else HistoryPolicy.KEEP_LAST,
        depth=max(args.depth, 1),
        reliability=(ReliabilityPolicy.RELIABLE if args.reliability == "reliable"
                     else ReliabilityPolicy.BEST_EFFORT),
        durability=(DurabilityPolicy.TRANSIENT_LOCAL if args.durability == "transient-local"
                    else DurabilityPolicy.VOLATILE),
    )
    go, stop = pc.watch_stdin()
    matched = [0]

    def on_matched(info):
        matched[0] = info.current_count
        pc.emit("matched", count=info.current_count)

    def on_incompatible(side):
        return lambda info: pc.emit("incompatible", side=side, policy=info.last_policy_kind.name.removeprefix("RMW_QOS_POLICY_"))

    rclpy.init()
    node = rclpy.create_node("afor_" + args.role)
    executor = SingleThreadedExecutor()
    executor.add_node(node)
    name = args.topic[len("rt/"):]
    finished = threading.Event()

    if args.role == "relay":
        if not args.out_topic.startswith("rt/"):
            sys.exit(f"rclpy_peer: out topic {args.out_topic!r} is not a ROS topic (no rt/ prefix)")

        def relay_matched(side):
            return lambda info: pc.emit("matched", count=info.current_count, side=side)

        out = node.create_publisher(String, args.out_topic[len("rt/"):], qos,
                                    event_callbacks=PublisherEventCallbacks(matched=relay_matched("writer")))
        node.create_subscription(String, name, out.publish, qos,
                                 event_callbacks=SubscriptionEventCallbacks(matched=relay_matched("reader")))
    elif args.role == "writer":
        pub = node.create_publisher(String, name, qos, event_callbacks=PublisherEventCallbacks(
            matched=on_matched, incompatible_qos=on_incompatible("offered")))
    else:
        got = [0]

        def on_sample(msg):
            pc.emit("sample", **pc.describe(msg.data))
            got[0] += 1
            if args.count and got[0] == args.count:
                pc.emit("done", count=got[0])
                finished.set()

        node.create_subscription(String, name, on_sample, qos, event_callbacks=SubscriptionEventCallbacks(
            matched=on_matched, incompatible_qos=on_incompatible("requested")))

    pc.emit("ready")
    spinner = threading.Thread(target=executor.spin, daemon=True)
    spinner.start()
    if args.role == "writer":
        pc.wait_to_write(args, matched, go, stop)
        i = 0
        while (args.count == 0 or i < args.count) and not stop.is_set():
            pub.publish(String(data=pc.payload(i, args.size)))
            i += 1
            if args.period > 0:
                stop.wait(args.period)
        if not stop.is_set():
            pc.emit("done", count=i)
        stop.wait()
    else:
        while not stop.wait(0.05) and not finished.is_set():
            pass
    executor.shutdown()
    spinner.join()
    node.destroy_node()
    rclpy.try_shutdown()


if __name__ == "__main__":
    main()
