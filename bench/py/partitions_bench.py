"""Scaling with partitions (issue 21): what a new user sees creating many small topics.

usage: /usr/bin/python3 bench/py/partitions_bench.py <topics> [partitions-per-topic=5] [ulimit-n]
       [extra --config k=v for kafkalite serve ...]

Starts `node bin/kafkalite.js serve` on a fresh data directory (under ulimit -n when given), then:
  1. creates <topics> topics of <partitions> partitions with confluent-kafka's AdminClient, 100 per
     CreateTopics request; every topic error is fatal;
  2. produces one record to every partition (one producer per 1,000 topics, one after another, each
     flushed; every delivery error is fatal). One producer for 100k partitions never finished:
     librdkafka's threads walk every partition the producer knows on each wake-up, so its CPU grew
     with the square of the count (15.6 min of client CPU against 2.6 min of the broker's, unfinished);
     the broker gets the same records either way;
  3. reads the broker's open descriptors (/proc/<pid>/fd) and RSS (/proc/<pid>/status VmRSS);
  4. stops the broker (SIGTERM, a clean shutdown), starts it again and times start-to-listening
     (the first successful TCP connect), then reads one record back from the last partition;
  5. times a Metadata request for all topics (AdminClient.list_topics) and checks the count;
  6. kills the broker (SIGKILL), starts it again and times start-to-listening (an unclean restart:
     recovery past each log's recovery point, the metadata log's included), and reads back again.
prints one JSON line with the figures. KAFKALITE_BENCH_DIR: where the data directory goes
(default the system's temp dir; /dev/shm keeps other jobs' fsyncs out of the figures).
"""
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

from confluent_kafka import Consumer, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic

ROOT = os.environ.get('KAFKALITE_ROOT') or os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def free_port():
    s = socket.socket()
    s.bind(('127.0.0.1', 0))
    port = s.getsockname()[1]
    s.close()
    return port


def start(data_dir, port, nofile, extra):
    cmd = ['node', os.path.join(ROOT, 'bin', 'kafkalite.js'), 'serve', '--port', str(port), '--data-dir', data_dir, '--log-level', 'warn']
    for kv in extra:
        cmd += ['--config', kv]
    if nofile:
        cmd = ['bash', '-c', f'ulimit -n {nofile} && exec "$@"', 'bash'] + cmd
    began = time.monotonic()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=sys.stderr)
    while True:
        if proc.poll() is not None:
            raise SystemExit(f'broker exited with {proc.returncode}')
        try:
            socket.create_connection(('127.0.0.1', port), timeout=0.2).close()
            took = time.monotonic() - began
            START_CPU[proc.pid] = cpu_seconds(proc.pid)
            return proc, took
        except OSError:
            time.sleep(0.01)


START_CPU = {}


def cpu_seconds(pid):
    """The broker's user + system CPU time (/proc/<pid>/stat): on a shared machine a steadier
    figure than the wall clock."""
    with open(f'/proc/{pid}/stat') as f:
        fields = f.read().rsplit(')', 1)[1].split()
    return round((int(fields[11]) + int(fields[12])) / os.sysconf('SC_CLK_TCK'), 2)


def stop(proc):
    proc.send_signal(signal.SIGTERM)
    proc.wait(timeout=120)


def usage(pid):
    fds = len(os.listdir(f'/proc/{pid}/fd'))
    rss = 0
    with open(f'/proc/{pid}/status') as f:
        for line in f:
            if line.startswith('VmRSS:'):
                rss = int(line.split()[1]) * 1024
    return fds, rss


def read_back(bootstrap, topic, partition):
    consumer = Consumer({'bootstrap.servers': bootstrap, 'group.id': 'bench', 'enable.auto.commit': False})
    consumer.assign([TopicPartition(topic, partition, 0)])
    msg = None
    deadline = time.monotonic() + 60
    while msg is None and time.monotonic() < deadline:
        msg = consumer.poll(1)
    if msg is None or msg.error() or msg.value() != f'{topic}-{partition}'.encode():
        raise SystemExit(f'read back failed: {msg and (msg.error() or msg.value())}')
    consumer.close()


