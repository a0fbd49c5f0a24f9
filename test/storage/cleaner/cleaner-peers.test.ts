/**
 * The cleaner on batches written by real clients (issue 6): kafka-python's own batch builder
 * (`DefaultRecordBatchBuilder`, kp_build.py) and librdkafka's producer (confluent-kafka-python
 * against librdkafka's mock cluster, fetched raw by rdkafka_produce_fetch.py), in every codec, with
 * keys, tombstones, headers and idempotent producers. Their batches are appended byte for byte
 * (replication origin, offsets as the peer's broker assigned them) to a compacted log, which is
 * compacted twice: once right away (tombstones stay and get a delete horizon), and once after more
 * data and delete.retention.ms (tombstones past their horizon go).
 *
 * kafka-python decodes the input and every cleaned batch (kp_decode.py: CRC checked, every record
 * iterated with its own codecs). The expected survivors come from kafka-python's decode of the
 * input: the latest record of each key, minus expired tombstones; batches keep their producer
 * fields, codec and last offset (`MemoryRecords.filterTo`).
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { runPython } from '../../helpers/python-peer.js';
import { frameLog, tempDir } from '../../helpers/storage.js';
import { compactConfig, openHarness, T0, type Harness } from './harness.js';

const CODECS = ['none', 'gzip', 'snappy', 'lz4', 'zstd'] as const;
type Codec = (typeof CODECS)[number];
const KEYS = 24;
const MESSAGES = 600;
const DELETE_RETENTION_MS = 60_000;

interface Message {
  key: string;
  value: string | null;
  headers: [string, string | null][] | null;
  timestamp: string;
}

/** Deterministic workload: repeated keys, ~12% tombstones, some headers, varied value sizes. */
function messages(seed: number): Message[] {
  let x = seed >>> 0 || 1;
  const next = () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) / 2 ** 32;
  };
  return Array.from({ length: MESSAGES }, (_, i) => {
    // one key is written then deleted early on, so round 1 always has a latest tombstone to keep
    const key = Buffer.from(i === 5 || i === 10 ? 'deleted-key' : `key-${Math.floor(next() * KEYS)}`).toString('hex');
    const tombstone = i === 10 || (i !== 5 && next() < 0.12);
    const value = tombstone ? null : Buffer.from(`value-${i}-${'x'.repeat(Math.floor(next() * 60))}`).toString('hex');
    const headers: Message['headers'] = next() < 0.2 ? [['h', Buffer.from(`hv${i}`).toString('hex')], ['n', null]] : null;
    return { key, value, headers, timestamp: String(T0 + i) };
  });
}

interface Decoded {
  ok: boolean;
  error?: string;
  crcValid: boolean;
  header: {
    baseOffset: string;
    compressionType: number;
    isTransactional: boolean;
    isControl: boolean;
    lastOffsetDelta: number;
    producerId: string;
    producerEpoch: number;
    baseSequence: number;
    count: number;
  };
  records: { offset: string; key: string | null; value: string | null; headers: [string, string | null][] }[];
}

function kpDecode(batches: readonly Buffer[]): Decoded[] {
  const out = runPython<{ results: Decoded[] }>('kp_decode.py', { batches: batches.map((b) => b.toString('hex')) });
  return out.results;
}

/** Splits raw fetched chunks / file bytes into whole batches (framing only). */
const batchesOf = (data: Buffer): Buffer[] => frameLog(data).map((b) => Buffer.from(b.bytes));

interface PeerLog {
  name: string;
  codec: Codec;
  idempotent: boolean;
  /** The peer's batches, offsets assigned from 0 as its broker would. */
  batches: Buffer[];
}

