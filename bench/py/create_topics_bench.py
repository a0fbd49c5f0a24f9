"""CreateTopics alone through confluent-kafka's AdminClient (issue 21), with the broker's CPU time.

usage: /usr/bin/python3 bench/py/create_topics_bench.py <topics> [prof]

Starts `node bin/kafkalite.js serve` on a fresh data directory under KAFKALITE_BENCH_DIR (default
the system's temp dir), creates <topics> topics of 5 partitions, 100 per CreateTopics request
(every topic error is fatal), and prints the rate with the broker's CPU seconds over the creation
(/proc/<pid>/stat utime+stime), per partition, and the load average: on a shared machine the CPU
per partition is the steadier figure. `prof` runs the broker under `node --cpu-prof` (profile in
the current directory, written at the SIGTERM that ends the run). KAFKALITE_ROOT: the checkout
to run (default this one).
"""
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

from confluent_kafka.admin import AdminClient, NewTopic

ROOT = os.environ.get('KAFKALITE_ROOT') or os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def main():
    topics = int(sys.argv[1])
    prof = len(sys.argv) > 2 and sys.argv[2] == 'prof'
    data_dir = tempfile.mkdtemp(dir=os.environ.get('KAFKALITE_BENCH_DIR'), prefix='kafkalite-create-topics-')
    s = socket.socket()
    s.bind(('127.0.0.1', 0))
    port = s.getsockname()[1]
    s.close()
    cmd = ['node'] + (['--cpu-prof'] if prof else []) + [os.path.join(ROOT, 'bin', 'kafkalite.js'), 'serve', '--port', str(port), '--data-dir', data_dir, '--log-level', 'warn']
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL)
    try:
        while True:
            if proc.poll() is not None:
                raise SystemExit(f'broker exited with {proc.returncode}')
            try:
                socket.create_connection(('127.0.0.1', port), timeout=0.2).close()
                break
            except OSError:
                time.sleep(0.05)

        def cpu():
            fields = open(f'/proc/{proc.pid}/stat').read().rsplit(')', 1)[1].split()
            return (int(fields[11]) + int(fields[12])) / os.sysconf('SC_CLK_TCK')

        admin = AdminClient({'bootstrap.servers': f'127.0.0.1:{port}'})
        admin.list_topics(timeout=30)
        names = [f'topic-{i}' for i in range(topics)]
        cpu0 = cpu()
        began = time.monotonic()
        for i in range(0, topics, 100):
            futures = admin.create_topics([NewTopic(n, 5, 1) for n in names[i:i + 100]], operation_timeout=60, request_timeout=120)
            for f in futures.values():
                f.result()
        took = time.monotonic() - began
        used = cpu() - cpu0
        partitions = topics * 5
        print(f'{partitions} partitions in {took:.2f} s = {partitions / took:.0f}/s; broker CPU {used:.2f} s = '
              f'{used / partitions * 1000:.3f} ms per partition; load average {os.getloadavg()[0]:.1f}')
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=600)
        shutil.rmtree(data_dir, ignore_errors=True)


if __name__ == '__main__':
    main()
