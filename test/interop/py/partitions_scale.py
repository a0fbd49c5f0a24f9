"""Creates topics with confluent-kafka's AdminClient (CreateTopics, `per_request` topics a request)
and produces one record to each partition, value "<topic>/<partition>" (issue 21's scale proof).

stdin: {"bootstrap", "prefix", "first", "topics", "partitions", "per_request"}
stdout: {"created": n, "produced": n, "errors": [...]}
"""
import json
import sys

from confluent_kafka import Producer
from confluent_kafka.admin import AdminClient, NewTopic

args = json.load(sys.stdin)
bootstrap = args["bootstrap"]
names = ["%s%05d" % (args["prefix"], i) for i in range(args["first"], args["first"] + args["topics"])]
parts = args["partitions"]
errors = []
admin = AdminClient({"bootstrap.servers": bootstrap, "socket.timeout.ms": 120000})
created = 0
for i in range(0, len(names), args["per_request"]):
    chunk = names[i:i + args["per_request"]]
    futures = admin.create_topics([NewTopic(n, parts, 1) for n in chunk], request_timeout=120, operation_timeout=120)
    for n, f in futures.items():
        try:
            f.result()
            created += 1
        except Exception as e:  # the test reports every failure
            errors.append("%s: %s" % (n, e))
produced = 0
delivery_errors = []


def on_delivery(err, msg):
    global produced
    if err is not None:
        delivery_errors.append("%s-%d: %s" % (msg.topic(), msg.partition(), err))
    else:
        produced += 1


producer = Producer({"bootstrap.servers": bootstrap, "linger.ms": 50, "acks": "all", "message.timeout.ms": 240000,
                     "queue.buffering.max.messages": 1000000, "topic.metadata.refresh.interval.ms": 600000})
for n in names:
    for p in range(parts):
        producer.produce(n, value=("%s/%d" % (n, p)).encode(), partition=p, on_delivery=on_delivery)
        producer.poll(0)
left = producer.flush(240)
errors.extend(delivery_errors[:20])
json.dump({"created": created, "produced": produced, "unsent": left, "errors": errors[:20]}, sys.stdout)
