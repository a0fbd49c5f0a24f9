"""Clients pinned to old protocol versions against a kafkalite broker (issue 19): kafka-python 2.0.2
with api_version=(0, 9) ... (1, 0), and librdkafka (confluent-kafka) with api.version.request=false
and broker.version.fallback, which sends the old versions without asking ApiVersions first. Each
produces, consumes in a group, commits, and reads back its committed offset and the end offset;
then a modern confluent-kafka consumer (ApiVersions, Fetch v11, magic 2) reads what was written.
See broker_common.py for the request and answer shapes.

Steps:
  kp_cycle   {topic, group, apiVersion: [int], messages: [{key, value}]}
             -> {deliveries, messages, committed, end}
  rdk_cycle  {topic, group, fallback, messages: [{key, value}]} -> the same
  modern_read {topic, expect} -> {messages}
  kp_produce {topic, apiVersion, messages} -> {errors: [str|null]}: each send's error, if any
"""
from confluent_kafka import Consumer, Producer, TopicPartition as CTopicPartition
from kafka import KafkaConsumer, KafkaProducer, TopicPartition
from kafka.structs import OffsetAndMetadata

from broker_common import Deadline, message_out, run_steps
from kp_common import unhex


def kp_cycle(bootstrap, step):
    api_version = tuple(step['apiVersion'])
    topic = step['topic']
    producer = KafkaProducer(bootstrap_servers=bootstrap, api_version=api_version, acks='all', linger_ms=10)
    futures = [producer.send(topic, key=unhex(m['key']), value=unhex(m['value']), partition=0) for m in step['messages']]
    producer.flush(30)
    deliveries = []
    for f in futures:
        md = f.get(timeout=30)
        deliveries.append({'partition': md.partition, 'offset': md.offset, 'error': None})
    producer.close(10)

    consumer = KafkaConsumer(bootstrap_servers=bootstrap, api_version=api_version, group_id=step['group'],
                             enable_auto_commit=False, auto_offset_reset='earliest',
                             session_timeout_ms=10000, heartbeat_interval_ms=1000)
    consumer.subscribe([topic])
    got = []
    deadline = Deadline(30)
    while len(got) < len(step['messages']) and not deadline.passed():
        for records in consumer.poll(timeout_ms=500).values():
            for r in records:
                got.append(message_out(r.partition, r.offset, r.key, r.value, None, r.timestamp))
    tp = TopicPartition(topic, 0)
    consumer.commit({tp: OffsetAndMetadata(len(got), 'old-client')})
    committed = consumer.committed(tp)
    consumer.seek_to_end(tp)
    end = consumer.position(tp)
    consumer.close()
    return {'deliveries': deliveries, 'messages': got, 'committed': committed, 'end': end}


def kp_produce(bootstrap, step):
    producer = KafkaProducer(bootstrap_servers=bootstrap, api_version=tuple(step['apiVersion']), acks='all', retries=0)
    futures = [producer.send(step['topic'], key=unhex(m['key']), value=unhex(m['value']), partition=0) for m in step['messages']]
    producer.flush(30)
    errors = []
    for f in futures:
        try:
            f.get(timeout=30)
            errors.append(None)
        except Exception as e:  # the error the client raised is what the test checks
            errors.append('%s: %s' % (type(e).__name__, e))
    producer.close(10)
    return {'errors': errors}


def rdk_config(bootstrap, fallback, extra=None):
    config = {'bootstrap.servers': bootstrap, 'log_level': 3,
              'api.version.request': False, 'broker.version.fallback': fallback}
    config.update(extra or {})
    return config


def rdk_cycle(bootstrap, step):
    topic = step['topic']
    producer = Producer(rdk_config(bootstrap, step['fallback'], {'linger.ms': 10}))
    deliveries = [None] * len(step['messages'])

    def on_delivery(i):
        def cb(err, msg):
            deliveries[i] = {'partition': msg.partition(), 'offset': msg.offset(),
                             'error': None if err is None else str(err)}
        return cb

    for i, m in enumerate(step['messages']):
        producer.produce(topic, key=unhex(m['key']), value=unhex(m['value']), partition=0, on_delivery=on_delivery(i))
    producer.flush(30)

    consumer = Consumer(rdk_config(bootstrap, step['fallback'], {
        'group.id': step['group'], 'enable.auto.commit': False, 'auto.offset.reset': 'earliest'}))
    consumer.subscribe([topic])
    got = []
    errors = []
    deadline = Deadline(30)
    while len(got) < len(step['messages']) and not deadline.passed():
        msg = consumer.poll(0.5)
        if msg is None:
            continue
        if msg.error() is not None:
            errors.append(str(msg.error()))
            continue
        got.append(message_out(msg.partition(), msg.offset(), msg.key(), msg.value(), None, msg.timestamp()[1]))
    consumer.commit(offsets=[CTopicPartition(topic, 0, len(got))], asynchronous=False)
    committed = consumer.committed([CTopicPartition(topic, 0)], timeout=10)[0]
    low, high = consumer.get_watermark_offsets(CTopicPartition(topic, 0), timeout=10, cached=False)
    consumer.close()
    return {'deliveries': deliveries, 'messages': got, 'committed': committed.offset, 'end': high,
            'start': low, 'errors': errors}


def modern_read(bootstrap, step):
    consumer = Consumer({'bootstrap.servers': bootstrap, 'log_level': 3, 'group.id': 'modern-reader',
                         'enable.auto.commit': False, 'isolation.level': 'read_uncommitted'})
    consumer.assign([CTopicPartition(step['topic'], 0, 0)])
    got = []
    deadline = Deadline(30)
    while len(got) < step['expect'] and not deadline.passed():
        msg = consumer.poll(0.5)
        if msg is None or msg.error() is not None:
            continue
        got.append(message_out(msg.partition(), msg.offset(), msg.key(), msg.value(), msg.headers(), msg.timestamp()[1]))
    consumer.close()
    return {'messages': got}


if __name__ == '__main__':
    run_steps({'kp_cycle': kp_cycle, 'rdk_cycle': rdk_cycle, 'modern_read': modern_read, 'kp_produce': kp_produce})
