"""Issue 17 finding 5 with real clients: what kafka-python 2.0.2 and confluent-kafka (librdkafka)
report when the broker applies Kafka's limits. Input {"bootstrap", "zstd_topic"}; output one
entry per check with the exception class / error name the client raised (None when it did not).
"""
from kp_common import read_input, write_output


def kafka_python_checks(bootstrap, zstd_topic):
    from kafka import KafkaAdminClient, KafkaConsumer, KafkaProducer
    from kafka.admin import NewTopic
    out = {}
    producer = KafkaProducer(bootstrap_servers=bootstrap, retries=0, max_block_ms=20000)
    try:
        producer.send('__consumer_offsets', b'forged').get(timeout=20)
        out['produce_internal'] = None
    except Exception as e:  # the client's error class is the observation
        out['produce_internal'] = type(e).__name__
    finally:
        producer.close()
    admin = KafkaAdminClient(bootstrap_servers=bootstrap)
    try:
        r = admin.create_topics([NewTopic('__cluster_metadata', 1, 1)])
        out['create_cluster_metadata'] = [[t[0], t[1]] for t in r.topic_errors]
    except Exception as e:
        out['create_cluster_metadata'] = type(e).__name__
    finally:
        admin.close()
    # kafka-python 2.0.2 fetches with Fetch v4: below v10 a zstd-configured topic is refused. The
    # client raises the error inside its response handling and logs it; the log is the observation
    import logging
    seen = []

    class Collect(logging.Handler):
        def emit(self, record):
            seen.append(record.getMessage() + ('' if record.exc_info is None else ' ' + type(record.exc_info[1]).__name__))

    logging.getLogger('kafka').addHandler(Collect(level=logging.WARNING))
    logging.getLogger('kafka').setLevel(logging.WARNING)
    consumer = KafkaConsumer(zstd_topic, bootstrap_servers=bootstrap, auto_offset_reset='earliest',
                             enable_auto_commit=False, group_id=None, consumer_timeout_ms=10000)
    try:
        got = 0
        for _ in range(20):
            got += sum(len(v) for v in consumer.poll(timeout_ms=500).values())
        out['fetch_zstd_v4'] = {'records': got, 'raised': None}
    except Exception as e:
        out['fetch_zstd_v4'] = {'records': 0, 'raised': type(e).__name__}
    finally:
        consumer.close()
    out['fetch_zstd_v4']['log'] = seen[:5]
    return out


def confluent_checks(bootstrap):
    from confluent_kafka import Producer
    errors = []
    p = Producer({'bootstrap.servers': bootstrap, 'message.send.max.retries': 0, 'message.timeout.ms': 20000})
    p.produce('__consumer_offsets', b'forged', on_delivery=lambda err, msg: errors.append(None if err is None else err.name()))
    p.flush(30)
    return {'produce_internal': errors}


def main():
    req = read_input()
    out = kafka_python_checks(req['bootstrap'], req['zstd_topic'])
    out['confluent'] = confluent_checks(req['bootstrap'])
    write_output(out)


main()
