"""confluent-kafka-python (librdkafka 2.0.2) transactions against a kafkalite broker.

Input (stdin JSON): {"bootstrap", "scenario", ...}. Output (stdout JSON): what the clients saw.

Scenarios:
- "ctp": a consume-transform-produce loop. Input topic `input` holds `count` records (produced here
  idempotently); a transactional producer reads them in batches of `batch` with a consumer in group
  `group` (read_committed, no auto commit), produces one output record per input record to `output`,
  sends the consumer's positions with send_offsets_to_transaction, and commits, except batches whose
  index is in `abort`, which are aborted and re-processed (the consumer seeks back). Then a separate
  read_committed consumer reads `output`; the group's committed offsets are listed.
- "fence": producer A (transactional.id `tid`) begins a transaction and produces; producer B with the
  same id runs init_transactions; A's commit must fail as fenced; B commits its own transaction.
- "produce_input": `count` records `in-<i>` to topic `input` (idempotent, acks all).
- "ctp_crash": the consume-transform-produce loop of "ctp" (no planned aborts) made to survive a broker
  that is killed and restarted under it: after any error the producer is replaced (its successor's
  init_transactions fences it, aborting whatever it left open) and the consumer rewinds to the group's
  committed offset, so each input record ends up in exactly one committed transaction.
- "read": the committed output (read_committed) and the group's committed offset.
- "timeout": a producer with transaction.timeout.ms `timeout_ms` produces inside a transaction, sleeps
  `sleep_s`, then tries to commit.
- "offsets_for_times": a record at `t0`, then one at `t1` in a transaction left open: offsets_for_times
  and get_watermark_offsets from read_committed and read_uncommitted consumers, then again
  (read_committed) after the commit.
"""
import json
import sys
import time

from confluent_kafka import Consumer, KafkaException, Producer, TopicPartition


def kerr(e):
    err = e.args[0] if e.args else None
    if err is None or not hasattr(err, 'name'):
        return {'name': str(e)}
    return {
        'name': err.name(),
        'fatal': err.fatal(),
        'retriable': err.retriable(),
        'txn_requires_abort': err.txn_requires_abort(),
        'str': err.str(),
    }


def read_all(bootstrap, topic, partitions, expect, isolation='read_committed', timeout_s=20):
    c = Consumer({'bootstrap.servers': bootstrap, 'group.id': 'reader-%s' % time.time(), 'enable.auto.commit': False,
                  'isolation.level': isolation, 'enable.partition.eof': True})
    c.assign([TopicPartition(topic, p, 0) for p in range(partitions)])
    out = []
    eof = set()
    deadline = time.time() + timeout_s
    while time.time() < deadline and (len(eof) < partitions or len(out) < expect):
        m = c.poll(0.5)
        if m is None:
            continue
        if m.error():
            if m.error().code() == -191:  # _PARTITION_EOF
                eof.add(m.partition())
                if len(out) >= expect and len(eof) >= partitions:
                    break
            continue
        out.append({'partition': m.partition(), 'offset': m.offset(), 'key': (m.key() or b'').decode(), 'value': (m.value() or b'').decode()})
    c.close()
    return out


