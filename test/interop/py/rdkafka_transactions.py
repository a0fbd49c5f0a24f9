"""librdkafka's transactional producers (confluent_kafka.Producer with a `transactional.id`) write
to the built-in mock cluster; the raw record bytes are fetched back with a hand-made Fetch v4
request (kafka_wire.fetch_all), so the test sees librdkafka's transactional batches exactly as the
mock stored them (it assigns offsets only and, in librdkafka 2.0.2, writes no COMMIT/ABORT markers).

Each case runs its own mock cluster (owned by the first producer). Every producer of the case has
its own transactional.id and connects to that cluster; the case's steps are executed in order:
  {"op": "begin", "producer": i}
  {"op": "produce", "producer": i, "messages": [{"key", "value", "timestamp"}]}  (then flush)
  {"op": "commit" | "abort", "producer": i}
After every step the partition's high watermark is recorded (so the test knows which offsets each
step wrote). A producer whose transaction is still open at the end is simply dropped.

Input:  {"cases": [{"name", "topic", "producers": n, "config": {...}, "steps": [...]}]}
Output: {"results": [{"name", "chunks": [hex], "highWatermark", "deliveryErrors": [..],
                      "stepEnds": [int]}], "librdkafka"}
"""
import confluent_kafka

from kafka_wire import Connection, fetch_all, fetch_raw
from kp_common import read_input, write_output, unhex


def high_watermark(conn, topic):
    err, hw, _records = fetch_raw(conn, topic, 0, 0, max_bytes=1)
    if err == 3:  # UNKNOWN_TOPIC_OR_PARTITION: nothing produced yet
        return 0
    if err != 0:
        raise RuntimeError('Fetch %s failed with error %d' % (topic, err))
    return hw


def run_case(case):
    topic = case['topic']
    errors = []

    def on_delivery(err, msg):
        if err is not None:
            errors.append(str(err))

    base = {'linger.ms': 5, 'log_level': 3}
    base.update(case.get('config') or {})
    first = dict(base)
    first.update({'test.mock.num.brokers': 1, 'transactional.id': '%s-txn-0' % case['name']})
    producers = [confluent_kafka.Producer(first)]
    producers[0].init_transactions(30)
    metadata = producers[0].list_topics(timeout=10)
    broker = list(metadata.brokers.values())[0]
    bootstrap = '%s:%d' % (broker.host, broker.port)
    for i in range(1, case['producers']):
        cfg = dict(base)
        cfg.update({'bootstrap.servers': bootstrap, 'transactional.id': '%s-txn-%d' % (case['name'], i)})
        p = confluent_kafka.Producer(cfg)
        p.init_transactions(30)
        producers.append(p)

    conn = Connection(broker.host, broker.port)
    step_ends = []
    try:
        for step in case['steps']:
            p = producers[step['producer']]
            op = step['op']
            if op == 'begin':
                p.begin_transaction()
            elif op == 'produce':
                for m in step['messages']:
                    while True:
                        try:
                            p.produce(topic, partition=0, key=unhex(m['key']), value=unhex(m['value']),
                                      timestamp=int(m['timestamp']), on_delivery=on_delivery)
                            break
                        except BufferError:
                            p.poll(0.05)
                if p.flush(30) != 0:
                    raise RuntimeError('flush timed out')
            elif op == 'commit':
                p.commit_transaction(30)
            elif op == 'abort':
                p.abort_transaction(30)
            else:
                raise ValueError('unknown op ' + op)
            step_ends.append(high_watermark(conn, topic))
        chunks, hw = fetch_all(conn, topic, 0)
    finally:
        conn.close()
    # the first producer owns the mock cluster: the others go first
    while producers:
        producers.pop().flush(10)
    return {'name': case['name'], 'chunks': [c.hex() for c in chunks], 'highWatermark': hw,
            'deliveryErrors': errors, 'stepEnds': step_ends}


def main():
    doc = read_input()
    results = [run_case(c) for c in doc['cases']]
    write_output({'results': results, 'librdkafka': confluent_kafka.libversion()[0]})


if __name__ == '__main__':
    main()
