/**
 * Clients pinned to old protocol versions (issue 19): kafka-python 2.0.2 with api_version (0, 9),
 * (0, 10, 0), (0, 10, 1), (0, 11) and (1, 0) — Produce v0-3 with magic 0/1/2, Fetch v0-4 with
 * down-conversion, ListOffsets v0-1, JoinGroup v0-2, OffsetCommit v2, OffsetFetch v1 — and
 * librdkafka (confluent-kafka and kcat) with api.version.request=false and
 * broker.version.fallback 0.9.0 and 0.10.0, which send old versions without asking ApiVersions.
 * Each produces, consumes in a group, commits and reads its committed offset and the end offset;
 * what it wrote is then read by a modern client (confluent-kafka with ApiVersions: Fetch v11,
 * magic 2) and compared byte for byte, and with the log on disk.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, test } from 'node:test';
import type { Broker } from '../../../src/broker/broker.js';
import { withBroker } from '../../helpers/broker.js';
import { hex, runCommand } from '../../helpers/python-peer.js';
import { runSteps, storedRows, type StepResult } from './py-steps.js';

const KCAT = process.env.KAFKALITE_KCAT ?? 'kcat';
const N = 25;

interface Cycle extends StepResult {
  committed: number;
  end: number;
}

function messages(tag: string): { key: string | null; value: string | null }[] {
  return Array.from({ length: N }, (_, i) => ({
    key: i % 7 === 3 ? null : hex(Buffer.concat([Buffer.from(`${tag}-k${i}:`), randomBytes(3)])),
    value: hex(Buffer.concat([randomBytes(5), Buffer.from(`${tag}/${i}/${'old client '.repeat(1 + (i % 9))}`)])),
  }));
}

const run = (broker: Broker, steps: Record<string, unknown>[]): Promise<StepResult[]> => runSteps('broker_old_clients.py', broker, steps);

/** The old client's cycle checked, then the modern read compared byte for byte with what was sent. */
async function checkCycle(broker: Broker, topic: string, sent: { key: string | null; value: string | null }[], cycle: Cycle, label: string): Promise<void> {
  assert.deepEqual(cycle.deliveries!.map((d) => [d.offset, d.error]), sent.map((_, i) => [i, null]), `${label}: deliveries`);
  assert.deepEqual(cycle.messages!.map((m) => [m.offset, m.key, m.value]), sent.map((m, i) => [i, m.key, m.value]), `${label}: consumed`);
  assert.equal(cycle.committed, N, `${label}: committed offset`);
  assert.equal(cycle.end, N, `${label}: end offset`);
  const [modern] = await run(broker, [{ op: 'modern_read', topic, expect: N }]);
  assert.deepEqual(modern!.messages!.map((m) => [m.offset, m.key, m.value]), sent.map((m, i) => [i, m.key, m.value]), `${label}: modern read`);
  assert.deepEqual(storedRows(broker, topic, 0).map((r) => [r[0], r[1], r[2]]), sent.map((m, i) => [i, m.key, m.value]), `${label}: log on disk`);
}

describe('kafka-python pinned to old api_version', () => {
  for (const apiVersion of [[0, 9], [0, 10, 0], [0, 10, 1], [0, 11], [1, 0]]) {
    const label = `api_version=(${apiVersion.join(', ')})`;
    test(`${label}: produce, group consume, commit, committed and end offsets; a modern client reads the same bytes`, async () => {
      await withBroker({ config: { 'group.initial.rebalance.delay.ms': '0' } }, async (broker) => {
        const topic = `kp-old-${apiVersion.join('-')}`;
        broker.topics.create(topic, 1, {}, broker.logs);
        const sent = messages(topic);
        const [cycle] = await run(broker, [{ op: 'kp_cycle', topic, group: `g-${topic}`, apiVersion, messages: sent }]);
        await checkCycle(broker, topic, sent, cycle as Cycle, label);
      });
    });
  }
});

