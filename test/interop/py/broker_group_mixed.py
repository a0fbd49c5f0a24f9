"""Python members of a mixed-client consumer group (test/interop/broker/groups-mixed.test.ts):
one confluent-kafka-python (librdkafka) consumer and one kafka-python consumer, each with its
client's default assignors (librdkafka "range,roundrobin", kafka-python [range, roundrobin]), so
the group settles on the protocol every member shares. Each commits every message synchronously
after reading it. They run until `stopFile` exists (the test creates it once the group committed
everything), since the test, not this process, knows when the whole group is done.

Step: members {topic, group, clients: ["confluent" | "kafka-python"], stopFile, timeoutS}
      -> {consumed: [[client, partition, offset, value]], errors: [str]}
"""
import os
import threading
import time

from broker_common import Deadline, run_steps


def confluent_member(bootstrap, step, stopped, record, errors):
    from confluent_kafka import Consumer, TopicPartition
    c = Consumer({'bootstrap.servers': bootstrap, 'group.id': step['group'], 'log_level': 3,
                  'session.timeout.ms': 10000, 'heartbeat.interval.ms': 300,
                  'auto.offset.reset': 'earliest', 'enable.auto.commit': False,
                  'client.id': 'mixed-confluent'})
    c.subscribe([step['topic']])
    try:
        while not stopped():
            m = c.poll(0.1)
            if m is None:
                continue
            if m.error():
                errors.append('confluent: %s' % m.error())
                continue
            record('confluent', m.partition(), m.offset(), m.value())
            c.commit(offsets=[TopicPartition(m.topic(), m.partition(), m.offset() + 1)], asynchronous=False)
    finally:
        c.close()


def kafka_python_member(bootstrap, step, stopped, record, errors):
    from kafka import KafkaConsumer, TopicPartition
    from kafka.structs import OffsetAndMetadata
    c = KafkaConsumer(step['topic'], bootstrap_servers=bootstrap, group_id=step['group'],
                      client_id='mixed-kafka-python', session_timeout_ms=10000, heartbeat_interval_ms=300,
                      auto_offset_reset='earliest', enable_auto_commit=False)
    try:
        while not stopped():
            for tp, records in c.poll(timeout_ms=100).items():
                for r in records:
                    record('kafka-python', r.partition, r.offset, r.value)
                    c.commit({TopicPartition(tp.topic, tp.partition): OffsetAndMetadata(r.offset + 1, '')})
    finally:
        c.close()


MEMBERS = {'confluent': confluent_member, 'kafka-python': kafka_python_member}


def op_members(bootstrap, step):
    consumed, errors, lock = [], [], threading.Lock()
    deadline = Deadline(step['timeoutS'])

    def stopped():
        return os.path.exists(step['stopFile']) or deadline.passed()

    def record(client, partition, offset, value):
        with lock:
            consumed.append([client, partition, offset, value.decode('utf-8')])

    def run(client):
        try:
            MEMBERS[client](bootstrap, step, stopped, record, errors)
        except Exception as e:  # reported to the test
            errors.append('%s: %s: %s' % (client, type(e).__name__, e))

    threads = [threading.Thread(target=run, args=(c,), daemon=True) for c in step['clients']]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if deadline.passed() and not os.path.exists(step['stopFile']):
        errors.append('stopped by the %d s deadline, not by the test' % step['timeoutS'])
    return {'consumed': consumed, 'errors': errors}


if __name__ == '__main__':
    run_steps({'members': op_members})
