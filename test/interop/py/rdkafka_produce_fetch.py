"""librdkafka (confluent_kafka.Producer) produces to its built-in mock cluster; the raw record
bytes are then fetched with a hand-made Fetch v4 request, so the test sees librdkafka's batches
exactly as it wrote them (the mock broker stores them as received, assigning only offsets).

With a `transactional.id` in the config, all messages go in one transaction, which is committed.

Input:  {"cases": [{"name", "topic", "config": {...}, "flushEvery",
                    "messages": [{"key", "value", "headers": [[k, v]] | null, "timestamp"}]}]}
Output: {"results": [{"name", "chunks": [hex], "highWatermark", "deliveryErrors": [..], "librdkafka"}]}
"""
import sys

import confluent_kafka

from kafka_wire import Connection, fetch_all
from kp_common import read_input, write_output, unhex


def run_case(case):
    config = {'test.mock.num.brokers': 1, 'linger.ms': 5, 'log_level': 3}
    config.update(case['config'])
    producer = confluent_kafka.Producer(config)
    errors = []

    def on_delivery(err, msg):
        if err is not None:
            errors.append(str(err))

    topic = case['topic']
    # the topic's metadata first: messages produced before librdkafka knows the topic wait
    # unpartitioned, and a flush() begun before the metadata arrives can see them sent a few at a
    # time, too small to compress (the batch layout the test checks is then librdkafka's race)
    producer.list_topics(topic, timeout=10)
    transactional = 'transactional.id' in config
    if transactional:
        producer.init_transactions(30)
        producer.begin_transaction()
    flush_every = case.get('flushEvery') or 0
    for i, m in enumerate(case['messages']):
        headers = None if m['headers'] is None else [(k, unhex(v)) for k, v in m['headers']]
        kwargs = {'partition': 0, 'key': unhex(m['key']), 'value': unhex(m['value']),
                  'timestamp': int(m['timestamp']), 'on_delivery': on_delivery}
        if headers is not None:
            kwargs['headers'] = headers
        while True:
            try:
                producer.produce(topic, **kwargs)
                break
            except BufferError:
                producer.poll(0.05)
        if flush_every and (i + 1) % flush_every == 0 and i + 1 < len(case['messages']):
            if producer.flush(30) != 0:
                raise RuntimeError('flush timed out')
    if producer.flush(30) != 0:
        raise RuntimeError('flush timed out')
    if transactional:
        producer.commit_transaction(30)

    metadata = producer.list_topics(timeout=10)
    broker = list(metadata.brokers.values())[0]
    conn = Connection(broker.host, broker.port)
    try:
        chunks, hw = fetch_all(conn, topic, 0)
    finally:
        conn.close()
    return {'name': case['name'], 'chunks': [c.hex() for c in chunks], 'highWatermark': hw,
            'deliveryErrors': errors}


def main():
    doc = read_input()
    results = [run_case(c) for c in doc['cases']]
    write_output({'results': results, 'librdkafka': confluent_kafka.libversion()[0]})


if __name__ == '__main__':
    main()
