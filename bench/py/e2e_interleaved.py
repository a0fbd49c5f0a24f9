"""Produce-to-consume latency of two brokers, interleaved: an A/B that a loaded host moves for both
sides alike (issue 24; bench/README.md, session 16).

usage: /usr/bin/python3 bench/py/e2e_interleaved.py <bootstrapA> <bootstrapB> <topic> [count] [warmup]

Each broker gets one confluent-kafka producer (acks=all, linger.ms 0) and one consumer of the
topic's partition 0 waiting in a long poll (fetch.wait.max.ms 500, fetch.min.bytes 1), as in
latency_bench.py's e2e mode. Records go to A and B in turn (A B, then B A, ...), each timed from
produce() to the consumer's poll() returning it. The first <warmup> (100) pairs are not counted,
then <count> (1,000) pairs are. Prints each side's p50 / p99 / p99.9 in µs and the ratios A / B.
Start the two brokers first, e.g. `kafkalite serve --port 19301 --data-dir <a>` and the build or
configuration to compare on another port.
"""
import sys
import time

from confluent_kafka import Consumer, Producer, TopicPartition

if len(sys.argv) < 4:
    sys.exit(__doc__)
bootstraps, topic = sys.argv[1:3], sys.argv[3]
count = int(sys.argv[4]) if len(sys.argv) > 4 else 1000
warmup = int(sys.argv[5]) if len(sys.argv) > 5 else 100
value = b'x' * 100
now = time.perf_counter_ns


def side(bootstrap, tag):
    producer = Producer({'bootstrap.servers': bootstrap, 'acks': 'all', 'linger.ms': 0, 'enable.idempotence': False,
                         'log_level': 0})
    # the partition exists before the consumer looks at it
    producer.produce(topic, value, partition=0)
    producer.flush(10)
    consumer = Consumer({'bootstrap.servers': bootstrap, 'group.id': f'e2e-interleaved-{tag}',
                         'enable.auto.commit': False, 'fetch.wait.max.ms': 500, 'fetch.min.bytes': 1,
                         'log_level': 0})
    # from the current end, known before anything is produced (see latency_bench.py)
    _, high = consumer.get_watermark_offsets(TopicPartition(topic, 0), timeout=10)
    consumer.assign([TopicPartition(topic, 0, high)])
    return producer, consumer


sides = [side(bootstraps[0], 'a'), side(bootstraps[1], 'b')]


def one(i):
    producer, consumer = sides[i]
    t0 = now()
    producer.produce(topic, value, partition=0)
    producer.poll(0)
    msg = None
    deadline = time.time() + 10
    while msg is None or msg.error() is not None:
        if time.time() > deadline:
            sys.exit(f'e2e_interleaved.py: no record from {bootstraps[i]} within 10 s')
        msg = consumer.poll(1)
    elapsed = (now() - t0) / 1000
    producer.poll(0)
    return elapsed


us = [[], []]
for k in range(warmup + count):
    for i in ((0, 1) if k % 2 == 0 else (1, 0)):
        t = one(i)
        if k >= warmup:
            us[i].append(t)
for producer, consumer in sides:
    producer.flush(10)
    consumer.close()


def pct(xs, p):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(p * len(xs)))]


for name, xs in zip(('A', 'B'), us):
    print(f'{name} {bootstraps[ord(name) - 65]}: p50 {pct(xs, .5):.0f} µs  p99 {pct(xs, .99):.0f}  p99.9 {pct(xs, .999):.0f}  (n {len(xs)})')
print('A / B: ' + '  '.join(f'p{label} {pct(us[0], p) / pct(us[1], p):.3f}' for label, p in (('50', .5), ('99', .99), ('99.9', .999))))
