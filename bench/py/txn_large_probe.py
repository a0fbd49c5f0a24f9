"""Where a 1000-record transaction's time goes on the client, against one broker (bench/README.md, transactions).

usage: txn_large_probe.py <bootstrap> <n> <topic>. Alternates one transaction of 1000 records
(begin, produce 1000, commit) with one idempotent batch of the same records (produce 1000, flush),
20 of each untimed, then n of each, and prints the medians in ms of the produce() loop and of the
commit or flush, and the idempotent throughput over the transactional one. Against the mock the
broker's share is near zero, so what the mock shows is the client's (librdkafka's) own cost.
"""
import sys, time, json
from confluent_kafka import Producer
b, n, topic = sys.argv[1], int(sys.argv[2]), sys.argv[3]
v = b'v'*100
p = Producer({'bootstrap.servers': b, 'transactional.id': 'large-' + topic, 'linger.ms': 5})
p.init_transactions(30)
q = Producer({'bootstrap.servers': b, 'enable.idempotence': True, 'linger.ms': 5})
def txn():
    t0 = time.perf_counter(); p.begin_transaction()
    for _ in range(1000): p.produce(topic, value=v)
    t1 = time.perf_counter(); p.commit_transaction(30); t2 = time.perf_counter()
    return t1 - t0, t2 - t1
def idem():
    t0 = time.perf_counter()
    for _ in range(1000): q.produce(topic, value=v)
    t1 = time.perf_counter(); q.flush(30); t2 = time.perf_counter()
    return t1 - t0, t2 - t1
for _ in range(20): txn(); idem()
T, I = [], []
for _ in range(n):
    T.append(txn()); I.append(idem())
med = lambda xs: sorted(xs)[len(xs)//2]*1000
print(json.dumps({'txn_produce_ms': round(med([a for a, _ in T]), 2), 'txn_commit_ms': round(med([c for _, c in T]), 2),
                  'idem_produce_ms': round(med([a for a, _ in I]), 2), 'idem_flush_ms': round(med([c for _, c in I]), 2),
                  'large_over_idem': round(sum(a+c for a, c in I) / sum(a+c for a, c in T), 3)}))
