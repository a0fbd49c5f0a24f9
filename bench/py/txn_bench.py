"""Transactions through confluent-kafka-python (librdkafka 2.0.2) against one broker, for bench/transactions.ts.

stdin: {"bootstrap", "topic", "small_txns", "large_txns", "value_bytes"}. stdout: one JSON object:
- small: `small_txns` transactions of 10 records each (begin, produce 10, commit): transactions per
  second, and commit_transaction latency p50/p99 in ms;
- large: `large_txns` transactions of 1000 records each, MB/s of record values;
- idempotent: the same records as `large`, sent by an idempotent non-transactional producer
  (flush after each 1000), MB/s; the ratio large/idempotent is the cost of the transactions.
Any delivery or transaction error fails the run (exit 1).
"""
import json
import sys
import time

from confluent_kafka import Producer


def pct(xs, p):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(p / 100.0 * (len(xs) - 1))))]


def main():
    cfg = json.load(sys.stdin)
    b, topic = cfg['bootstrap'], cfg['topic']
    value = b'v' * cfg['value_bytes']
    errors = []

    def on_delivery(err, _msg):
        if err is not None:
            errors.append(str(err))

    p = Producer({'bootstrap.servers': b, 'transactional.id': 'bench-' + topic, 'linger.ms': 5})
    p.init_transactions(30)
    # warm-up: the partition is added, metadata known
    p.begin_transaction()
    p.produce(topic, value=value, on_delivery=on_delivery)
    p.commit_transaction(30)

    latencies = []
    t0 = time.perf_counter()
    for _ in range(cfg['small_txns']):
        p.begin_transaction()
        for _ in range(10):
            p.produce(topic, value=value, on_delivery=on_delivery)
        c0 = time.perf_counter()
        p.commit_transaction(30)
        latencies.append((time.perf_counter() - c0) * 1000)
    small_s = time.perf_counter() - t0

    t0 = time.perf_counter()
    for _ in range(cfg['large_txns']):
        p.begin_transaction()
        for _ in range(1000):
            p.produce(topic, value=value, on_delivery=on_delivery)
        p.commit_transaction(30)
    large_s = time.perf_counter() - t0

    q = Producer({'bootstrap.servers': b, 'enable.idempotence': True, 'linger.ms': 5})
    # warm-up: connection, metadata and the producer id before the clock starts, as for the transactional one
    q.produce(topic, value=value, on_delivery=on_delivery)
    q.flush(30)
    t0 = time.perf_counter()
    for _ in range(cfg['large_txns']):
        for _ in range(1000):
            q.produce(topic, value=value, on_delivery=on_delivery)
        if q.flush(30) != 0:
            errors.append('idempotent flush left messages')
    idem_s = time.perf_counter() - t0

    if errors:
        sys.stderr.write('txn_bench.py: delivery errors: %s\n' % errors[:5])
        sys.exit(1)
    mb = cfg['large_txns'] * 1000 * len(value) / 1e6
    print(json.dumps({
        'small': {'txns': cfg['small_txns'], 'txnsPerSec': cfg['small_txns'] / small_s, 'commitP50Ms': pct(latencies, 50), 'commitP99Ms': pct(latencies, 99)},
        'large': {'txns': cfg['large_txns'], 'MBps': mb / large_s},
        'idempotent': {'MBps': mb / idem_s},
    }))


main()
