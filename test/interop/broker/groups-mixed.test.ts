/**
 * One consumer group of four different clients against a broker started by the test: kafkajs
 * 2.2.4 (in this process), confluent-kafka-python (librdkafka 2.0.2) and kafka-python 2.0.2 (one
 * Python process), @platformatic/kafka 2.x (a Node 22 process).
 *
 * Protocols they send by default: librdkafka "range" then "roundrobin", kafka-python "range" then
 * "roundrobin", @platformatic/kafka "roundrobin", kafkajs "RoundRobinAssigner". The coordinator
 * picks a protocol every member lists (Kafka `ClassicGroup.candidateProtocols`), so the first
 * three share "roundrobin" with their defaults; kafkajs's own name is refused
 * (INCONSISTENT_GROUP_PROTOCOL, checked here), so its member runs kafkajs's round-robin assigner
 * under the name "roundrobin". All use the consumer protocol's subscription and assignment
 * bytes, so whichever member is elected leader computes the assignment for all of them.
 *
 * Proof: the four settle into one Stable generation splitting 8 partitions two each; the messages
 * produced then are consumed exactly once across the four clients, each from its own partitions,
 * and the committed offsets reach the log end.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, test } from 'node:test';
import { withBroker } from '../../helpers/broker.js';
import { runPythonAsync } from '../../helpers/python-peer.js';
import { API, call, joinRequest, subscription } from '../../broker/group/call.js';
import { errorName } from '../../../src/protocol/error-codes.js';
import { assertExactlyOnce, committedOffsets, describeGroup, isSplit, logEndOffsets, platformaticGroup, produce, waitFor } from './group-watch.js';

const require = createRequire(import.meta.url);

interface KAssigner {
  name: string;
  version: number;
  assign(o: unknown): Promise<unknown>;
  protocol(o: { topics: string[] }): { name: string; metadata: Buffer };
}
type KAssignerFactory = (o: { cluster: unknown }) => KAssigner;
interface KConsumer {
  connect(): Promise<void>;
  disconnect(): Promise<void>;
  subscribe(o: { topics: string[]; fromBeginning?: boolean }): Promise<void>;
  run(o: { autoCommitThreshold?: number; eachMessage: (p: { topic: string; partition: number; message: { offset: string; value: Buffer | null } }) => Promise<void> }): Promise<void>;
}
interface KClient {
  consumer(o: { groupId: string; sessionTimeout: number; rebalanceTimeout: number; heartbeatInterval: number; maxWaitTimeInMs: number; partitionAssigners: KAssignerFactory[] }): KConsumer;
}
const { Kafka, logLevel, PartitionAssigners } = require('kafkajs') as {
  Kafka: new (o: { clientId: string; brokers: string[]; logLevel: number }) => KClient;
  logLevel: { NOTHING: number };
  PartitionAssigners: { roundRobin: KAssignerFactory };
};

/** kafkajs's round-robin assigner, announced under the name the other clients use. */
const roundRobinNamedLikeJava: KAssignerFactory = (o) => ({ ...PartitionAssigners.roundRobin(o), name: 'roundrobin' });

const PARTITIONS = 8;
const CONFIG = { 'group.initial.rebalance.delay.ms': '0' };

type Consumed = [string, number, number, string];

