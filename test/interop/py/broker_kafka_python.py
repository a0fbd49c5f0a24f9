"""kafka-python 2.0.2 (Debian) against a kafkalite broker: KafkaProducer, a KafkaConsumer with no
group (group_id=None) reading assign()ed partitions, KafkaAdminClient create/delete topics and
describe configs. See broker_common.py for the request and answer shapes.

Steps:
  produce   {topic, config, messages: [{partition?, key, value, headers}]}
            -> {deliveries: [{partition, offset, error}]}  (offsets are -1 at acks=0)
  consume   {topic, config, assign: [[partition, offset]], expect, timeoutS}
            -> {messages: [...], positions: {partition: offset}, errors: [str]}
  create_topics   {topics: [{name, partitions, replicationFactor, configs}]} -> {errors: {name: str|null}}
  delete_topics   {topics: [name]} -> {errors: {name: str|null}}
  describe_configs {topic} -> {configs: {name: {value, isDefault, isReadOnly, isSensitive}}}
  list_topics     {} -> {topics: {name: [partition]}}
"""
import kafka
from kafka import KafkaConsumer, KafkaProducer, TopicPartition
from kafka.admin import ConfigResource, ConfigResourceType, KafkaAdminClient, NewTopic
from kafka.errors import KafkaError, for_code

from broker_common import Deadline, headers_in, message_out, run_steps
from kp_common import unhex


def produce(bootstrap, step):
    config = {'bootstrap_servers': bootstrap}
    config.update(step.get('config') or {})
    producer = KafkaProducer(**config)
    try:
        futures = []
        for m in step['messages']:
            futures.append(producer.send(step['topic'], key=unhex(m['key']), value=unhex(m['value']),
                                         headers=headers_in(m) or [], partition=m.get('partition')))
        producer.flush(30)
        deliveries = []
        for f in futures:
            try:
                md = f.get(30)
                deliveries.append({'partition': md.partition, 'offset': md.offset, 'error': None})
            except Exception as e:  # the broker's error, as the client saw it
                deliveries.append({'partition': None, 'offset': None, 'error': '%s: %s' % (type(e).__name__, e)})
    finally:
        producer.close(10)
    return {'deliveries': deliveries}


def consume(bootstrap, step):
    # No group: nothing is committed and no coordinator is asked; positions come from seek().
    config = {'bootstrap_servers': bootstrap, 'group_id': None, 'enable_auto_commit': False, 'check_crcs': True}
    config.update(step.get('config') or {})
    consumer = KafkaConsumer(**config)
    topic = step['topic']
    tps = [TopicPartition(topic, p) for p, _ in step['assign']]
    consumer.assign(tps)
    for tp, (_, offset) in zip(tps, step['assign']):
        consumer.seek(tp, offset)
    messages, errors = [], []
    deadline = Deadline(step.get('timeoutS', 20))
    try:
        # kafka-python has no end-of-partition event: read until `expect` messages arrived, then
        # one short poll more so that anything beyond them would show up too
        extra_poll = True
        while not deadline.passed():
            done = len(messages) >= step['expect']
            if done and not extra_poll:
                break
            try:
                batches = consumer.poll(timeout_ms=200 if done else int(min(500, deadline.left() * 1000)) or 1)
            except Exception as e:
                errors.append('%s: %s' % (type(e).__name__, e))
                break
            if done:
                extra_poll = False
            for tp in sorted(batches, key=lambda t: t.partition):
                for r in batches[tp]:
                    messages.append(message_out(r.partition, r.offset, r.key, r.value, r.headers, r.timestamp))
        positions = {str(tp.partition): consumer.position(tp) for tp in tps}
    finally:
        consumer.close()
    return {'messages': messages, 'positions': positions, 'errors': errors}


_admins = {}


def admin(bootstrap):
    if bootstrap not in _admins:
        _admins[bootstrap] = KafkaAdminClient(bootstrap_servers=bootstrap)
    return _admins[bootstrap]


def error_name(code, message=None):
    if code == 0:
        return None
    return '%s%s' % (for_code(code).__name__, '' if not message else ': ' + message)


def create_topics(bootstrap, step):
    topics = [NewTopic(t['name'], t['partitions'], t.get('replicationFactor', 1),
                       topic_configs=t.get('configs') or {}) for t in step['topics']]
    try:
        response = admin(bootstrap).create_topics(topics, timeout_ms=10000)
    except KafkaError as e:
        # KafkaAdminClient raises the first topic error instead of returning it; the steps name
        # one topic each when they expect an error, so it belongs to every topic of the step
        return {'errors': {t['name']: type(e).__name__ for t in step['topics']}}
    # CreateTopicsResponse v1+: topic_errors = [(topic, error_code, error_message)]
    return {'errors': {e[0]: error_name(e[1], e[2] if len(e) > 2 else None) for e in response.topic_errors}}


def delete_topics(bootstrap, step):
    try:
        response = admin(bootstrap).delete_topics(step['topics'], timeout_ms=10000)
    except KafkaError as e:  # as in create_topics
        return {'errors': {name: type(e).__name__ for name in step['topics']}}
    return {'errors': {name: error_name(code) for name, code in response.topic_error_codes}}


def describe_configs(bootstrap, step):
    responses = admin(bootstrap).describe_configs([ConfigResource(ConfigResourceType.TOPIC, step['topic'])])
    configs, errors = {}, []
    for response in responses:
        for error_code, error_message, _rtype, _rname, entries in response.resources:
            if error_code != 0:
                errors.append(error_name(error_code, error_message))
            for entry in entries:
                # v0 entries: (name, value, read_only, is_default, is_sensitive); v1+ put
                # config_source where is_default was (DEFAULT_CONFIG is 5), then synonyms
                name, value, read_only, default_or_source, is_sensitive = entry[:5]
                if response.API_VERSION == 0:
                    described = {'isDefault': default_or_source}
                else:
                    described = {'isDefault': default_or_source == 5, 'source': default_or_source}
                described.update({'value': value, 'isReadOnly': read_only, 'isSensitive': is_sensitive})
                configs[name] = described
    return {'configs': configs, 'errors': errors, 'version': responses[0].API_VERSION}


def list_topics(bootstrap, step):
    consumer = KafkaConsumer(bootstrap_servers=bootstrap, group_id=None)
    try:
        topics = {name: sorted(consumer.partitions_for_topic(name) or []) for name in consumer.topics()}
    finally:
        consumer.close()
    return {'topics': topics, 'client': kafka.__version__}


if __name__ == '__main__':
    run_steps({'produce': produce, 'consume': consume, 'create_topics': create_topics,
               'delete_topics': delete_topics, 'describe_configs': describe_configs, 'list_topics': list_topics})
