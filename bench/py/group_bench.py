"""Consumer-group load of bench/groups.ts, the same client (confluent-kafka-python / librdkafka)
against any broker: kafkalite or librdkafka's mock cluster.

stdin: {"bootstrap", "topic", "partitions", "members", "commitSeconds"}
  1. creates `topic` with `partitions` partitions (CreateTopics);
  2. rebalance: `members` consumers (threads) subscribe at once; the time from the first
     subscribe until every member holds an assignment and together they hold all partitions;
  3. commits: each member commits its assigned partitions' offsets synchronously in a loop for
     `commitSeconds`; commits/s over all members (one commit = one OffsetCommit request).
stdout: {"partitions" (as created), "rebalanceSeconds", "commits", "commitSeconds", "commitsPerSec", "librdkafka"}
"""
import json
import sys
import threading
import time

from confluent_kafka import Consumer, TopicPartition, libversion
from confluent_kafka.admin import AdminClient, NewTopic


def main():
    req = json.loads(sys.stdin.read())
    topic, parts, n = req['topic'], req['partitions'], req['members']
    admin = AdminClient({'bootstrap.servers': req['bootstrap'], 'log_level': 0})
    try:
        for f in admin.create_topics([NewTopic(topic, parts, 1)], operation_timeout=10).values():
            f.result(15)
    except Exception:
        # librdkafka 2.0.2's mock does not answer CreateTopics: it auto-creates the topic on
        # Metadata with its default partition count, reported in the output
        pass
    md = admin.list_topics(topic, timeout=15)
    parts = len(md.topics[topic].partitions)
    consumers = [Consumer({'bootstrap.servers': req['bootstrap'], 'group.id': 'bench-group', 'log_level': 0,
                           'session.timeout.ms': 30000, 'heartbeat.interval.ms': 1000,
                           'partition.assignment.strategy': 'range', 'enable.auto.commit': False,
                           'client.id': 'bench-member-%d' % i}) for i in range(n)]
    assigned = [[] for _ in range(n)]
    stop = threading.Event()
    start_commits = threading.Event()
    commits = [0] * n

    def poll_loop(i):
        c = consumers[i]
        while not stop.is_set():
            c.poll(0.02)
            assigned[i] = c.assignment()
            if start_commits.is_set() and assigned[i]:
                c.commit(offsets=[TopicPartition(tp.topic, tp.partition, commits[i] + 1) for tp in assigned[i]], asynchronous=False)
                commits[i] += 1

    t0 = time.perf_counter()
    for c in consumers:
        c.subscribe([topic])
    threads = [threading.Thread(target=poll_loop, args=(i,), daemon=True) for i in range(n)]
    for t in threads:
        t.start()
    deadline = time.time() + 120
    while True:
        got = [tp.partition for a in assigned for tp in a]
        if sum(1 for a in assigned if a) == min(n, parts) and len(got) == parts and len(set(got)) == parts:
            break
        if time.time() > deadline:
            raise RuntimeError('no full assignment within 120 s')
        time.sleep(0.005)
    rebalance = time.perf_counter() - t0
    c0 = time.perf_counter()
    start_commits.set()
    time.sleep(req['commitSeconds'])
    start_commits.clear()
    elapsed = time.perf_counter() - c0
    total = sum(commits)
    stop.set()
    for t in threads:
        t.join(30)
    for c in consumers:
        c.close()
    print(json.dumps({'partitions': parts, 'rebalanceSeconds': rebalance, 'commits': total, 'commitSeconds': elapsed,
                      'commitsPerSec': total / elapsed, 'librdkafka': libversion()[0]}))


main()