def ctp(cfg):
    b = cfg['bootstrap']
    count, batch, group = cfg['count'], cfg['batch'], cfg['group']
    aborts = set(cfg.get('abort', []))
    p0 = Producer({'bootstrap.servers': b, 'enable.idempotence': True})
    for i in range(count):
        p0.produce('input', key=str(i).encode(), value=('in-%d' % i).encode())
    p0.flush(20)
    consumer = Consumer({'bootstrap.servers': b, 'group.id': group, 'enable.auto.commit': False,
                         'isolation.level': 'read_committed', 'auto.offset.reset': 'earliest'})
    consumer.assign([TopicPartition('input', 0, 0)])
    producer = Producer({'bootstrap.servers': b, 'transactional.id': cfg['tid'], 'transaction.timeout.ms': 30000})
    producer.init_transactions(20)
    done = 0
    batch_index = 0
    committed_batches = []
    aborted_batches = []
    deadline = time.time() + 60
    while done < count and time.time() < deadline:
        msgs = consumer.consume(batch, 2.0)
        msgs = [m for m in msgs if not m.error()]
        if not msgs:
            continue
        producer.begin_transaction()
        for m in msgs:
            producer.produce('output', key=m.key(), value=b'out-' + m.value())
        positions = consumer.position(consumer.assignment())
        producer.send_offsets_to_transaction(positions, consumer.consumer_group_metadata(), 20)
        if batch_index in aborts:
            # the records reach the log first (abort_transaction would purge unsent ones), so the abort has data to hide
            producer.flush(20)
            producer.abort_transaction(20)
            aborted_batches.append([m.offset() for m in msgs])
            consumer.seek(TopicPartition('input', 0, msgs[0].offset()))
        else:
            producer.commit_transaction(20)
            committed_batches.append([m.offset() for m in msgs])
            done = msgs[-1].offset() + 1
        batch_index += 1
    consumer.close()
    output = read_all(b, 'output', 1, count)
    uncommitted = read_all(b, 'output', 1, count + sum(len(x) for x in aborted_batches), isolation='read_uncommitted')
    checker = Consumer({'bootstrap.servers': b, 'group.id': group, 'enable.auto.commit': False})
    committed = checker.committed([TopicPartition('input', 0)], 10)
    checker.close()
    return {'committed_batches': committed_batches, 'aborted_batches': aborted_batches, 'output': output,
            'uncommitted_count': len(uncommitted), 'committed_offset': committed[0].offset}


def fence(cfg):
    b = cfg['bootstrap']
    a = Producer({'bootstrap.servers': b, 'transactional.id': cfg['tid']})
    a.init_transactions(20)
    a.begin_transaction()
    a.produce('fenced', value=b'from-a')
    a.flush(10)
    bp = Producer({'bootstrap.servers': b, 'transactional.id': cfg['tid']})
    bp.init_transactions(30)
    bp.begin_transaction()
    bp.produce('fenced', value=b'from-b')
    bp.commit_transaction(20)
    result = {'a_commit': None}
    try:
        a.commit_transaction(10)
        result['a_commit'] = 'ok'
    except KafkaException as e:
        result['a_commit'] = kerr(e)
    result['read_committed'] = read_all(b, 'fenced', 1, 1)
    result['read_uncommitted'] = read_all(b, 'fenced', 1, 2, isolation='read_uncommitted')
    return result


def timeout(cfg):
    b = cfg['bootstrap']
    # the topic exists before the transaction, so its only wait is the one under test
    p0 = Producer({'bootstrap.servers': b})
    p0.produce('timed', value=b'before')
    p0.flush(10)
    p = Producer({'bootstrap.servers': b, 'transactional.id': cfg['tid'], 'transaction.timeout.ms': cfg['timeout_ms']})
    p.init_transactions(20)
    p.begin_transaction()
    p.produce('timed', value=b'never-committed')
    p.flush(10)
    time.sleep(cfg['sleep_s'])
    result = {}
    try:
        p.commit_transaction(10)
        result['commit'] = 'ok'
    except KafkaException as e:
        result['commit'] = kerr(e)
    result['read_committed'] = read_all(b, 'timed', 1, 1)
    return result