def main():
    topics = int(sys.argv[1])
    per = int(sys.argv[2]) if len(sys.argv) > 2 else 5
    nofile = int(sys.argv[3]) if len(sys.argv) > 3 and sys.argv[3] != '0' else None
    extra = sys.argv[4:]
    data_dir = tempfile.mkdtemp(prefix='kafkalite-partitions-', dir=os.environ.get('KAFKALITE_BENCH_DIR'))
    port = free_port()
    running = []
    out = {'topics': topics, 'partitionsPerTopic': per, 'partitions': topics * per, 'ulimitN': nofile}
    try:
        proc, first_start = start(data_dir, port, nofile, extra)
        running.append(proc)
        out['firstStartSeconds'] = round(first_start, 3)
        bootstrap = f'127.0.0.1:{port}'
        admin = AdminClient({'bootstrap.servers': bootstrap})
        names = [f't{i:06d}' for i in range(topics)]
        began = time.monotonic()
        for i in range(0, topics, 100):
            futures = admin.create_topics([NewTopic(n, per, 1) for n in names[i:i + 100]], operation_timeout=60, request_timeout=120)
            for n, f in futures.items():
                f.result()
        created = time.monotonic() - began
        out['createSeconds'] = round(created, 3)
        out['createPartitionsPerSec'] = round(topics * per / created)
        # librdkafka spends far more CPU per partition than the broker here (100k partitions: minutes
        # of client CPU): no message may time out on the way
        errors = []
        def delivered(err, msg):
            if err is not None:
                errors.append(str(err))
        began = time.monotonic()
        left = 0
        for i in range(0, topics, 1000):
            producer = Producer({'bootstrap.servers': bootstrap, 'linger.ms': 100, 'queue.buffering.max.messages': 1000000,
                                 'message.timeout.ms': 1800000})
            for n in names[i:i + 1000]:
                for p in range(per):
                    producer.produce(n, value=f'{n}-{p}'.encode(), partition=p, on_delivery=delivered)
                    producer.poll(0)
            left += producer.flush(1800)
            del producer
        out['produceSeconds'] = round(time.monotonic() - began, 3)
        if errors or left:
            raise SystemExit(f'produce failed: {left} undelivered, errors {errors[:3]}')
        fds, rss = usage(proc.pid)
        out['fds'] = fds
        out['rssMiB'] = round(rss / 1048576, 1)
        del admin  # its reconnect attempts would only fill stderr
        stop(proc)
        proc, restart = start(data_dir, port, nofile, extra)
        running.append(proc)
        out['restartToListenSeconds'] = round(restart, 3)
        out['restartCpuSeconds'] = START_CPU[proc.pid]
        read_back(bootstrap, names[-1], per - 1)
        fds, rss = usage(proc.pid)
        out['fdsAfterRestart'] = fds
        out['rssAfterRestartMiB'] = round(rss / 1048576, 1)
        admin = AdminClient({'bootstrap.servers': bootstrap})
        began = time.monotonic()
        md = admin.list_topics(timeout=300)
        out['metadataAllTopicsSeconds'] = round(time.monotonic() - began, 3)
        if len([t for t in md.topics if t.startswith('t')]) != topics:
            raise SystemExit(f'Metadata listed {len(md.topics)} topics')
        del admin
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=60)
        proc, unclean = start(data_dir, port, nofile, extra)
        running.append(proc)
        out['uncleanRestartToListenSeconds'] = round(unclean, 3)
        out['uncleanRestartCpuSeconds'] = START_CPU[proc.pid]
        read_back(bootstrap, names[-1], per - 1)
        fds, rss = usage(proc.pid)
        out['rssAfterUncleanRestartMiB'] = round(rss / 1048576, 1)
        stop(proc)
        print(json.dumps(out))
    finally:
        # a failed run stops its broker before the directory goes
        for p in running:
            if p.poll() is None:
                p.kill()
                p.wait()
        shutil.rmtree(data_dir, ignore_errors=True)


if __name__ == '__main__':
    main()
