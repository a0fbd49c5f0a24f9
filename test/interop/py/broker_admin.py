"""Admin calls of kafka-python (KafkaAdminClient) and confluent-kafka (AdminClient) against the
broker, for test/interop/broker/admin-python.test.ts.

stdin: {"client": "kafka-python" | "confluent", "bootstrap": "host:port", "steps": [...]}, each step
one admin call:
  {"op": "create_partitions", "topic", "count", "validate_only", "assignments": [[broker ids]] | null}
  {"op": "alter_configs", "topic", "configs": {name: value}, "validate_only", "type": "topic" | "broker"}
    (for "broker", "topic" is the broker id)
  {"op": "describe_configs", "topic", "names": [config names]}
  {"op": "produce", "topic", "partition", "value"}   (the client's producer)
stdout: {"results": [...]}, one per step: {"error": Kafka error code or null} for the changes,
{"configs": {name: [value, source]}} for describe_configs (source null when the client does not
report it), {"partition", "offset"} for produce.
"""
import sys
import traceback

from kp_common import read_input, write_output


def kafka_python(bootstrap, steps):
    from kafka import KafkaProducer
    from kafka.admin import ConfigResource, ConfigResourceType, KafkaAdminClient, NewPartitions
    from kafka.errors import KafkaError
    admin = KafkaAdminClient(bootstrap_servers=bootstrap, client_id='kafkalite-admin-kp')

    def code_of(code):
        return None if code == 0 else code

    out = []
    for s in steps:
        op = s['op']
        if op == 'create_partitions':
            try:
                r = admin.create_partitions({s['topic']: NewPartitions(s['count'], s.get('assignments'))},
                                            validate_only=s.get('validate_only', False))
                out.append({'error': code_of(r.topic_errors[0][1])})
            except KafkaError as e:
                # kafka-python raises the error class of a failed topic
                out.append({'error': e.errno})
        elif op == 'alter_configs':
            if s.get('validate_only'):
                raise ValueError('kafka-python alter_configs has no validate_only')
            kind = ConfigResourceType.BROKER if s.get('type') == 'broker' else ConfigResourceType.TOPIC
            r = admin.alter_configs([ConfigResource(kind, s['topic'], configs=s['configs'])])
            out.append({'error': code_of(r.resources[0][0])})
        elif op == 'describe_configs':
            r = admin.describe_configs([ConfigResource(ConfigResourceType.TOPIC, s['topic'], configs={n: None for n in s['names']})])
            res = r[0].resources[0]
            out.append({'configs': {c[0]: [c[1], c[3] if r[0].API_VERSION >= 1 else None] for c in res[4]}})
        elif op == 'produce':
            p = KafkaProducer(bootstrap_servers=bootstrap)
            md = p.send(s['topic'], value=s['value'].encode(), partition=s['partition']).get(timeout=20)
            p.close()
            out.append({'partition': md.partition, 'offset': md.offset})
    admin.close()
    return out


def confluent(bootstrap, steps):
    from confluent_kafka import KafkaException, Producer
    from confluent_kafka.admin import AdminClient, ConfigResource, NewPartitions

    admin = AdminClient({'bootstrap.servers': bootstrap})

    def outcome(futures):
        try:
            for f in futures.values():
                f.result(timeout=20)
            return {'error': None}
        except KafkaException as e:
            # librdkafka's codes for broker errors are Kafka's (its names are not: UNKNOWN_TOPIC_OR_PART)
            return {'error': e.args[0].code()}

    out = []
    for s in steps:
        op = s['op']
        if op == 'create_partitions':
            # the binding takes None for "no assignment" as a malformed assignment: leave it out
            extra = {} if s.get('assignments') is None else {'replica_assignment': s['assignments']}
            np = NewPartitions(s['topic'], s['count'], **extra)
            out.append(outcome(admin.create_partitions([np], validate_only=s.get('validate_only', False), request_timeout=20)))
        elif op == 'alter_configs':
            res = ConfigResource(s.get('type', 'topic'), s['topic'], set_config=s['configs'])
            out.append(outcome(admin.alter_configs([res], validate_only=s.get('validate_only', False), request_timeout=20)))
        elif op == 'describe_configs':
            fs = admin.describe_configs([ConfigResource('topic', s['topic'])], request_timeout=20)
            entries = list(fs.values())[0].result(timeout=20)
            out.append({'configs': {n: [entries[n].value, int(entries[n].source)] for n in s['names']}})
        elif op == 'produce':
            p = Producer({'bootstrap.servers': bootstrap})
            got = []
            p.produce(s['topic'], value=s['value'].encode(), partition=s['partition'],
                      on_delivery=lambda err, m: got.append((err, m.partition(), m.offset())))
            p.flush(20)
            err, partition, offset = got[0]
            if err is not None:
                raise RuntimeError(str(err))
            out.append({'partition': partition, 'offset': offset})
    return out


def main():
    req = read_input()
    try:
        run = kafka_python if req['client'] == 'kafka-python' else confluent
        write_output({'results': run(req['bootstrap'], req['steps'])})
    except Exception:
        traceback.print_exc()
        sys.exit(1)


if __name__ == '__main__':
    main()
