"""Consumer groups of confluent-kafka-python (librdkafka) or kafka-python against a kafkalite
broker. See broker_common.py for the request and answer shapes. Each consumer runs in its own
thread, commits each message synchronously after reading it (so a partition that moves to
another member resumes exactly after the last message read), and records what it read and its
latest assignment.

Steps (every step names "client": "confluent" | "kafka-python"):
  produce  {topic, from, count, partitions} -> {}   values "msg-<i>" to partition i % partitions
  group    {topic, group, members, expect, leaveAfter, produceAfterLeave, partitions, timeoutS}
           Starts `members` consumers; once they split all partitions and `expect` messages are
           in, the last one closes (LeaveGroup); the test's extra messages are produced and the
           rest consume until `expect + produceAfterLeave.count` messages arrived.
           -> {consumed: [[member, partition, offset, value]], splitAll: {member: [p]},
               splitRest: {member: [p]}, errors: [str]}
  resume   {topic, group, expect, timeoutS, settleS} -> {consumed: [...], errors: [...]}
"""
import threading
import time

from broker_common import Deadline, run_steps


class Member(threading.Thread):
    def __init__(self, client, bootstrap, topic, group, index, consumed, lock):
        threading.Thread.__init__(self, daemon=True)
        self.client, self.bootstrap, self.topic, self.group = client, bootstrap, topic, group
        self.index, self.consumed, self.lock = index, consumed, lock
        self.assignment = []
        self.stop = threading.Event()
        self.errors = []
        self.ready = threading.Event()

    def run(self):
        try:
            if self.client == 'confluent':
                self.run_confluent()
            else:
                self.run_kafka_python()
        except Exception as e:  # reported to the test
            self.errors.append('member %d: %s: %s' % (self.index, type(e).__name__, e))
        finally:
            self.ready.set()

    def record(self, partition, offset, value):
        with self.lock:
            self.consumed.append([self.index, partition, offset, value.decode('utf-8')])

    def run_confluent(self):
        from confluent_kafka import Consumer, TopicPartition
        c = Consumer({'bootstrap.servers': self.bootstrap, 'group.id': self.group, 'log_level': 3,
                      'session.timeout.ms': 6000, 'heartbeat.interval.ms': 300,
                      'auto.offset.reset': 'earliest', 'enable.auto.commit': False,
                      'client.id': 'rdkafka-member-%d' % self.index})
        c.subscribe([self.topic])
        try:
            while not self.stop.is_set():
                m = c.poll(0.1)
                self.assignment = sorted(tp.partition for tp in c.assignment())
                if m is None:
                    continue
                if m.error():
                    self.errors.append('member %d: %s' % (self.index, m.error()))
                    continue
                self.record(m.partition(), m.offset(), m.value())
                c.commit(offsets=[TopicPartition(m.topic(), m.partition(), m.offset() + 1)], asynchronous=False)
        finally:
            c.close()

    def run_kafka_python(self):
        from kafka import KafkaConsumer, TopicPartition
        from kafka.structs import OffsetAndMetadata
        c = KafkaConsumer(self.topic, bootstrap_servers=self.bootstrap, group_id=self.group,
                          client_id='kafka-python-member-%d' % self.index,
                          session_timeout_ms=6000, heartbeat_interval_ms=300,
                          auto_offset_reset='earliest', enable_auto_commit=False)
        try:
            while not self.stop.is_set():
                batches = c.poll(timeout_ms=100)
                self.assignment = sorted(tp.partition for tp in c.assignment())
                for tp, records in batches.items():
                    for r in records:
                        self.record(r.partition, r.offset, r.value)
                        c.commit({TopicPartition(tp.topic, tp.partition): OffsetAndMetadata(r.offset + 1, '')})
        finally:
            c.close()


def produce(client, bootstrap, topic, first, count, partitions):
    if client == 'confluent':
        from confluent_kafka import Producer
        p = Producer({'bootstrap.servers': bootstrap, 'log_level': 3})
        for i in range(first, first + count):
            p.produce(topic, value=('msg-%d' % i).encode(), key=('k%d' % i).encode(), partition=i % partitions)
        left = p.flush(30)
        if left:
            raise RuntimeError('%d messages undelivered' % left)
    else:
        from kafka import KafkaProducer
        p = KafkaProducer(bootstrap_servers=bootstrap)
        for i in range(first, first + count):
            p.send(topic, value=('msg-%d' % i).encode(), key=('k%d' % i).encode(), partition=i % partitions)
        p.flush(30)
        p.close()


def split(members, partitions):
    got = [p for m in members for p in m.assignment]
    return len(got) == partitions and len(set(got)) == partitions and all(m.assignment for m in members)


def wait(deadline, cond):
    while not cond():
        if deadline.passed():
            return False
        time.sleep(0.05)
    return True


def op_produce(bootstrap, step):
    produce(step['client'], bootstrap, step['topic'], step['from'], step['count'], step['partitions'])
    return {}


def op_group(bootstrap, step):
    consumed, lock, errors = [], threading.Lock(), []
    deadline = Deadline(step['timeoutS'])
    members = [Member(step['client'], bootstrap, step['topic'], step['group'], i, consumed, lock) for i in range(step['members'])]
    for m in members:
        m.start()
    parts = step['partitions']
    if not wait(deadline, lambda: split(members, parts) and len(consumed) >= step['expect']):
        errors.append('no split of all partitions with %d messages (assignments %s, consumed %d)'
                      % (step['expect'], [m.assignment for m in members], len(consumed)))
    split_all = {m.index: m.assignment for m in members}
    leaver, rest = members[-1], members[:-1]
    leaver.stop.set()
    leaver.join(30)
    more = step['produceAfterLeave']
    produce(step['client'], bootstrap, step['topic'], more['from'], more['count'], parts)
    total = step['expect'] + more['count']
    if not wait(deadline, lambda: split(rest, parts) and len(consumed) >= total):
        errors.append('no split among the remaining members with %d messages (assignments %s, consumed %d)'
                      % (total, [m.assignment for m in rest], len(consumed)))
    time.sleep(step.get('settleS', 0.5))
    split_rest = {m.index: m.assignment for m in rest}
    for m in rest:
        m.stop.set()
    for m in rest:
        m.join(30)
    for m in members:
        errors.extend(m.errors)
    return {'consumed': consumed, 'splitAll': split_all, 'splitRest': split_rest, 'errors': errors}


def op_resume(bootstrap, step):
    consumed, lock, errors = [], threading.Lock(), []
    deadline = Deadline(step['timeoutS'])
    m = Member(step['client'], bootstrap, step['topic'], step['group'], 0, consumed, lock)
    m.start()
    if not wait(deadline, lambda: len(consumed) >= step['expect']):
        errors.append('only %d of %d messages after the restart' % (len(consumed), step['expect']))
    time.sleep(step.get('settleS', 1.0))
    m.stop.set()
    m.join(30)
    errors.extend(m.errors)
    return {'consumed': consumed, 'errors': errors}


if __name__ == '__main__':
    run_steps({'produce': op_produce, 'group': op_group, 'resume': op_resume})
