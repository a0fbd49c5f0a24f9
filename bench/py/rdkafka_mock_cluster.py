"""librdkafka's in-memory mock cluster (C, test.mock.num.brokers) as a bench peer.

A producer created with test.mock.num.brokers=1 starts a mock broker inside librdkafka; its
address is the client's broker list. This prints {"bootstrap": "host:port"} and keeps the mock
alive until stdin closes, so another process can drive it over the wire.
"""
import json
import sys

from confluent_kafka import Producer, libversion

p = Producer({"test.mock.num.brokers": 1, "bootstrap.servers": "", "log_level": 0})
md = p.list_topics(timeout=10)
b = next(iter(md.brokers.values()))
print(json.dumps({"bootstrap": f"{b.host}:{b.port}", "librdkafka": libversion()[0]}), flush=True)
sys.stdin.read()
