/**
 * `message.format.version` as Kafka 3.x honours it (issue: legacy message sets, item 5): a topic
 * pinned below 0.11 stores what producers send converted to magic 0 or 1, rejects idempotent,
 * transactional and header-carrying batches with UNSUPPORTED_FOR_MESSAGE_FORMAT, and fetches
 * return the data as stored. The stored bytes are checked by kafka-python, not by kafkalite.
 */
import assert from 'node:assert/strict';
import { errorName } from '../../src/protocol/error-codes.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { encodeRecordBatch, KafkaliteError } from '../../src/index.js';
import { DEFAULT_LOG_CONFIG, type LogConfig } from '../../src/storage/log-config.js';
import { PartitionLog } from '../../src/storage/partition-log.js';
import { runPython } from '../helpers/python-peer.js';

interface KpLegacyBatch {
  kind: string;
  magic: number;
  crcValid?: boolean;
  compressionType?: number;
  records: { offset: string; timestamp: string; key: string | null; value: string | null }[];
}

const dirs: string[] = [];
after(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

function openLog(config: Partial<LogConfig>): PartitionLog {
  const dir = mkdtempSync(join(tmpdir(), 'kafkalite-mfv-'));
  dirs.push(dir);
  return PartitionLog.open(dir, 't', 0, { config: { ...DEFAULT_LOG_CONFIG, ...config } });
}

const hex = (s: string) => Buffer.from(s).toString('hex');

describe('message.format.version below 0.11', () => {
  for (const [version, magic] of [
    ['0.10.2', 1],
    ['0.9.0', 0],
  ] as const) {
    for (const codec of ['none', 'gzip'] as const) {
      it(`${version}: a v2 ${codec} produce is stored and fetched as magic ${magic}`, () => {
        const log = openLog({ messageFormatVersion: version });
        const ts = Date.now() - 1000;
        log.append(encodeRecordBatch([{ key: 'a', value: 'one', timestamp: ts }], {}));
        log.append(
          encodeRecordBatch(
            [
              { key: 'b', value: 'two', timestamp: ts + 1 },
              { key: null, value: 'three', timestamp: ts + 2 },
            ],
            { compression: codec },
          ),
        );
        const fetched = log.read(0n, { maxBytes: 1 << 20 }).records;
        const [result] = runPython<{ results: { ok: boolean; batches: KpLegacyBatch[] }[] }>('kp_legacy_decode.py', {
          streams: [fetched.toString('hex')],
        }).results;
        assert.ok(result!.ok);
        const batches = result!.batches;
        assert.ok(batches.every((b) => b.kind === 'legacy' && b.magic === magic && b.crcValid !== false));
        const records = batches.flatMap((b) => b.records);
        assert.deepEqual(
          records.map((r) => [r.offset, r.key, r.value]),
          [
            ['0', hex('a'), hex('one')],
            ['1', hex('b'), hex('two')],
            ['2', null, hex('three')],
          ],
        );
        const expectTs = magic === 1 ? [ts, ts + 1, ts + 2].map(String) : ['-1', '-1', '-1'];
        assert.deepEqual(records.map((r) => r.timestamp), expectTs);
        if (codec === 'gzip') assert.ok(batches.some((b) => b.compressionType === 1), 'the compressed produce stays compressed');
        assert.equal(log.logEndOffset, 3n);
      });
    }
  }

  const refused: [string, Parameters<typeof encodeRecordBatch>][] = [
    ['an idempotent batch', [[{ value: 'x' }], { producerId: 5n, producerEpoch: 0, baseSequence: 0 }]],
    ['a transactional batch', [[{ value: 'x' }], { producerId: 5n, producerEpoch: 0, baseSequence: 0, isTransactional: true }]],
    ['a batch with headers', [[{ value: 'x', headers: [{ key: 'h', value: 'v' }] }], {}]],
  ];
  for (const [what, args] of refused) {
    it(`0.10.2: ${what} is refused with UNSUPPORTED_FOR_MESSAGE_FORMAT and nothing is written`, () => {
      const log = openLog({ messageFormatVersion: '0.10.2' });
      assert.throws(
        () => log.append(encodeRecordBatch(...args)),
        (err: unknown) => err instanceof KafkaliteError && err.code === 'UNSUPPORTED_FOR_MESSAGE_FORMAT' && errorName(err.kafkaErrorCode) === 'UNSUPPORTED_FOR_MESSAGE_FORMAT',
      );
      assert.equal(log.logEndOffset, 0n);
    });
  }

  it('the default (3.0-IV1) stores v2', () => {
    const log = openLog({});
    log.append(encodeRecordBatch([{ value: 'x', timestamp: Date.now() }], { producerId: 1n, producerEpoch: 0, baseSequence: 0 }));
    const [result] = runPython<{ results: { ok: boolean; batches: KpLegacyBatch[] }[] }>('kp_legacy_decode.py', {
      streams: [log.read(0n, { maxBytes: 1 << 20 }).records.toString('hex')],
    }).results;
    assert.equal(result!.batches[0]!.kind, 'v2');
  });
});
