"""Group join latency for bench/join.ts: one client (confluent-kafka-python / librdkafka, classic
protocol, its default timeouts) against any broker, kafkalite or librdkafka's mock cluster.

stdin: {"bootstrap", "topic", "partitions", "groupPrefix", "memberCounts": [1, 2, 10], "createTopic"}
  1. createTopic true: creates `topic` (CreateTopics); false: the harness created it (the mock
     serves no CreateTopics). Its Metadata must show `partitions` partitions, else exit non-zero.
     One record is produced to every partition (acks=all), so every partition has a first message.
  2. first message: one consumer subscribes in a fresh group (auto.offset.reset=earliest) and polls;
     the time from the subscribe() call to the first message poll() returns, and to its assignment.
     Then the same in a group whose offsets (0) were committed beforehand: librdkafka resets a
     partition without a committed offset through its offset-query timer (a client-side wait
     before ListOffsets, on every broker), which a committed offset skips.
  3. join: for each n in memberCounts, n consumers (threads) subscribe at once in a fresh group; the
     time from the first subscribe() until every member holds an assignment and together they hold
     every partition once (the on_assign that completes it).
  4. second member: one consumer subscribes and gets every partition; then a second one subscribes;
     the time from its subscribe() until both hold assignments that together cover every partition
     once (the first member learns of the rebalance at its next heartbeat: heartbeat.interval.ms).
stdout: {"firstMessageMs", "firstAssignMs", "firstMessageCommittedMs", "joinMs": {"<n>": ms}, "generations": {"<n>": most
         on_assign calls of one member}, "secondMemberMs", "librdkafka"}
Any error callback, produce failure or missing assignment within 120 s exits non-zero.
"""
import json
import os
import sys
import threading
import time

from confluent_kafka import Consumer, Producer, TopicPartition, libversion
from confluent_kafka.admin import AdminClient, NewTopic

LIMIT_S = 120


def fail(msg):
    sys.stderr.write(f'join_bench.py: {msg}\n')
    sys.stderr.flush()
    os._exit(1)  # member threads and unclosed consumers would hold a normal exit up


def consumer(bootstrap, group, name):
    return Consumer({'bootstrap.servers': bootstrap, 'group.id': group, 'client.id': name, 'log_level': 0,
                     'auto.offset.reset': 'earliest', 'enable.auto.commit': False,
                     'error_cb': lambda e: fail(f'{name}: {e}')})


class Member:
    """A consumer polling in its own thread; on_assign keeps its partitions and when they came."""

    def __init__(self, bootstrap, group, name, topic):
        self.c = consumer(bootstrap, group, name)
        self.topic = topic
        self.assigned = []
        self.assigned_at = 0.0
        self.assignments = 0
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self.loop, daemon=True)

    def on_assign(self, _c, partitions):
        self.assigned = [p.partition for p in partitions]
        self.assigned_at = time.perf_counter()
        self.assignments += 1

    def on_revoke(self, _c, _partitions):
        self.assigned = []

    def start(self):
        self.c.subscribe([self.topic], on_assign=self.on_assign, on_revoke=self.on_revoke)
        self.thread.start()

    def loop(self):
        while not self.stop.is_set():
            self.c.poll(0.005)

    def close(self):
        self.stop.set()
        self.thread.join(10)
        self.c.close()


def wait_split(members, parts, what):
    deadline = time.time() + LIMIT_S
    while True:
        snap = [list(m.assigned) for m in members]
        got = [p for a in snap for p in a]
        if all(snap) and len(got) == parts and len(set(got)) == parts:
            return max(m.assigned_at for m in members)
        if time.time() > deadline:
            fail(f'{what}: no full assignment within {LIMIT_S} s ({sum(1 for a in snap if a)}/{len(members)} members, {len(set(got))}/{parts} partitions)')
        time.sleep(0.001)


def main():
    req = json.loads(sys.stdin.read())
    bootstrap, topic, parts = req['bootstrap'], req['topic'], req['partitions']
    admin = AdminClient({'bootstrap.servers': bootstrap, 'log_level': 0})
    if req['createTopic']:
        for f in admin.create_topics([NewTopic(topic, parts, 1)], operation_timeout=10).values():
            f.result(15)
    md = admin.list_topics(topic, timeout=15).topics[topic]
    if md.error is not None or len(md.partitions) != parts:
        fail(f'topic {topic} has {len(md.partitions)} partitions (error {md.error}), expected {parts}')
    producer = Producer({'bootstrap.servers': bootstrap, 'acks': 'all', 'log_level': 0})
    delivered = []
    for p in range(parts):
        producer.produce(topic, value=b'first-%d' % p, partition=p, on_delivery=lambda err, _m: delivered.append(err))
    producer.flush(30)
    if len(delivered) != parts or any(e is not None for e in delivered):
        fail(f'produce: {delivered}')
    out = {'librdkafka': libversion()[0], 'joinMs': {}, 'generations': {}}

    # first message after subscribe, one consumer, fresh group
    c = consumer(bootstrap, f"{req['groupPrefix']}-first", 'bench-first')
    first_assign = []
    t0 = time.perf_counter()
    c.subscribe([topic], on_assign=lambda _c, ps: first_assign.append(time.perf_counter()))
    deadline = time.time() + LIMIT_S
    while True:
        m = c.poll(0.001)
        if m is not None:
            if m.error() is not None:
                fail(f'first message: {m.error()}')
            break
        if time.time() > deadline:
            fail('no first message')
    out['firstMessageMs'] = (time.perf_counter() - t0) * 1000
    out['firstAssignMs'] = (first_assign[0] - t0) * 1000 if first_assign else None
    c.close()

    # the same with committed offsets (0 on every partition, committed beforehand without membership):
    # no offset reset, so no client-side offset-query timer between the assignment and the first Fetch
    g = f"{req['groupPrefix']}-committed"
    committer = consumer(bootstrap, g, 'bench-committer')
    committer.commit(offsets=[TopicPartition(topic, p, 0) for p in range(parts)], asynchronous=False)
    committer.close()
    c = consumer(bootstrap, g, 'bench-first-committed')
    t0 = time.perf_counter()
    c.subscribe([topic])
    deadline = time.time() + LIMIT_S
    while True:
        m = c.poll(0.001)
        if m is not None:
            if m.error() is not None:
                fail(f'first message (committed): {m.error()}')
            break
        if time.time() > deadline:
            fail('no first message (committed)')
    out['firstMessageCommittedMs'] = (time.perf_counter() - t0) * 1000
    c.close()

    # n members joining a fresh group at once
    for n in req['memberCounts']:
        members = [Member(bootstrap, f"{req['groupPrefix']}-join{n}", f'bench-join{n}-{i}', topic) for i in range(n)]
        t0 = time.perf_counter()
        for m in members:
            m.start()
        done = wait_split(members, parts, f'{n} members')
        out['joinMs'][str(n)] = (done - t0) * 1000
        out['generations'][str(n)] = max(m.assignments for m in members)
        for m in members:
            m.close()

    # a second member joining a stable group of one
    group = f"{req['groupPrefix']}-second"
    one = Member(bootstrap, group, 'bench-second-0', topic)
    one.start()
    wait_split([one], parts, 'the first member')
    two = Member(bootstrap, group, 'bench-second-1', topic)
    t0 = time.perf_counter()
    two.start()
    done = wait_split([one, two], parts, 'the second member')
    out['secondMemberMs'] = (done - t0) * 1000
    two.close()
    one.close()
    print(json.dumps(out), flush=True)
    os._exit(0)


main()
