/**
 * Real Kafka data directories (corpora/kafka-tester, three snapshots of a KRaft broker's
 * kraft-combined-logs): every partition is opened by kafkalite from a temporary copy and checked
 * against the raw files decoded independently (framing here, batches and records by kafka-python):
 * offsets, reads, offset-by-timestamp, the leader epochs; Kafka's own .index/.timeindex files are
 * checked against Kafka's append rule; then recovery is forced and the indexes kafkalite rebuilds
 * must equal Kafka's recovery rule (`LogSegment.recover`, `LogLoader`) computed here from the batches.
 */
import assert from 'node:assert/strict';
import { chmodSync, cpSync, existsSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { readOffsetCheckpoint } from '../../src/storage/checkpoint.js';
import { DEFAULT_LOG_CONFIG } from '../../src/storage/log-config.js';
import { LogManager } from '../../src/storage/log-manager.js';
import { PartitionLog } from '../../src/storage/partition-log.js';
import { CORPORA } from '../helpers/paths.js';
import { runPython } from '../helpers/python-peer.js';
import {
  appendRuleIndexes,
  encodeOffsetIndex,
  encodeTimeIndex,
  frameLog,
  readOffsetIndexFile,
  readTimeIndexFile,
  recoveryRuleIndexes,
  tempDir,
  type FramedBatch,
} from '../helpers/storage.js';

const ROOT = join(CORPORA, 'kafka-tester');
const SUBDIR = join('internal', 'test_helpers', 'pass_all', 'kraft-combined-logs');
const INTERVAL = DEFAULT_LOG_CONFIG.indexIntervalBytes; // Kafka's default, used by these brokers
const PARTITIONS = [
  { dir: 'foo-0', topic: 'foo' },
  { dir: '__cluster_metadata-0', topic: '__cluster_metadata' },
];

interface KpBatch {
  ok: boolean;
  error?: string;
  crcValid: boolean;
  header: { baseOffset: string; lastOffsetDelta: number; maxTimestamp: string; partitionLeaderEpoch: number; count: number };
  records: { offset: string; timestamp: string }[];
}

/** A batch as the test knows it: framing from the bytes, fields from kafka-python. */
interface Truth extends FramedBatch {
  records: { offset: bigint; timestamp: bigint }[];
  leaderEpoch: number;
}

function chmodTree(path: string): void {
  chmodSync(path, statSync(path).isDirectory() ? 0o755 : 0o644);
  if (statSync(path).isDirectory()) for (const n of readdirSync(path)) chmodTree(join(path, n));
}

function decodeLog(path: string): Truth[] {
  const raw = readFileSync(path);
  const framed = frameLog(raw);
  assert.equal(framed.reduce((n, b) => n + b.size, 0), raw.length, `${path}: the file is whole batches`);
  const { results } = runPython<{ results: KpBatch[] }>('kp_decode.py', { batches: framed.map((b) => b.bytes.toString('hex')) });
  return framed.map((b, i) => {
    const d = results[i]!;
    assert.ok(d.ok && d.crcValid, `kafka-python accepts batch ${i} of ${path}: ${d.error ?? ''}`);
    const base = BigInt(d.header.baseOffset);
    const t: Truth = {
      ...b,
      baseOffset: base,
      lastOffset: base + BigInt(d.header.lastOffsetDelta),
      maxTimestamp: BigInt(d.header.maxTimestamp),
      leaderEpoch: d.header.partitionLeaderEpoch,
      records: d.records.map((r) => ({ offset: BigInt(r.offset), timestamp: BigInt(r.timestamp) })),
    };
    // the framing read of the header agrees with kafka-python's
    assert.equal(b.lastOffset, t.lastOffset);
    assert.equal(b.maxTimestamp, t.maxTimestamp);
    return t;
  });
}

const versions = readdirSync(ROOT).filter((v) => v.startsWith('@')).sort();

describe('real Kafka data directories (kafka-tester corpora)', () => {
  it('has the three snapshots', () => {
    assert.equal(versions.length, 3, `versions: ${versions}`);
  });

  for (const version of versions) {
    describe(version, () => {
      const src = join(ROOT, version, SUBDIR);
      let tmp: { dir: string; cleanup: () => void };
      const fresh = (label: string) => {
        const dest = join(tmp.dir, label);
        cpSync(src, dest, { recursive: true });
        chmodTree(dest);
        return dest;
      };
      before(() => {
        tmp = tempDir('kafka-dir');
      });
      after(() => tmp.cleanup());

      for (const p of PARTITIONS) {
        describe(p.dir, () => {
          let truth: Truth[];
          let records: { offset: bigint; timestamp: bigint }[];
          const segLog = join(src, p.dir, '00000000000000000000.log');

          before(() => {
            truth = decodeLog(segLog);
            records = truth.flatMap((b) => b.records);
          });

          /** Checks an open log against the decoded batches. */
          function checkLog(log: PartitionLog): void {
            const leo = truth.at(-1)!.lastOffset + 1n;
            assert.equal(log.logEndOffset, leo);
            assert.equal(log.logStartOffset, 0n);
            assert.deepEqual(log.segmentBaseOffsets(), [0n]);
            // read(offset) for every offset: the batch holding it first, byte for byte
            for (const b of truth) {
              for (let o = b.baseOffset; o <= b.lastOffset; o++) {
                const r = log.read(o, { maxBytes: 1, minOneMessage: true });
                assert.deepEqual(r.records.subarray(0, b.size), b.bytes, `read(${o})`);
              }
            }
            // offset by timestamp for every record timestamp (and one past it)
            for (const t of new Set(records.map((r) => r.timestamp))) {
              for (const target of [t, t + 1n]) {
                const first = records.find((r) => r.timestamp >= target);
                const got = log.fetchOffsetByTimestamp(target);
                if (first === undefined) assert.equal(got, undefined, `ts ${target}`);
                else {
                  assert.equal(got?.offset, first.offset, `ts ${target}`);
                  assert.equal(got?.timestamp, first.timestamp);
                  const holder = truth.find((b) => b.baseOffset <= first.offset && first.offset <= b.lastOffset)!;
                  assert.equal(got?.leaderEpoch, holder.leaderEpoch);
                }
              }
            }
            const maxTs = truth.reduce((m, b) => (b.maxTimestamp > m ? b.maxTimestamp : m), -1n);
            const maxBatch = truth.find((b) => b.maxTimestamp === maxTs)!;
            const maxRecord = maxBatch.records.find((r) => r.timestamp === maxTs)!;
            assert.deepEqual(log.fetchOffsetByTimestamp(-3n), { timestamp: maxTs, offset: maxRecord.offset, leaderEpoch: maxBatch.leaderEpoch });
            // earliest carries the first epoch of the batches when it starts at the log start (UnifiedLog)
            const firstEpoch = truth.find((b) => b.leaderEpoch >= 0);
            assert.deepEqual(log.fetchOffsetByTimestamp(-2n), { timestamp: -1n, offset: 0n, ...(firstEpoch !== undefined && firstEpoch.baseOffset <= 0n ? { leaderEpoch: firstEpoch.leaderEpoch } : {}) });
            assert.deepEqual(log.fetchOffsetByTimestamp(-1n), { timestamp: -1n, offset: leo });
            // leader epochs: the first offset of each new epoch in the batches
            const epochs: { epoch: number; startOffset: bigint }[] = [];
            for (const b of truth) if (b.leaderEpoch >= 0 && (epochs.length === 0 || b.leaderEpoch > epochs.at(-1)!.epoch)) epochs.push({ epoch: b.leaderEpoch, startOffset: b.baseOffset });
            assert.deepEqual(log.leaderEpochCache.epochEntries().map((e) => ({ ...e })), epochs, 'leader epoch cache');
            assert.deepEqual(epochsOf(log), epochs, 'leader-epoch-checkpoint');
          }

          function openPartition(dataDir: string, clean: boolean, recoveryPoint?: bigint): PartitionLog {
            const cp = join(dataDir, 'log-start-offset-checkpoint');
            const ls = existsSync(cp) ? readOffsetCheckpoint(cp).find((e) => e.topic === p.topic)?.offset : undefined;
            return PartitionLog.open(join(dataDir, p.dir), p.topic, 0, {
              config: DEFAULT_LOG_CONFIG,
              hadCleanShutdown: clean,
              ...(recoveryPoint !== undefined ? { recoveryPoint } : {}),
              ...(ls !== undefined ? { logStartOffset: ls } : {}),
            });
          }

          it("Kafka's own .index/.timeindex (if any) are consistent with the .log under Kafka's rules", () => {
            const idx = join(src, p.dir, '00000000000000000000.index');
            const tix = join(src, p.dir, '00000000000000000000.timeindex');
            if (!existsSync(idx)) {
              assert.equal(version.startsWith('@HEAD'), true, 'only the HEAD snapshot ships without indexes');
              return;
            }
            const offsets = readOffsetIndexFile(idx, 0n);
            const times = readTimeIndexFile(tix, 0n);
            const starts = new Map(truth.map((b) => [b.position, b]));
            // offset index: batch starts, offset = that append's last offset (one batch per append here),
            // and more than index.interval.bytes after the previous entry (or the segment start)
            let prev = 0;
            let prevOffset = -1n;
            for (const e of offsets) {
              const b = starts.get(e.position);
              assert.ok(b, `offset entry ${e.offset} points at a batch start (${e.position})`);
              assert.equal(e.offset, b.lastOffset);
              assert.ok(e.position - prev > INTERVAL, `entry at ${e.position} is more than ${INTERVAL} bytes after ${prev}`);
              assert.ok(e.offset > prevOffset);
              prev = e.position;
              prevOffset = e.offset;
            }
            // time index: each entry is a running max (ts, shallow offset of the first batch reaching it),
            // strictly increasing; the last one (written at close) is the segment's max
            let prevTs = -1n;
            for (const e of times) {
              const holder = truth.find((b) => b.maxTimestamp >= e.timestamp)!;
              assert.ok(holder, `time entry ${e.timestamp}`);
              assert.equal(holder.maxTimestamp, e.timestamp, 'the first batch reaching the entry has exactly its timestamp');
              assert.equal(holder.lastOffset, e.offset, 'shallow offset = last offset of that batch');
              assert.ok(e.timestamp > prevTs);
              prevTs = e.timestamp;
            }
            const maxTs = truth.reduce((m, b) => (b.maxTimestamp > m ? b.maxTimestamp : m), -1n);
            assert.deepEqual(times.at(-1), { timestamp: maxTs, offset: truth.find((b) => b.maxTimestamp === maxTs)!.lastOffset });
            // a single-session log (no restart) matches the append rule exactly
            const expected = appendRuleIndexes(
              truth.map((b) => ({ size: b.size, largestOffset: b.lastOffset, maxTimestamp: b.maxTimestamp, shallowOffsetOfMaxTimestamp: b.lastOffset })),
              0n,
              INTERVAL,
            );
            const restarted = truth.some((b, i) => i > 0 && b.leaderEpoch !== truth[i - 1]!.leaderEpoch);
            if (!restarted) {
              assert.deepEqual(offsets, expected.offsets);
              assert.deepEqual(times, expected.times);
            }
          });

          it('kafkalite opens the copy as Kafka left it (clean shutdown marker honoured) and agrees with kafka-python', () => {
            const dataDir = fresh(`${p.dir}-as-is`);
            const clean = existsSync(join(dataDir, '.kafka_cleanshutdown'));
            const rpFile = join(dataDir, 'recovery-point-offset-checkpoint');
            const rp = existsSync(rpFile) ? readOffsetCheckpoint(rpFile).find((e) => e.topic === p.topic)?.offset : undefined;
            const before = Object.fromEntries(
              readdirSync(join(dataDir, p.dir))
                .filter((n) => /index$/.test(n))
                .map((n) => [n, readFileSync(join(dataDir, p.dir, n))]),
            );
            const log = openPartition(dataDir, clean, rp);
            try {
              assert.deepEqual(log.recoveryReports, []);
              checkLog(log);
            } finally {
              log.close();
            }
            // kafkalite leaves Kafka's index files as they were
            for (const [n, bytes] of Object.entries(before)) assert.deepEqual(readFileSync(join(dataDir, p.dir, n)), bytes, n);
            assert.deepEqual(readFileSync(join(dataDir, p.dir, '00000000000000000000.log')), readFileSync(segLog));
          });

          for (const variant of ['marker deleted', 'marker and index files deleted'] as const) {
            it(`forced recovery (${variant}): rebuilt indexes equal Kafka's recovery rule, data unchanged`, () => {
              const dataDir = fresh(`${p.dir}-${variant.replace(/ /g, '-')}`);
              rmSync(join(dataDir, '.kafka_cleanshutdown'), { force: true });
              if (variant !== 'marker deleted') {
                for (const n of readdirSync(join(dataDir, p.dir))) if (/index$/.test(n)) rmSync(join(dataDir, p.dir, n));
              }
              const log = openPartition(dataDir, false, 0n);
              try {
                assert.deepEqual(log.recoveryReports, [], 'nothing to truncate in a clean Kafka log');
                checkLog(log);
              } finally {
                log.close();
              }
              const expected = recoveryRuleIndexes(truth, 0n, INTERVAL);
              assert.deepEqual(readFileSync(join(dataDir, p.dir, '00000000000000000000.index')), encodeOffsetIndex(expected.offsets, 0n), '.index');
              assert.deepEqual(readFileSync(join(dataDir, p.dir, '00000000000000000000.timeindex')), encodeTimeIndex(expected.times, 0n), '.timeindex');
              assert.deepEqual(readFileSync(join(dataDir, p.dir, '00000000000000000000.log')), readFileSync(segLog));
            });
          }
        });
      }

      it('LogManager opens the directory: foo-0 loaded, meta.properties read, marker consumed', () => {
        const dataDir = fresh('manager');
        const hadMarker = existsSync(join(dataDir, '.kafka_cleanshutdown'));
        const m = LogManager.open(dataDir);
        try {
          assert.equal(m.hadCleanShutdown, hadMarker);
          assert.equal(existsSync(join(dataDir, '.kafka_cleanshutdown')), false);
          assert.equal(m.clusterId, 'rwd2jqiwRaCycLq7mKVHXA');
          const foo = m.getLog('foo', 0);
          assert.ok(foo);
          assert.equal(foo.logEndOffset, decodeLog(join(src, 'foo-0', '00000000000000000000.log')).at(-1)!.lastOffset + 1n);
        } finally {
          m.close();
        }
      });

      it('LogManager does not load __cluster_metadata-0 as a partition log (LogManager.loadLogs skips it)', () => {
        const m = LogManager.open(fresh('manager-metadata'));
        try {
          assert.equal(m.getLog('__cluster_metadata', 0), undefined);
        } finally {
          m.close();
        }
      });
    });
  }
});

/** The leader-epoch entries of a log, read back from its checkpoint file. */
function epochsOf(log: PartitionLog): { epoch: number; startOffset: bigint }[] {
  const text = readFileSync(log.leaderEpochCache.checkpointPath, 'utf8');
  if (text === '') return [];
  const lines = text.trimEnd().split('\n');
  return lines.slice(2).map((l) => {
    const [e, o] = l.split(' ');
    return { epoch: Number(e), startOffset: BigInt(o!) };
  });
}
