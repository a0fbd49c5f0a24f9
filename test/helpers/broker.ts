/** Starting a broker for a test, and reading what it stored, straight from its data directory. */
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Broker, type BrokerOptions } from '../../src/broker/broker.js';
import { formatProblem, verifyPath } from '../../src/cli/verify.js';
import { readRecordBatches } from '../../src/record/batches.js';
import { partitionDirName } from '../../src/storage/topic.js';
import { segmentBytes } from './storage.js';

/**
 * Runs `body` against a broker started for it. Without a data dir of the caller's, the broker gets
 * a fresh one, and once the body has passed and the broker has shut down, `kafkalite verify`'s
 * checks must find that directory clean (CRCs, offsets, indexes, checkpoints, snapshots): every
 * broker test also proves it leaves a log directory Kafka could open.
 */
export async function withBroker<T>(options: BrokerOptions, body: (broker: Broker) => Promise<T>): Promise<T> {
  const ownDir = options.dataDir === undefined ? mkdtempSync(join(tmpdir(), 'kafkalite-test-')) : undefined;
  const broker = await Broker.start({ logLevel: process.env.KAFKALITE_TEST_LOG === '1' ? 'debug' : 'silent', ...options, ...(ownDir ? { dataDir: ownDir } : {}) });
  let passed = false;
  try {
    const result = await body(broker);
    passed = true;
    return result;
  } finally {
    await broker.close();
    if (ownDir !== undefined) {
      try {
        if (passed) {
          const report = verifyPath(ownDir);
          const errors = report.problems.filter((p) => p.severity === 'error').map(formatProblem);
          assert.deepEqual(errors, [], `kafkalite verify on the broker's data dir ${ownDir}`);
        }
      } finally {
        rmSync(ownDir, { recursive: true, force: true });
      }
    }
  }
}

export interface StoredRecord {
  offset: bigint;
  timestamp: bigint;
  key: Buffer | null;
  value: Buffer | null;
  headers: { key: string; value: Buffer | null }[];
}

export interface StoredBatch {
  baseOffset: bigint;
  lastOffset: bigint;
  compression: number;
  producerId: bigint;
  isControl: boolean;
  records: StoredRecord[];
}

/**
 * Every batch of a partition as stored in its segment files (read from disk with the record
 * codec, CRCs checked), for comparing what a client produced with what landed in the log.
 */
export function storedBatches(dataDir: string, topic: string, partition: number): StoredBatch[] {
  const dir = join(dataDir, partitionDirName(topic, partition));
  const out: StoredBatch[] = [];
  for (const f of readdirSync(dir).filter((n) => n.endsWith('.log')).sort()) {
    const reader = readRecordBatches(segmentBytes(join(dir, f)), { verifyCrc: true });
    for (let b = reader.nextBatch(); b !== null; b = reader.nextBatch()) {
      if (b.kind !== 'v2') throw new Error(`unexpected legacy batch in ${f}`);
      const records: StoredRecord[] = [];
      for (const r of b.records({ verifyCrc: false })) {
        records.push({
          offset: r.offset,
          timestamp: r.timestamp,
          key: r.key === null ? null : Buffer.from(r.key),
          value: r.value === null ? null : Buffer.from(r.value),
          headers: r.headers.map((h) => ({ key: h.key, value: h.value === null ? null : Buffer.from(h.value) })),
        });
      }
      out.push({ baseOffset: b.baseOffset, lastOffset: b.lastOffset, compression: b.compressionType, producerId: b.producerId, isControl: b.isControl, records });
    }
  }
  return out;
}

export function storedRecords(dataDir: string, topic: string, partition: number): StoredRecord[] {
  return storedBatches(dataDir, topic, partition).flatMap((b) => (b.isControl ? [] : b.records));
}
