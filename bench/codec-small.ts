/**
 * `node dist/bench/codec-small.js` (issue 24): the codec's CPU for the messages of a small request,
 * in one process, back to back: decode of a Produce v9 request of one 100 B record, encode of its
 * answer, encode of a one-topic Metadata v12 answer. BENCH_CODEC_COUNT (300,000) of each per round,
 * BENCH_ROUNDS (5) rounds; prints each round's ns per message (process.cpuUsage) and the best
 * round's (the machine is shared: the best is the least disturbed).
 */
import { decodeMessage, encodeMessage } from '../src/protocol/codec.js';
import { Metadata } from '../src/protocol/schemas/metadata.js';
import { Produce } from '../src/protocol/schemas/produce.js';
import { encodeRecordBatch } from '../src/record/builder.js';

const N = Number(process.env.BENCH_CODEC_COUNT ?? 300_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);

const records = encodeRecordBatch([{ key: null, value: Buffer.alloc(100, 7) }]);
const request = Buffer.concat(encodeMessage(Produce.request, 9, { transactionalId: null, acks: -1, timeoutMs: 30000, topicData: [{ name: 'small-produce', partitionData: [{ index: 0, records }] }] }));
const produceAnswer = { responses: [{ name: 'small-produce', partitionResponses: [{ index: 0, errorCode: 0, baseOffset: 123456n, logAppendTimeMs: -1n, logStartOffset: 0n, recordErrors: [], errorMessage: null }] }], throttleTimeMs: 0 };
const metadataAnswer = {
  throttleTimeMs: 0,
  brokers: [{ nodeId: 0, host: 'localhost', port: 9092, rack: null }],
  clusterId: 'kafkalite-cluster',
  controllerId: 0,
  topics: [{ errorCode: 0, name: 'small-produce', topicId: Buffer.alloc(16, 1), isInternal: false, partitions: [{ errorCode: 0, partitionIndex: 0, leaderId: 0, leaderEpoch: 0, replicaNodes: [0], isrNodes: [0], offlineReplicas: [] }], topicAuthorizedOperations: -2147483648 }],
};

function nsPer(run: () => void): number {
  const t = process.cpuUsage();
  for (let i = 0; i < N; i++) run();
  const d = process.cpuUsage(t);
  return ((d.user + d.system) * 1000) / N;
}

const best = [Infinity, Infinity, Infinity];
for (let round = 1; round <= ROUNDS; round++) {
  const r = [
    nsPer(() => decodeMessage(Produce.request, 9, request, 0)),
    nsPer(() => encodeMessage(Produce.response, 9, produceAnswer)),
    nsPer(() => encodeMessage(Metadata.response, 12, metadataAnswer)),
  ];
  r.forEach((v, i) => (best[i] = Math.min(best[i]!, v)));
  console.log(`round ${round}: decode Produce v9 request ${r[0]!.toFixed(0)} ns, encode Produce v9 answer ${r[1]!.toFixed(0)} ns, encode Metadata v12 answer ${r[2]!.toFixed(0)} ns`);
}
console.log(`best: decode Produce v9 request ${best[0]!.toFixed(0)} ns, encode Produce v9 answer ${best[1]!.toFixed(0)} ns, encode Metadata v12 answer ${best[2]!.toFixed(0)} ns`);
