"""confluent-kafka-python (librdkafka) against a kafkalite broker: produce, consume by assign(),
AdminClient create/delete topics and describe configs. See broker_common.py for the request
and answer shapes.

Steps:
  produce   {topic, config, messages: [{partition?, key, value, headers}], knownTopic?}
            -> {deliveries: [{partition, offset, error}], undelivered}
            knownTopic: read the topic's metadata before producing. Messages produced while
            librdkafka does not yet know the topic wait unpartitioned; if flush() has begun when
            the metadata arrives, librdkafka moves them to the partition one at a time while its
            broker thread, no longer lingering, may send each as its own batch.
  consume   {topic, config, assign: [[partition, offset]], expect, timeoutS}
            -> {messages: [...], eof: [partition], errors: [str]}
            Stops once `expect` messages arrived and (unless untilEof is false) every assigned
            partition reported EOF, or when the time budget ran out: the test then sees the shortfall.
  create_topics   {topics: [{name, partitions, replicationFactor, configs}]} -> {errors: {name: str|null}}
  delete_topics   {topics: [name]} -> {errors: {name: str|null}}
  describe_configs {topic, timeoutS} -> {configs: {name: {value, source, isDefault, isReadOnly, isSensitive}}}
  list_topics     {} -> {topics: {name: [partition]}}
"""
import ctypes

import confluent_kafka
from confluent_kafka import Consumer, KafkaError, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, ConfigResource, NewTopic

from broker_common import Deadline, headers_in, message_out, run_steps
from kp_common import unhex


def client_config(bootstrap, extra):
    config = {'bootstrap.servers': bootstrap, 'log_level': 3}
    config.update(extra or {})
    return config


def produce(bootstrap, step):
    producer = Producer(client_config(bootstrap, step.get('config')))
    deliveries = [None] * len(step['messages'])
    if step.get('knownTopic'):
        producer.list_topics(step['topic'], timeout=10)

    def on_delivery(i):
        def cb(err, msg):
            deliveries[i] = {'partition': msg.partition(), 'offset': msg.offset(),
                             'error': None if err is None else str(err)}
        return cb

    for i, m in enumerate(step['messages']):
        kwargs = {'key': unhex(m['key']), 'value': unhex(m['value']), 'on_delivery': on_delivery(i)}
        if m.get('partition') is not None:
            kwargs['partition'] = m['partition']
        h = headers_in(m)
        if h is not None:
            kwargs['headers'] = h
        while True:
            try:
                producer.produce(step['topic'], **kwargs)
                break
            except BufferError:  # local queue full: let deliveries drain
                producer.poll(0.05)
    undelivered = producer.flush(30)
    return {'deliveries': deliveries, 'undelivered': undelivered}


def message_headers(msg):
    """msg.headers(), working around confluent-kafka-python bug #1191 (fixed in 1.8.2, Debian ships
    1.7): each None header value it returns was handed out without a reference to None, so after
    enough of them the interpreter aborts deallocating None. The missing references are added here."""
    headers = msg.headers()
    for _name, value in headers or ():
        if value is None:
            ctypes.pythonapi.Py_IncRef(ctypes.py_object(None))
    return headers


def consume(bootstrap, step):
    # No group: assign() with explicit offsets, nothing committed. librdkafka insists on a
    # group.id for a Consumer even then, so a dummy one is set.
    config = client_config(bootstrap, {'group.id': 'kafkalite-assign-only', 'enable.auto.commit': False,
                                       'enable.partition.eof': True, 'check.crcs': True})
    config.update(step.get('config') or {})
    consumer = Consumer(config)
    topic = step['topic']
    assigned = [TopicPartition(topic, p, o) for p, o in step['assign']]
    consumer.assign(assigned)
    messages, errors, eof = [], [], set()
    deadline = Deadline(step.get('timeoutS', 20))
    try:
        while not deadline.passed():
            if len(messages) >= step['expect'] and (not step.get('untilEof', True) or len(eof) == len(assigned)):
                break
            msg = consumer.poll(min(0.5, deadline.left()))
            if msg is None:
                continue
            err = msg.error()
            if err is not None:
                if err.code() == KafkaError._PARTITION_EOF:
                    eof.add(msg.partition())
                else:
                    errors.append(str(err))
                continue
            eof.discard(msg.partition())
            _ts_type, ts = msg.timestamp()
            messages.append(message_out(msg.partition(), msg.offset(), msg.key(), msg.value(), message_headers(msg), ts))
    finally:
        consumer.close()
    return {'messages': messages, 'eof': sorted(eof), 'errors': errors}


_admins = {}


def admin(bootstrap):
    # One client for the whole run: a destroyed AdminClient fails its pending futures (_DESTROY).
    if bootstrap not in _admins:
        _admins[bootstrap] = AdminClient(client_config(bootstrap, {}))
    return _admins[bootstrap]


def future_errors(futures):
    out = {}
    for name, f in futures.items():
        try:
            f.result(30)
            out[name] = None
        except Exception as e:  # KafkaException carrying the broker's error
            out[name] = str(e)
    return out


def create_topics(bootstrap, step):
    topics = [NewTopic(t['name'], num_partitions=t['partitions'], replication_factor=t.get('replicationFactor', 1),
                       config=t.get('configs') or {}) for t in step['topics']]
    return {'errors': future_errors(admin(bootstrap).create_topics(topics, operation_timeout=10))}


def delete_topics(bootstrap, step):
    return {'errors': future_errors(admin(bootstrap).delete_topics(step['topics'], operation_timeout=10))}


def describe_configs(bootstrap, step):
    resource = ConfigResource(ConfigResource.Type.TOPIC, step['topic'])
    futures = admin(bootstrap).describe_configs([resource])
    entries = futures[resource].result(step.get('timeoutS', 30))
    return {'configs': {name: {'value': e.value, 'source': int(e.source), 'isDefault': e.is_default,
                               'isReadOnly': e.is_read_only, 'isSensitive': e.is_sensitive}
                        for name, e in entries.items()}}


def list_topics(bootstrap, step):
    md = admin(bootstrap).list_topics(timeout=10)
    return {'topics': {name: sorted(t.partitions.keys()) for name, t in md.topics.items()},
            'librdkafka': confluent_kafka.libversion()[0], 'client': confluent_kafka.version()[0]}


if __name__ == '__main__':
    run_steps({'produce': produce, 'consume': consume, 'create_topics': create_topics,
               'delete_topics': delete_topics, 'describe_configs': describe_configs, 'list_topics': list_topics})
