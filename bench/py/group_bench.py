"""Consumer-group load of bench/groups.ts, the same client (confluent-kafka-python / librdkafka)
against any broker: kafkalite or librdkafka's mock cluster.

stdin: {"bootstrap", "topic", "group", "partitions", "members", "commitSeconds", "createTopic"}
  1. createTopic true: creates `topic` with `partitions` partitions (CreateTopics, errors are
     fatal); false: the broker's harness created it (the mock serves no CreateTopics). Either way
     the topic's Metadata must show exactly `partitions` partitions, else this exits non-zero;
  2. rebalance: `members` consumers (threads) subscribe at once to `topic` in the fresh group
     `group`; the time from the first subscribe until the on_assign callback that completes the
     generation where every member holds an assignment and together they hold every partition once;
  3. commits: each member commits its assigned partitions' offsets synchronously in a loop for
     `commitSeconds` (one OffsetCommit request each, nothing else in between but a non-blocking
     poll); commits/s over all members. Any commit error, any assignment change during the phase,
     or committed offsets (OffsetFetch at the end) that differ from the last commit exit non-zero.
stdout: {"partitions" (from Metadata), "rebalanceSeconds", "assignments" (most on_assign calls of one
         member until the full assignment: 1 = a single generation), "commits", "perMember",
         "commitSeconds", "commitsPerSec", "librdkafka"}
"""
import json
import os
import sys
import threading
import time

from confluent_kafka import Consumer, TopicPartition, libversion
from confluent_kafka.admin import AdminClient, NewTopic


def fail(msg):
    sys.stderr.write(f'group_bench.py: {msg}\n')
    sys.stderr.flush()
    os._exit(1)  # not sys.exit: member threads and unclosed consumers would hold the exit up


def main():
    req = json.loads(sys.stdin.read())
    topic, parts, n = req['topic'], req['partitions'], req['members']
    admin = AdminClient({'bootstrap.servers': req['bootstrap'], 'log_level': 0})
    if req['createTopic']:
        for f in admin.create_topics([NewTopic(topic, parts, 1)], operation_timeout=10).values():
            f.result(15)
    md = admin.list_topics(topic, timeout=15).topics[topic]
    if md.error is not None or len(md.partitions) != parts:
        fail(f'topic {topic} has {len(md.partitions)} partitions (error {md.error}), expected {parts}')
    if n > parts:
        fail(f'{n} members for {parts} partitions: some members would hold nothing')

    consumers = [Consumer({'bootstrap.servers': req['bootstrap'], 'group.id': req['group'], 'log_level': 0,
                           'session.timeout.ms': 30000, 'heartbeat.interval.ms': 1000,
                           'partition.assignment.strategy': 'range', 'enable.auto.commit': False,
                           'client.id': 'bench-member-%d' % i}) for i in range(n)]
    # assignment per member and when it arrived, kept by the rebalance callbacks (which run inside poll)
    assigned = [[] for _ in range(n)]
    assigned_at = [0.0] * n
    stop = threading.Event()
    committing = threading.Event()
    commits = [0] * n
    errors = []

    assignments = [0] * n  # on_assign calls per member: more than 1 means the group went through another generation

    def on_assign(i):
        def cb(_consumer, partitions):
            assigned[i] = [(tp.topic, tp.partition) for tp in partitions]
            assigned_at[i] = time.perf_counter()
            assignments[i] += 1
        return cb

    def on_revoke(i):
        def cb(_consumer, _partitions):
            assigned[i] = []
        return cb

    def member_loop(i):
        c = consumers[i]
        try:
            while not stop.is_set():
                if not committing.is_set():
                    c.poll(0.02)
                    continue
                # poll(0): serves a rebalance callback if one came, without the 20 ms wait that would
                # otherwise bound every member to < 50 commits/s whatever the broker does
                c.poll(0)
                offsets = [TopicPartition(t, p, commits[i] + 1) for t, p in assigned[i]]
                c.commit(offsets=offsets, asynchronous=False)  # raises KafkaException on any error
                commits[i] += 1
        except Exception as e:  # noqa: BLE001 -- reported and fatal below, never swallowed
            errors.append(f'member {i}: {e!r}')
            stop.set()

    t0 = time.perf_counter()
    for i, c in enumerate(consumers):
        c.subscribe([topic], on_assign=on_assign(i), on_revoke=on_revoke(i))
    threads = [threading.Thread(target=member_loop, args=(i,), daemon=True) for i in range(n)]
    for t in threads:
        t.start()
    deadline = time.time() + 120
    while True:
        snapshot = [list(a) for a in assigned]
        got = [tp for a in snapshot for tp in a]
        if all(snapshot) and len(got) == parts and len(set(got)) == parts:
            break
        if errors:
            fail('; '.join(errors))
        if time.time() > deadline:
            fail(f'no full assignment within 120 s: {sum(1 for a in snapshot if a)}/{n} members, {len(set(got))}/{parts} partitions')
        time.sleep(0.005)
    rebalance = max(assigned_at) - t0

    c0 = time.perf_counter()
    committing.set()
    stop.wait(req['commitSeconds'])
    committing.clear()
    elapsed = time.perf_counter() - c0
    stop.set()
    for t in threads:
        t.join(30)
    if errors:
        fail('commit phase: ' + '; '.join(errors))
    if [sorted(a) for a in assigned] != [sorted(a) for a in snapshot]:
        fail('the group rebalanced during the commit phase')
    # the broker stored what was committed: each member's partitions read back at its last offset
    for i, c in enumerate(consumers):
        if commits[i] == 0:
            fail(f'member {i} committed nothing')
        committed = c.committed([TopicPartition(t, p) for t, p in snapshot[i]], timeout=15)
        wrong = [(tp.partition, tp.offset) for tp in committed if tp.error or tp.offset != commits[i]]
        if wrong:
            fail(f'member {i}: committed offsets read back {wrong[:5]}, expected {commits[i]}')
    for c in consumers:
        c.close()
    total = sum(commits)
    print(json.dumps({'partitions': len(md.partitions), 'rebalanceSeconds': rebalance,
                      'assignments': max(assignments), 'commits': total,
                      'perMember': commits, 'commitSeconds': elapsed, 'commitsPerSec': total / elapsed,
                      'librdkafka': libversion()[0]}))


main()
