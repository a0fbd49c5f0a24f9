"""Transactions through confluent-kafka-python (librdkafka 2.0.2) against brokers, for bench/transactions.ts.

stdin: {"peers": [{"name", "bootstrap", "topic", "server_pid"}], "small_txns", "large_txns",
"value_bytes"}. stdout: one JSON object, per peer name:
- small: `small_txns` transactions of 10 records each (begin, produce 10, commit): transactions per
  second, and commit_transaction latency p50/p99 in ms;
- large: `large_txns` transactions of 1000 records each, MB/s of record values;
- idempotent: the same records as `large`, sent by an idempotent non-transactional producer
  (flush after each 1000), MB/s; the ratio large/idempotent is the cost of the transactions.
The peers take turns in chunks (50 small transactions; 10 large ones, then 10 idempotent batches),
the order rotated every chunk, so that all of them are measured under the same load of the shared
machine: phases of a few seconds run one after the other measured mostly the load of the moment.
Each phase also reports the CPU time it cost: the server's (`server_pid`, every thread's on-CPU time
from /proc/<pid>/task/*/schedstat, which the scheduler counts in nanoseconds; the tick-sampled
utime/stime overcharge a process that wakes from idle for each short request) and this client's
(getrusage, the whole process), per transaction (per 1000-record batch for idempotent). A
`server_pid` of 0 skips the server's figures. Any delivery or transaction error fails the run (exit 1).
"""
import glob
import json
import resource
import sys
import time

from confluent_kafka import Producer

SMALL_CHUNK = 50
LARGE_CHUNK = 10


def pct(xs, p):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(p / 100.0 * (len(xs) - 1))))] if xs else 0


def server_cpu_ms(pid):
    if not pid:
        return 0.0
    total = 0
    for path in glob.glob('/proc/%d/task/*/schedstat' % pid):
        try:
            with open(path) as f:
                total += int(f.read().split()[0])
        except (OSError, ValueError, IndexError):
            pass  # a thread that ended between the listing and the read
    return total / 1e6


def client_cpu_ms():
    r = resource.getrusage(resource.RUSAGE_SELF)
    return (r.ru_utime + r.ru_stime) * 1000


class Accumulated:
    """The chunks of one phase of one peer summed: seconds, server and client CPU, units."""

    def __init__(self, pid):
        self.pid, self.seconds, self.server_ms, self.client_ms, self.units = pid, 0.0, 0.0, 0.0, 0

    def run(self, units, body):
        t0, s0, c0 = time.perf_counter(), server_cpu_ms(self.pid), client_cpu_ms()
        body()
        self.seconds += time.perf_counter() - t0
        self.server_ms += server_cpu_ms(self.pid) - s0
        self.client_ms += client_cpu_ms() - c0
        self.units += units

    def cpu(self):
        n = max(1, self.units)
        return {'serverCpuMs': self.server_ms / n, 'clientCpuMs': self.client_ms / n}


class PeerRun:
    def __init__(self, peer, value, on_delivery):
        self.name, self.topic, self.pid = peer['name'], peer['topic'], peer.get('server_pid', 0)
        self.value, self.on_delivery = value, on_delivery
        b = peer['bootstrap']
        self.p = Producer({'bootstrap.servers': b, 'transactional.id': 'bench-' + self.topic, 'linger.ms': 5})
        self.p.init_transactions(30)
        # warm-up: the partition is added, metadata known
        self.p.begin_transaction()
        self.p.produce(self.topic, value=value, on_delivery=on_delivery)
        self.p.commit_transaction(30)
        self.q = Producer({'bootstrap.servers': b, 'enable.idempotence': True, 'linger.ms': 5})
        # connection, metadata and the producer id before the clock starts, as for the transactional one
        self.q.produce(self.topic, value=value, on_delivery=on_delivery)
        self.q.flush(30)
        self.small, self.large, self.idem = Accumulated(self.pid), Accumulated(self.pid), Accumulated(self.pid)
        self.latencies = []

    def small_txns(self, n):
        p, topic, value = self.p, self.topic, self.value
        for _ in range(n):
            p.begin_transaction()
            for _ in range(10):
                p.produce(topic, value=value, on_delivery=self.on_delivery)
            c0 = time.perf_counter()
            p.commit_transaction(30)
            self.latencies.append((time.perf_counter() - c0) * 1000)

    def large_txns(self, n):
        p, topic, value = self.p, self.topic, self.value
        for _ in range(n):
            p.begin_transaction()
            for _ in range(1000):
                p.produce(topic, value=value, on_delivery=self.on_delivery)
            p.commit_transaction(30)

    def idempotent_batches(self, n, errors):
        q, topic, value = self.q, self.topic, self.value
        for _ in range(n):
            for _ in range(1000):
                q.produce(topic, value=value, on_delivery=self.on_delivery)
            if q.flush(30) != 0:
                errors.append('%s: idempotent flush left messages' % self.name)


def chunks(total, size):
    while total > 0:
        n = min(size, total)
        total -= n
        yield n


def main():
    cfg = json.load(sys.stdin)
    value = b'v' * cfg['value_bytes']
    errors = []

    def on_delivery(err, _msg):
        if err is not None:
            errors.append(str(err))

    runs = [PeerRun(peer, value, on_delivery) for peer in cfg['peers']]
    turn = 0
    for n in chunks(cfg['small_txns'], SMALL_CHUNK):
        for r in runs[turn % len(runs):] + runs[:turn % len(runs)]:
            r.small.run(n, lambda: r.small_txns(n))
        turn += 1
    for n in chunks(cfg['large_txns'], LARGE_CHUNK):
        for r in runs[turn % len(runs):] + runs[:turn % len(runs)]:
            r.large.run(n, lambda: r.large_txns(n))
            r.idem.run(n, lambda: r.idempotent_batches(n, errors))
        turn += 1

    if errors:
        sys.stderr.write('txn_bench.py: delivery errors: %s\n' % errors[:5])
        sys.exit(1)
    mb = cfg['large_txns'] * 1000 * len(value) / 1e6
    out = {}
    for r in runs:
        out[r.name] = {
            'small': dict({'txns': cfg['small_txns'], 'txnsPerSec': cfg['small_txns'] / max(r.small.seconds, 1e-9),
                           'commitP50Ms': pct(r.latencies, 50), 'commitP99Ms': pct(r.latencies, 99)}, **r.small.cpu()),
            'large': dict({'txns': cfg['large_txns'], 'MBps': mb / max(r.large.seconds, 1e-9)}, **r.large.cpu()),
            'idempotent': dict({'MBps': mb / max(r.idem.seconds, 1e-9)}, **r.idem.cpu()),
        }
    print(json.dumps(out))


main()