describe('mixed-client consumer group', () => {
  test('kafkajs + librdkafka + kafka-python + @platformatic/kafka share "roundrobin", split 8 partitions, consume exactly once', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'kl-mixed-groups-'));
    const stopFile = join(dataDir, '..', `kl-mixed-${process.pid}-stop`);
    const topic = 'mixed-events';
    const group = 'mixed-group';
    try {
      await withBroker({ dataDir, config: CONFIG }, async (broker) => {
        broker.topics.create(topic, PARTITIONS, {}, broker.logs);

        // kafkajs's default protocol name matches no other client's: a group of "roundrobin" members refuses it
        const other = await call(broker, API.JoinGroup, 5, joinRequest('probe-group', '', [{ name: 'roundrobin', metadata: subscription([topic]) }], { groupInstanceId: 'probe' }));
        assert.equal(errorName(other.errorCode), 'NONE');
        const kjsDefault = await call(broker, API.JoinGroup, 5, joinRequest('probe-group', '', [{ name: 'RoundRobinAssigner', metadata: subscription([topic]) }], { groupInstanceId: 'probe-2' }));
        assert.equal(errorName(kjsDefault.errorCode), 'INCONSISTENT_GROUP_PROTOCOL');
        await call(broker, API.LeaveGroup, 4, { groupId: 'probe-group', members: [{ memberId: other.memberId, groupInstanceId: 'probe', reason: null }] });

        const consumed: Consumed[] = [];
        const failures: unknown[] = [];
        const alive = (): void => {
          if (failures.length > 0) throw failures[0];
        };
        const python = runPythonAsync<{ results: { consumed: Consumed[]; errors: string[]; exception?: string; traceback?: string }[] }>(
          'broker_group_mixed.py',
          { bootstrap: broker.bootstrap, steps: [{ op: 'members', topic, group, clients: ['confluent', 'kafka-python'], stopFile, timeoutS: 120 }] },
          { timeoutMs: 150_000 },
        );
        python.catch((e: unknown) => failures.push(e));
        const platformatic = platformaticGroup({ bootstrap: broker.bootstrap, topic, group, members: 1, stopFile, clientIdPrefix: 'mixed-platformatic' });
        platformatic.catch((e: unknown) => failures.push(e));
        const kafka = new Kafka({ clientId: 'mixed-kafkajs', brokers: [broker.bootstrap], logLevel: logLevel.NOTHING });
        const kjs = kafka.consumer({ groupId: group, sessionTimeout: 10000, rebalanceTimeout: 15000, heartbeatInterval: 300, maxWaitTimeInMs: 100, partitionAssigners: [roundRobinNamedLikeJava] });
        try {
          await kjs.connect();
          await kjs.subscribe({ topics: [topic], fromBeginning: true });
          // commit after every message (autoCommitThreshold 1), like the other members
          await kjs.run({ autoCommitThreshold: 1, eachMessage: async ({ partition, message }) => void consumed.push(['kafkajs', partition, Number(message.offset), message.value!.toString()]) });

          await waitFor('four clients to split eight partitions', async () => (alive(), isSplit(await describeGroup(broker, group, topic), 4, PARTITIONS)), 120_000);
          const d = await describeGroup(broker, group, topic);
          assert.equal(d.protocol, 'roundrobin');
          assert.deepEqual(d.members.map((m) => m.clientId.replace(/-\d+$/, '')).sort(), ['mixed-confluent', 'mixed-kafka-python', 'mixed-kafkajs', 'mixed-platformatic']);
          for (const m of d.members) assert.equal(m.partitions.length, 2, `${m.clientId} owns ${m.partitions}`);
          // CLIENT WORKAROUND (@platformatic/kafka 2.12.1, see groups-platformatic.test.ts): a
          // Fetch it sent before its last rejoin is still delivered; let those long polls end first.
          await sleep(1500);

          const expected = await produce(broker, topic, 0, 80, PARTITIONS);
          const ends = logEndOffsets(broker, topic, PARTITIONS);
          await waitFor('commits up to the log end', async () => (alive(), (await committedOffsets(broker, group, topic, PARTITIONS)).every((o, i) => o === ends[i])), 120_000);
          // the same generation throughout: nobody left or rejoined while consuming
          const after = await describeGroup(broker, group, topic);
          assert.deepEqual(after.members.map((m) => [m.memberId, m.partitions]), d.members.map((m) => [m.memberId, m.partitions]));

          writeFileSync(stopFile, '');
          await kjs.disconnect();
          const [py, pf] = await Promise.all([python, platformatic]);
          const step = py.results[0]!;
          assert.equal(step.exception, undefined, `${step.exception}\n${step.traceback}`);
          assert.deepEqual(step.errors, []);
          assert.deepEqual(pf.errors, []);
          const all: Consumed[] = [...consumed, ...step.consumed, ...pf.consumed.map(([, p, o, v]): Consumed => ['mixed-platformatic', p, o, v])];
          assertExactlyOnce(all, expected);
          // each client read only the partitions the group gave it
          const owner = new Map(d.members.flatMap((m) => m.partitions.map((p) => [p, m.clientId.replace(/^mixed-/, '').replace(/-\d+$/, '')] as const)));
          for (const [client, partition] of all) assert.equal(client.replace(/^mixed-/, ''), owner.get(partition), `partition ${partition}`);
          for (const client of ['kafkajs', 'confluent', 'kafka-python', 'platformatic']) assert.ok(all.some((c) => c[0].replace(/^mixed-/, '') === client), `${client} consumed nothing`);
        } finally {
          writeFileSync(stopFile, '');
          await kjs.disconnect().catch(() => undefined);
          await Promise.allSettled([python, platformatic]);
        }
      });
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
      rmSync(stopFile, { force: true });
    }
  });
});