describe('librdkafka with api.version.request=false', () => {
  for (const fallback of ['0.9.0', '0.10.0']) {
    test(`confluent-kafka, broker.version.fallback=${fallback}: produce, group consume, commit, offsets; a modern client reads the same bytes`, async () => {
      await withBroker({ config: { 'group.initial.rebalance.delay.ms': '0' } }, async (broker) => {
        const topic = `rdk-old-${fallback}`;
        broker.topics.create(topic, 1, {}, broker.logs);
        const sent = messages(topic);
        const [cycle] = await run(broker, [{ op: 'rdk_cycle', topic, group: `g-${topic}`, fallback, messages: sent }]);
        await checkCycle(broker, topic, sent, cycle as Cycle, `confluent-kafka ${fallback}`);
      });
    });

    test(`kcat, broker.version.fallback=${fallback}: produce, group consume with commit, committed offset; a modern client reads the same bytes`, async () => {
      await withBroker({ config: { 'group.initial.rebalance.delay.ms': '0' } }, async (broker) => {
        const topic = `kcat-old-${fallback}`;
        broker.topics.create(topic, 1, {}, broker.logs);
        const values = Array.from({ length: N }, (_, i) => `kcat ${fallback} #${i} ${randomBytes(4).toString('hex')}`);
        const old = ['-b', broker.bootstrap, '-X', 'api.version.request=false', '-X', `broker.version.fallback=${fallback}`];
        const produced = await runCommand(KCAT, [...old, '-P', '-t', topic, '-p', '0', '-K', ':'], { timeoutMs: 60_000, input: values.map((v, i) => `k${i}:${v}\n`).join('') });
        assert.equal(produced.code, 0, produced.stderr.toString());
        // a balanced consumer (-G): JoinGroup v0, SyncGroup, OffsetFetch, Fetch v0-2, OffsetCommit on exit
        const consumed = await runCommand(KCAT, [...old, '-X', 'enable.auto.commit=true', '-X', 'auto.commit.interval.ms=100', '-X', 'auto.offset.reset=earliest', '-G', `g-${topic}`, '-c', String(N), '-f', '%o %k %s\\n', '-e', topic], { timeoutMs: 60_000 });
        assert.equal(consumed.code, 0, consumed.stderr.toString());
        const lines = consumed.stdout.toString().trim().split('\n');
        assert.deepEqual(lines, values.map((v, i) => `${i} k${i} ${v}`));
        // the group's commit on close (OffsetCommit v2), then a second member starts from it (OffsetFetch v1)
        assert.equal(broker.groups.group(`g-${topic}`)?.offset(topic, 0)?.offset, BigInt(N));
        const more = await runCommand(KCAT, [...old, '-P', '-t', topic, '-p', '0', '-K', ':'], { timeoutMs: 60_000, input: 'late:after the commit\n' });
        assert.equal(more.code, 0, more.stderr.toString());
        const resumed = await runCommand(KCAT, [...old, '-X', 'auto.offset.reset=earliest', '-G', `g-${topic}`, '-c', '1', '-f', '%o %k %s\n', '-e', topic], { timeoutMs: 60_000 });
        assert.equal(resumed.code, 0, resumed.stderr.toString());
        assert.equal(resumed.stdout.toString().trim(), `${N} late after the commit`);
        values.push('after the commit');
        const [modern] = await run(broker, [{ op: 'modern_read', topic, expect: N + 1 }]);
        assert.deepEqual(
          modern!.messages!.map((m) => [m.offset, m.key, m.value]),
          values.map((v, i) => [i, hex(Buffer.from(i === N ? 'late' : `k${i}`)), hex(Buffer.from(v))]),
        );
      });
    });
  }
});

describe('kafkalite.protocol.compat=4.0 with an old client', () => {
  test('kafka-python api_version=(0, 10, 0) sends Produce v2, which Kafka 4 does not serve: it gets UNSUPPORTED_VERSION, not EOF; (1, 0) still produces', async () => {
    await withBroker({ protocolCompat: '4.0' }, async (broker) => {
      const topic = 'compat-4';
      broker.topics.create(topic, 1, {}, broker.logs);
      const sent = messages(topic).slice(0, 3);
      const [old, current] = await run(broker, [
        { op: 'kp_produce', topic, apiVersion: [0, 10, 0], messages: sent },
        { op: 'kp_produce', topic, apiVersion: [1, 0], messages: sent },
      ]);
      for (const e of old!.errors as (string | null)[]) assert.match(e ?? 'no error', /UnsupportedVersionError/);
      assert.deepEqual(current!.errors, sent.map(() => null));
      assert.equal(broker.topics.get(topic) !== undefined && storedRows(broker, topic, 0).length, sent.length);
    });
  });
});
