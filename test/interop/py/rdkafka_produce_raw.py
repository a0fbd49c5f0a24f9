"""kafkalite-encoded batches go to librdkafka's mock cluster in raw Produce v3 requests (kafka-python
protocol classes over a plain socket); a confluent_kafka.Consumer with check.crcs then reads them,
and the stored bytes are fetched back raw as well.

Input:  {"cases": [{"name", "batches": [hex], "count"}]}
        (each case gets a topic; its batches are produced in order, one request each; count is
        the number of messages the consumer must deliver: control records are never delivered)
Output: {"results": [{"name", "produceErrors": [..], "baseOffsets": [..], "messages": [...],
                      "errors": [...], "position", "chunks": [hex]}], "librdkafka"}
"""
import ctypes
import sys
import time

import confluent_kafka

from kafka_wire import Connection, error_name, fetch_all, produce_raw
from kp_common import read_input, write_output, unhex, tohex


_py_incref = ctypes.pythonapi.Py_IncRef
_py_incref.argtypes = [ctypes.py_object]


def headers_of(message):
    """Message.headers(), working around a confluent-kafka 1.7.0 refcount bug.

    Its C code puts Py_None into each (name, None) header tuple without a reference, so every null
    header value read frees a reference to None that was never taken, and the interpreter aborts
    at exit ("none_dealloc: deallocating None"). The missing references are measured (the GIL is
    held, so None's refcount moves only by what this call creates) and added back.
    """
    before = sys.getrefcount(None)
    headers = message.headers()
    if headers is None:
        return None
    nulls = sum(1 for _k, v in headers if v is None)
    missing = nulls - (sys.getrefcount(None) - before)
    for _ in range(missing):
        _py_incref(None)
    return headers


def main():
    doc = read_input()
    cases = doc['cases']
    # This producer hosts the mock cluster for the whole run; it also creates the topics (the mock
    # creates a topic on first produce).
    host = confluent_kafka.Producer({'test.mock.num.brokers': 1, 'log_level': 3})
    topics = ['raw-%d' % i for i in range(len(cases))]
    for t in topics:
        host.produce(t, value=b'create', partition=1)
    if host.flush(30) != 0:
        raise RuntimeError('flush timed out')
    broker = list(host.list_topics(timeout=10).brokers.values())[0]
    bootstrap = '%s:%d' % (broker.host, broker.port)

    conn = Connection(broker.host, broker.port)
    results = []
    for case, topic in zip(cases, topics):
        r = {'name': case['name'], 'produceErrors': [], 'baseOffsets': [], 'messages': [], 'errors': [],
             'position': None, 'chunks': []}
        for batch in case['batches']:
            err, base_offset = produce_raw(conn, topic, 0, unhex(batch))
            r['produceErrors'].append(error_name(err))
            r['baseOffsets'].append(str(base_offset))
        r['ok'] = all(e == 'NONE' for e in r['produceErrors'])
        results.append(r)

    consumer = confluent_kafka.Consumer({
        'bootstrap.servers': bootstrap,
        'group.id': 'kafkalite-interop',
        'enable.auto.commit': False,
        'enable.partition.eof': False,
        'check.crcs': True,
        'isolation.level': 'read_uncommitted',
        'fetch.wait.max.ms': 10,
        'log_level': 3,
    })
    by_topic = {t: r for t, r in zip(topics, results)}
    wanted = {t: c['count'] for t, c, r in zip(topics, cases, results) if r['ok']}
    consumer.assign([confluent_kafka.TopicPartition(t, 0, 0) for t in wanted])
    remaining = sum(wanted.values())
    deadline = time.time() + 60
    while remaining > 0 and time.time() < deadline:
        for m in consumer.consume(num_messages=10000, timeout=0.5):
            r = by_topic[m.topic()]
            if m.error() is not None:
                r['errors'].append(str(m.error()))
                continue
            ts_type, ts = m.timestamp()
            headers = headers_of(m)
            r['messages'].append({
                'offset': str(m.offset()),
                'timestampType': ts_type,
                'timestamp': str(ts),
                'key': tohex(m.key()),
                'value': tohex(m.value()),
                'headers': None if headers is None else [[k, tohex(v)] for k, v in headers],
            })
            remaining -= 1
    for tp in consumer.position([confluent_kafka.TopicPartition(t, 0) for t in wanted]):
        by_topic[tp.topic]['position'] = tp.offset
    consumer.close()

    for topic, r in zip(topics, results):
        if r['ok']:
            chunks, _hw = fetch_all(conn, topic, 0)
            r['chunks'] = [c.hex() for c in chunks]
    conn.close()
    write_output({'results': results, 'librdkafka': confluent_kafka.libversion()[0]})


if __name__ == '__main__':
    main()
