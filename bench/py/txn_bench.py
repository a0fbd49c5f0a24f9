"""Transactions through confluent-kafka-python (librdkafka 2.0.2) against one broker, for bench/transactions.ts.

stdin: {"bootstrap", "topic", "small_txns", "large_txns", "value_bytes", "server_pid"}. stdout: one JSON object:
- small: `small_txns` transactions of 10 records each (begin, produce 10, commit): transactions per
  second, and commit_transaction latency p50/p99 in ms;
- large: `large_txns` transactions of 1000 records each, MB/s of record values;
- idempotent: the same records as `large`, sent by an idempotent non-transactional producer
  (flush after each 1000), MB/s; the ratio large/idempotent is the cost of the transactions. The
  two alternate, 10 transactions then 10 idempotent batches, until each has sent `large_txns`.
Each phase also reports the CPU time it cost: the server's (`server_pid`, every thread's on-CPU time
from /proc/<pid>/task/*/schedstat, which the scheduler counts in nanoseconds; the tick-sampled
utime/stime overcharge a process that wakes from idle for each short request) and this client's
(getrusage), per transaction (per 1000-record batch for idempotent). A `server_pid` of 0 skips the
server's figures. Any delivery or transaction error fails the run (exit 1).
"""
import glob
import json
import resource
import sys
import time

from confluent_kafka import Producer


def pct(xs, p):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(p / 100.0 * (len(xs) - 1))))]


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


class Phase:
    """Wall time and CPU of one phase, per unit."""

    def __init__(self, pid):
        self.pid = pid
        self.t0, self.s0, self.c0 = time.perf_counter(), server_cpu_ms(pid), client_cpu_ms()

    def end(self, units):
        self.seconds = time.perf_counter() - self.t0
        self.server_ms_per_unit = (server_cpu_ms(self.pid) - self.s0) / units
        self.client_ms_per_unit = (client_cpu_ms() - self.c0) / units
        return self


class Accumulated:
    """Phases of one kind summed: seconds and CPU per unit, as Phase."""

    def __init__(self, pid):
        self.pid, self.seconds, self.server_ms, self.client_ms, self.units = pid, 0.0, 0.0, 0.0, 0

    def add(self, ph, units):
        t1, s1, c1 = time.perf_counter(), server_cpu_ms(self.pid), client_cpu_ms()
        self.seconds += t1 - ph.t0
        self.server_ms += s1 - ph.s0
        self.client_ms += c1 - ph.c0
        self.units += units

    def end(self):
        self.server_ms_per_unit = self.server_ms / max(1, self.units)
        self.client_ms_per_unit = self.client_ms / max(1, self.units)
        return self


LARGE_CHUNK = 10


def main():
    cfg = json.load(sys.stdin)
    b, topic = cfg['bootstrap'], cfg['topic']
    pid = cfg.get('server_pid', 0)
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
    small = Phase(pid)
    for _ in range(cfg['small_txns']):
        p.begin_transaction()
        for _ in range(10):
            p.produce(topic, value=value, on_delivery=on_delivery)
        c0 = time.perf_counter()
        p.commit_transaction(30)
        latencies.append((time.perf_counter() - c0) * 1000)
    small.end(max(1, cfg['small_txns']))

    q = Producer({'bootstrap.servers': b, 'enable.idempotence': True, 'linger.ms': 5})
    # warm-up: connection, metadata and the producer id before the clock starts, as for the transactional one
    q.produce(topic, value=value, on_delivery=on_delivery)
    q.flush(30)
    # the two loads alternate in chunks of LARGE_CHUNK, so that both see the same machine: on a
    # shared one, a phase of a fraction of a second run after the other measured mostly the load of the moment
    large, idem = Accumulated(pid), Accumulated(pid)
    left = cfg['large_txns']
    while left > 0:
        n = min(LARGE_CHUNK, left)
        left -= n
        ph = Phase(pid)
        for _ in range(n):
            p.begin_transaction()
            for _ in range(1000):
                p.produce(topic, value=value, on_delivery=on_delivery)
            p.commit_transaction(30)
        large.add(ph, n)
        ph = Phase(pid)
        for _ in range(n):
            for _ in range(1000):
                q.produce(topic, value=value, on_delivery=on_delivery)
            if q.flush(30) != 0:
                errors.append('idempotent flush left messages')
        idem.add(ph, n)
    large.end()
    idem.end()

    if errors:
        sys.stderr.write('txn_bench.py: delivery errors: %s\n' % errors[:5])
        sys.exit(1)
    mb = cfg['large_txns'] * 1000 * len(value) / 1e6

    def cpu(ph):
        return {'serverCpuMs': ph.server_ms_per_unit, 'clientCpuMs': ph.client_ms_per_unit}

    print(json.dumps({
        'small': dict({'txns': cfg['small_txns'], 'txnsPerSec': cfg['small_txns'] / small.seconds, 'commitP50Ms': pct(latencies, 50) if latencies else 0, 'commitP99Ms': pct(latencies, 99) if latencies else 0}, **cpu(small)),
        'large': dict({'txns': cfg['large_txns'], 'MBps': mb / large.seconds}, **cpu(large)),
        'idempotent': dict({'MBps': mb / idem.seconds}, **cpu(idem)),
    }))


main()
