"""ACL admin calls of kafka-python (KafkaAdminClient) against the broker, and a produce with
kafka-python's or confluent-kafka's producer, for test/interop/broker/acls-python.test.ts.

stdin: {"client": "kafka-python" | "confluent", "bootstrap": "host:port", "steps": [...]}:
  {"op": "create_acls", "acls": [acl]}       -> {"errors": [Kafka error code or null, one per ACL]}
  {"op": "describe_acls", "filter": acl}     -> {"acls": [acl, sorted]} or {"error": code}
  {"op": "delete_acls", "filters": [acl]}    -> {"deleted": [[acl, ...] per filter]} or {"error": code}
  {"op": "produce", "topic", "value"}        -> {"offset"} or {"error": code}
where acl = {"resource_type", "name", "pattern_type", "principal", "host", "operation", "permission"}
with Kafka's enum names (TOPIC, LITERAL, READ, ALLOW, ...; ANY/MATCH in filters) and null for "any"
in filters.
"""
import sys
import traceback

from kp_common import read_input, write_output


def kafka_python(bootstrap, steps):
    from kafka import KafkaProducer
    from kafka.admin import (ACL, ACLFilter, ACLOperation, ACLPermissionType, ACLResourcePatternType,
                             KafkaAdminClient, ResourcePattern, ResourcePatternFilter, ResourceType)
    from kafka.errors import KafkaError
    admin = KafkaAdminClient(bootstrap_servers=bootstrap, client_id='kafkalite-acls-kp')

    def pattern(a, cls):
        return cls(ResourceType[a['resource_type']], a['name'], ACLResourcePatternType[a['pattern_type']])

    def to_acl(a):
        return ACL(a['principal'], a['host'], ACLOperation[a['operation']], ACLPermissionType[a['permission']],
                   pattern(a, ResourcePattern))

    def to_filter(a):
        return ACLFilter(a['principal'], a['host'], ACLOperation[a['operation']], ACLPermissionType[a['permission']],
                         pattern(a, ResourcePatternFilter))

    def from_acl(x):
        p = x.resource_pattern
        return {'resource_type': p.resource_type.name, 'name': p.resource_name, 'pattern_type': p.pattern_type.name,
                'principal': x.principal, 'host': x.host, 'operation': x.operation.name, 'permission': x.permission_type.name}

    out = []
    for s in steps:
        op = s['op']
        if op == 'create_acls':
            acls = [to_acl(a) for a in s['acls']]
            r = admin.create_acls(acls)
            failed = {id(f[0]): f[1].errno for f in r['failed']}
            out.append({'errors': [failed.get(id(a)) for a in acls]})
        elif op == 'describe_acls':
            try:
                acls, err = admin.describe_acls(to_filter(s['filter']))
                out.append({'acls': sorted([from_acl(a) for a in acls], key=str)})
            except KafkaError as e:
                out.append({'error': e.errno})
        elif op == 'delete_acls':
            r = admin.delete_acls([to_filter(f) for f in s['filters']])
            out.append({'deleted': [sorted([from_acl(a[0]) for a in matched], key=str) for _f, matched, _e in r]})
        elif op == 'produce':
            p = KafkaProducer(bootstrap_servers=bootstrap, retries=0, max_block_ms=10000)
            try:
                md = p.send(s['topic'], value=s['value'].encode()).get(timeout=20)
                out.append({'offset': md.offset})
            except KafkaError as e:
                # kafka-python 2.0.2's producer waits for metadata until max_block_ms even when the
                # broker answers TOPIC_AUTHORIZATION_FAILED (KafkaTimeoutError): the admin client's
                # metadata call shows the broker's answer for the topic
                md = admin._get_cluster_metadata(topics=[s['topic']])
                out.append({'error': getattr(e, 'errno', None) or type(e).__name__, 'metadata_error': md.topics[0][0]})
            p.close()
    admin.close()
    return out


def confluent(bootstrap, steps):
    # confluent-kafka-python 1.7.0 (Debian's) has no create_acls/describe_acls/delete_acls (added in
    # 1.9.0): its librdkafka 2.0.2 producer is what is checked against the authorizer
    from confluent_kafka import Producer
    out = []
    for s in steps:
        if s['op'] != 'produce':
            raise ValueError('confluent-kafka 1.7.0 has no %s' % s['op'])
        p = Producer({'bootstrap.servers': bootstrap, 'message.send.max.retries': 0, 'message.timeout.ms': 10000})
        got = []
        p.produce(s['topic'], value=s['value'].encode(), on_delivery=lambda err, m: got.append((err, m.offset())))
        p.flush(20)
        err, offset = got[0]
        out.append({'offset': offset} if err is None else {'error': err.code()})
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
