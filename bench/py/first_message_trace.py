"""Where the time goes between subscribe() and the first message in a fresh group, for
bench/join.ts (BENCH_JOIN_TRACE=1): confluent-kafka-python (librdkafka) with
debug=cgrp,topic,fetch,protocol, each log line stamped with the ms since subscribe().

argv: bootstrap topic. Creates `topic` (12 partitions), produces one record to each, then one
consumer in the fresh group `<topic>-g` (auto.offset.reset=earliest) polls until its first message.
stdout: the requests sent and answers received, and the offset-reset steps of partition 0 (the
other partitions repeat them), then `first message <ms>`. Any error exits non-zero.
"""
import logging
import re
import sys
import time

from confluent_kafka import Consumer, Producer
from confluent_kafka.admin import AdminClient, NewTopic

bootstrap, topic = sys.argv[1], sys.argv[2]
admin = AdminClient({'bootstrap.servers': bootstrap})  # kept: destroying it fails the pending create
admin.create_topics([NewTopic(topic, 12, 1)])[topic].result(30)
p = Producer({'bootstrap.servers': bootstrap, 'acks': 'all'})
for i in range(12):
    p.produce(topic, b'v', partition=i)
if p.flush(30) != 0:
    sys.exit('first_message_trace.py: produce did not complete')

t0 = 0.0
done = False
# Requests, answers, and partition 0's offset steps; Fetch lines repeat every poll, so only the first.
keep = re.compile(r'^(SEND|RECV|OFFFETCH|SYNCGROUP|JOINGROUP) |' + re.escape(f'{topic} [0]') + r'.*(offset|OFFSET|fetch state)')
seen_fetch = [False]


class Trace(logging.Handler):
    def emit(self, record):
        line = record.getMessage()
        if done:
            return
        if not keep.search(line) or ('OffsetFetchResponse: ' in line and f'{topic} [0]' not in line):
            return
        if 'FetchRequest' in line and 'OffsetFetch' not in line:
            if seen_fetch[0]:
                return
            seen_fetch[0] = True
        print('%8.1f %s' % ((time.perf_counter() - t0) * 1000, line), flush=True)


log = logging.getLogger('first_message_trace')
log.addHandler(Trace())
log.setLevel(logging.DEBUG)
c = Consumer({'bootstrap.servers': bootstrap, 'group.id': f'{topic}-g', 'auto.offset.reset': 'earliest',
              'enable.auto.commit': False, 'debug': 'cgrp,topic,fetch,protocol', 'logger': log})
t0 = time.perf_counter()
c.subscribe([topic])
deadline = t0 + 60
while time.perf_counter() < deadline:
    m = c.poll(0.005)
    if m is not None:
        if m.error() is not None:
            sys.exit(f'first_message_trace.py: {m.error()}')
        print('first message %.1f' % ((time.perf_counter() - t0) * 1000), flush=True)
        done = True
        break
else:
    sys.exit('first_message_trace.py: no message within 60 s')
c.close()