/** kafka-python's DefaultRecordBatchBuilder, 20-40 records a batch; odd seeds use a producer id. */
function kafkaPythonLogs(): PeerLog[] {
  const cases: unknown[] = [];
  const meta: { codec: Codec; idempotent: boolean; case: number }[] = [];
  CODECS.forEach((codec, c) => {
    for (const idempotent of [false, true]) {
      const msgs = messages(1000 + c * 2 + (idempotent ? 1 : 0));
      let offset = 0;
      const first = cases.length;
      while (offset < msgs.length) {
        const n = Math.min(20 + ((offset * 7) % 21), msgs.length - offset);
        const slice = msgs.slice(offset, offset + n);
        cases.push({
          codec,
          producerId: idempotent ? String(4000 + c) : '-1',
          producerEpoch: idempotent ? 2 : -1,
          baseSequence: idempotent ? offset : -1,
          transactional: false,
          baseOffset: String(offset),
          partitionLeaderEpoch: 0,
          records: slice.map((m, i) => ({ offsetDelta: i, timestamp: m.timestamp, key: m.key, value: m.value, headers: m.headers ?? [] })),
        });
        offset += n;
      }
      meta.push({ codec, idempotent, case: first });
      meta.push({ codec, idempotent, case: cases.length });
    }
  });
  const built = runPython<{ batches: { hex: string }[] }>('kp_build.py', { cases }).batches.map((b) => Buffer.from(b.hex, 'hex'));
  const logs: PeerLog[] = [];
  for (let i = 0; i < meta.length; i += 2) {
    const { codec, idempotent } = meta[i]!;
    logs.push({ name: `kafka-python ${codec}${idempotent ? ' idempotent' : ''}`, codec, idempotent, batches: built.slice(meta[i]!.case, meta[i + 1]!.case) });
  }
  return logs;
}

/** librdkafka's producer (mock cluster), flushed every 25 messages so batches stay small. */
function librdkafkaLogs(): PeerLog[] {
  const cases = CODECS.flatMap((codec, c) =>
    [false, true].map((idempotent) => ({
      name: `librdkafka ${codec}${idempotent ? ' idempotent' : ''}`,
      topic: `cleaner-${codec}-${idempotent ? 'idem' : 'plain'}`,
      config: { 'compression.codec': codec, ...(idempotent ? { 'enable.idempotence': true } : {}) },
      flushEvery: 25,
      messages: messages(2000 + c * 2 + (idempotent ? 1 : 0)),
      codec,
      idempotent,
    })),
  );
  const out = runPython<{ results: { name: string; chunks: string[]; deliveryErrors: string[] }[] }>(
    'rdkafka_produce_fetch.py',
    { cases: cases.map(({ codec: _c, idempotent: _i, ...c }) => c) },
    { timeoutMs: 180_000 },
  );
  return cases.map((c) => {
    const r = out.results.find((x) => x.name === c.name);
    assert.ok(r, `no librdkafka result for ${c.name}`);
    assert.deepEqual(r.deliveryErrors, [], c.name);
    return { name: c.name, codec: c.codec, idempotent: c.idempotent, batches: r.chunks.flatMap((h) => batchesOf(Buffer.from(h, 'hex'))) };
  });
}

interface Rec {
  offset: bigint;
  key: string | null;
  value: string | null;
  headers: [string, string | null][];
}

/** The records a compaction must keep (`Cleaner.shouldRetainRecord`): each key's latest, tombstones while young. */
function expectedSurvivors(input: readonly Rec[], expiredTombstoneBelow: bigint): Rec[] {
  const latest = new Map<string | null, Rec>();
  for (const r of input) latest.set(r.key, r);
  return [...latest.values()]
    .filter((r) => r.key !== null && (r.value !== null || r.offset >= expiredTombstoneBelow))
    .sort((a, b) => (a.offset < b.offset ? -1 : 1));
}

const recordsOf = (decoded: readonly Decoded[]): Rec[] =>
  decoded.flatMap((d) => (d.header.isControl ? [] : d.records.map((r) => ({ offset: BigInt(r.offset), key: r.key, value: r.value, headers: r.headers }))));

