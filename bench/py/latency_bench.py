"""One round of the latency bench (bench/latency.ts) against one broker, with confluent-kafka.

usage: latency_bench.py <bootstrap> roundtrip <topic> <count>
       latency_bench.py <bootstrap> e2e <topic> <count>

roundtrip: <count> synchronous produce+flush round trips of one 100 B record each (acks=all,
linger.ms=0), after 100 unmeasured ones; e2e: <count> records each produced while a consumer of
the same partition waits in a long poll (fetch.wait.max.ms 500, fetch.min.bytes 1), timed from
produce() to the consumer's poll() returning it. Prints {"us": [latency in µs, ...]}.
"""
import json
import sys
import time

from confluent_kafka import Consumer, Producer, TopicPartition

bootstrap, mode, topic, count = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
value = b'x' * 100
producer = Producer({'bootstrap.servers': bootstrap, 'acks': 'all', 'linger.ms': 0, 'enable.idempotence': False,
                     'log_level': 0})
now = time.perf_counter_ns
out = []


def fail(msg):
    sys.stderr.write(f'latency_bench.py: {msg}\n')
    sys.exit(1)


errors = []
def delivered(err, _msg):
    if err is not None:
        errors.append(str(err))


if mode == 'roundtrip':
    for i in range(100 + count):
        t0 = now()
        producer.produce(topic, value, partition=0, on_delivery=delivered)
        if producer.flush(10) != 0:
            fail('flush timed out')
        if i >= 100:
            out.append((now() - t0) / 1000)
elif mode == 'e2e':
    # the partition exists before the consumer looks at it
    producer.produce(topic, value, partition=0, on_delivery=delivered)
    producer.flush(10)
    consumer = Consumer({'bootstrap.servers': bootstrap, 'group.id': f'latency-{topic}', 'enable.auto.commit': False,
                         'fetch.wait.max.ms': 500, 'fetch.min.bytes': 1, 'log_level': 0})
    # from the current end, known before anything is produced (OFFSET_END would be resolved later,
    # after the first record, which the consumer would then never see)
    _, high = consumer.get_watermark_offsets(TopicPartition(topic, 0), timeout=10)
    consumer.assign([TopicPartition(topic, 0, high)])
    for i in range(5 + count):
        t0 = now()
        producer.produce(topic, value, partition=0, on_delivery=delivered)
        producer.poll(0)
        msg = None
        deadline = time.time() + 10
        while msg is None or msg.error() is not None:
            if time.time() > deadline:
                fail('no record consumed within 10 s')
            msg = consumer.poll(1)
        if i >= 5:
            out.append((now() - t0) / 1000)
        producer.poll(0)
    producer.flush(10)
    consumer.close()
else:
    fail(f'unknown mode {mode}')
if errors:
    fail(f'delivery failed: {errors[:3]}')
print(json.dumps({'us': out}))