def offsets_for_times(cfg):
    """ListOffsets by timestamp around an open transaction, from a read_committed and a
    read_uncommitted consumer: before the commit, the committed reader finds nothing at or past the
    open transaction's record (Kafka bounds the lookup by the last stable offset), after it finds it."""
    b = cfg['bootstrap']
    t0, t1 = cfg['t0'], cfg['t1']
    p0 = Producer({'bootstrap.servers': b})
    p0.produce('times', value=b'before', timestamp=t0)
    p0.flush(10)
    p = Producer({'bootstrap.servers': b, 'transactional.id': cfg['tid']})
    p.init_transactions(20)
    p.begin_transaction()
    p.produce('times', value=b'in-transaction', timestamp=t1)
    p.flush(10)

    def look(isolation):
        c = Consumer({'bootstrap.servers': b, 'group.id': 'times-' + isolation, 'isolation.level': isolation, 'enable.auto.commit': False})
        try:
            # one timestamp per call: a partition listed twice in one ListOffsets is INVALID_REQUEST
            at = lambda t: c.offsets_for_times([TopicPartition('times', 0, t)], 10)[0].offset
            low, high = c.get_watermark_offsets(TopicPartition('times', 0), 10)
            return {'t0': at(t0), 't1': at(t1), 'high': high}
        finally:
            c.close()

    result = {'open': {'committed': look('read_committed'), 'uncommitted': look('read_uncommitted')}}
    p.commit_transaction(10)
    result['after_commit'] = look('read_committed')
    return result


def produce_input(cfg):
    p = Producer({'bootstrap.servers': cfg['bootstrap'], 'enable.idempotence': True})
    for i in range(cfg['count']):
        p.produce('input', key=str(i).encode(), value=('in-%d' % i).encode())
    left = p.flush(30)
    return {'undelivered': left}


def retrying(fn, deadline):
    while True:
        try:
            return fn()
        except KafkaException:
            if time.time() > deadline:
                raise
            time.sleep(0.2)


def ctp_crash(cfg):
    b, count, batch, group, tid = cfg['bootstrap'], cfg['count'], cfg['batch'], cfg['group'], cfg['tid']
    deadline = time.time() + cfg.get('deadline_s', 150)
    tp = TopicPartition('input', 0)
    consumer = Consumer({'bootstrap.servers': b, 'group.id': group, 'enable.auto.commit': False,
                         'isolation.level': 'read_committed', 'auto.offset.reset': 'earliest'})
    consumer.assign([tp])

    def new_producer():
        p = Producer({'bootstrap.servers': b, 'transactional.id': tid, 'transaction.timeout.ms': 10000,
                      'reconnect.backoff.max.ms': 200})
        retrying(lambda: p.init_transactions(10), deadline)
        return p

    def rewind():
        committed = retrying(lambda: consumer.committed([tp], 10), deadline)[0].offset
        consumer.seek(TopicPartition('input', 0, max(committed, 0)))
        return committed

    commits, failures, producers = 0, [], 1
    producer = new_producer()
    retrying(lambda: consumer.seek(TopicPartition('input', 0, max(consumer.committed([tp], 10)[0].offset, 0))), deadline)
    while time.time() < deadline:
        try:
            msgs = [m for m in consumer.consume(batch, 1.0) if not m.error()]
            if not msgs:
                if rewind() >= count:
                    break
                continue
            producer.begin_transaction()
            for m in msgs:
                producer.produce('output', key=m.key(), value=b'out-' + m.value())
            producer.send_offsets_to_transaction(consumer.position([tp]), consumer.consumer_group_metadata(), 10)
            producer.commit_transaction(10)
            commits += 1
        except KafkaException as e:
            failures.append(kerr(e).get('name'))
            producer.purge()
            producer.flush(0)
            producer = new_producer()
            producers += 1
            rewind()
    consumer.close()
    return {'commits': commits, 'failures': failures, 'producers': producers}


def read(cfg):
    b = cfg['bootstrap']
    checker = Consumer({'bootstrap.servers': b, 'group.id': cfg['group'], 'enable.auto.commit': False})
    committed = retrying(lambda: checker.committed([TopicPartition('input', 0)], 10), time.time() + 30)
    checker.close()
    return {'output': read_all(b, 'output', 1, cfg['count']), 'committed_offset': committed[0].offset}


def main():
    cfg = json.load(sys.stdin)
    fn = {'ctp': ctp, 'fence': fence, 'timeout': timeout, 'produce_input': produce_input, 'ctp_crash': ctp_crash, 'read': read,
          'offsets_for_times': offsets_for_times}[cfg['scenario']]
    try:
        out = fn(cfg)
    except KafkaException as e:
        out = {'exception': kerr(e)}
    print(json.dumps(out))


main()
