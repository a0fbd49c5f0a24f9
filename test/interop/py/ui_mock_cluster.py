"""librdkafka's mock cluster with three brokers, for the web console's multi-broker routing test.

Produces one message to each partition of topic `spread` (the mock creates it with its default
partition count and spreads the leaders over the brokers), prints one JSON line
{"brokers": {id: "host:port"}, "leaders": {partition: id}}, then keeps the cluster up until its
stdin closes.
"""
import json
import sys

import confluent_kafka


def main():
    host = confluent_kafka.Producer({'test.mock.num.brokers': 3, 'log_level': 3})
    for p in range(4):
        host.produce('spread', key=b'k%d' % p, value=b'from librdkafka %d' % p, partition=p)
    if host.flush(30) != 0:
        raise RuntimeError('flush timed out')
    md = host.list_topics(timeout=10)
    print(json.dumps({
        'brokers': {str(b.id): '%s:%d' % (b.host, b.port) for b in md.brokers.values()},
        'leaders': {str(p.id): p.leader for p in md.topics['spread'].partitions.values()},
    }))
    sys.stdout.flush()
    sys.stdin.read()


if __name__ == '__main__':
    main()