function compactAndCheck(peer: PeerLog): void {
  const { dir, cleanup } = tempDir('kafkalite-cleaner-peers-');
  const h: Harness = openHarness(dir, compactConfig({ segmentBytes: 16 * 1024, deleteRetentionMs: DELETE_RETENTION_MS }), { ioBufferSize: 8 * 1024 });
  try {
    const inputDecoded = kpDecode(peer.batches);
    for (const d of inputDecoded) assert.ok(d.ok && d.crcValid, `${peer.name}: kafka-python rejects an input batch: ${d.error}`);
    const compressed = inputDecoded.filter((d) => d.header.compressionType !== 0).length;
    if (peer.codec !== 'none') assert.ok(compressed > inputDecoded.length / 2, `${peer.name}: only ${compressed} of ${inputDecoded.length} batches compressed`);
    const input = recordsOf(inputDecoded);
    assert.equal(input.length, MESSAGES, peer.name);
    assert.ok(input.some((r) => r.value === null), `${peer.name}: no tombstones in the workload`);
    const originals = new Map(inputDecoded.map((d) => [d.header.baseOffset, d.header]));

    const half = Math.floor(peer.batches.length / 2);
    const partitionDir = join(dir, 't-0');
    const round = (batches: readonly Buffer[], inputSoFar: readonly Rec[], expiredBelow: bigint, label: string) => {
      for (const b of batches) h.log.append(b, { origin: 'replication' });
      h.log.roll();
      const result = h.cleaner.compact(h.log);
      assert.ok(result, `${peer.name} ${label}: nothing was cleaned`);
      const files = readdirSync(partitionDir).filter((n) => n.endsWith('.log')).sort();
      const cleaned = files.flatMap((n) => batchesOf(readFileSync(join(partitionDir, n))));
      const decoded = kpDecode(cleaned);
      decoded.forEach((d, i) => {
        assert.equal(d.ok, true, `${peer.name} ${label}: kafka-python cannot decode cleaned batch ${i}: ${d.error}`);
        assert.equal(d.crcValid, true, `${peer.name} ${label}: CRC of cleaned batch at ${d.header.baseOffset}`);
        const original = originals.get(d.header.baseOffset);
        assert.ok(original, `${peer.name} ${label}: cleaned batch at ${d.header.baseOffset} starts no input batch`);
        // same producer, codec and last offset (so the last sequence) as the batch it came from
        for (const f of ['producerId', 'producerEpoch', 'baseSequence', 'lastOffsetDelta', 'isTransactional'] as const) {
          assert.equal(d.header[f], original[f], `${peer.name} ${label}: ${f} of batch ${d.header.baseOffset}`);
        }
        if (d.header.count > 0) assert.equal(d.header.compressionType, original.compressionType, `${peer.name} ${label}: codec of batch ${d.header.baseOffset}`);
      });
      assert.deepEqual(recordsOf(decoded), expectedSurvivors(inputSoFar, expiredBelow), `${peer.name} ${label}: surviving records`);
      return decoded;
    };

    const firstInput = recordsOf(inputDecoded.slice(0, half));
    const first = round(peer.batches.slice(0, half), firstInput, 0n, 'round 1');
    assert.ok(recordsOf(first).length < firstInput.length, `${peer.name}: round 1 removed nothing`);
    assert.ok(recordsOf(first).some((r) => r.value === null), `${peer.name}: round 1 kept no tombstone (its horizon has not passed)`);
    if (peer.idempotent) {
      // the producer's last batch stays (possibly empty) so its sequence survives
      const last = inputDecoded[half - 1]!.header;
      assert.ok(first.some((d) => d.header.baseOffset === last.baseOffset), `${peer.name}: the producer's last batch was removed`);
    }
    // past delete.retention.ms, round 2 drops the tombstones round 1 stamped with a horizon
    h.clock.now += DELETE_RETENTION_MS + 1;
    const secondStart = BigInt(inputDecoded[half]!.header.baseOffset);
    round(peer.batches.slice(half), input, secondStart, 'round 2');
  } finally {
    h.log.close();
    cleanup();
  }
}

describe('cleaner on peer-written logs (kafka-python, librdkafka)', () => {
  let peers: PeerLog[] = [];
  before(() => {
    peers = [...kafkaPythonLogs(), ...librdkafkaLogs()];
  });
  after(() => {
    peers = [];
  });

  for (const producer of ['kafka-python', 'librdkafka']) {
    for (const codec of CODECS) {
      for (const idempotent of [false, true]) {
        const name = `${producer} ${codec}${idempotent ? ' idempotent' : ''}`;
        test(`${name}: compacts twice; kafka-python decodes every cleaned batch with a valid CRC and the expected records`, () => {
          const peer = peers.find((p) => p.name === name);
          assert.ok(peer, `no log for ${name}`);
          compactAndCheck(peer);
        });
      }
    }
  }
});
