/**
 * Hostile bytes in every metadata file: mutated copies of valid files (byte flips, inserted
 * separators/escapes/digits, truncation, duplication) must either parse or fail with a typed
 * KafkaliteError, never crash with anything else. Deterministic (seeded) so failures replay.
 */
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { closeSync, ftruncateSync, mkdirSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KafkaliteError } from '../../src/errors.js';
import { readLeaderEpochCheckpoint, readOffsetCheckpoint } from '../../src/storage/checkpoint.js';
import { readCleanShutdownFile } from '../../src/storage/clean-shutdown.js';
import { LeaderEpochFileCache } from '../../src/storage/leader-epoch-cache.js';
import { readMetaProperties } from '../../src/storage/meta-properties.js';
import { readPartitionMetadata } from '../../src/storage/partition-metadata.js';
import { parseTopicPartitionName } from '../../src/storage/topic.js';
import { parseUuid } from '../../src/storage/uuid.js';
import { tierCount } from '../helpers/tier.js';

/** Mutated inputs per reader (per seed for the names); the unit tier (test/tiers.ts) runs a third. */
const MUTATIONS = tierCount(3000, 1000);
const NAME_MUTATIONS = tierCount(2000, 700);

const dir = mkdtempSync(join(tmpdir(), 'kafkalite-meta-fuzz-'));

/**
 * Rewrites a file in place through a descriptor kept open. writeFileSync's open(O_TRUNC) + close
 * makes ext4 start writeback at every close (its auto_da_alloc for replace-via-truncate): ~2 ms
 * each, most of this file's time over its thousands of rewrites.
 */
const open = new Map<string, number>();
function rewrite(path: string, bytes: Buffer): void {
  let fd = open.get(path);
  if (fd === undefined) open.set(path, (fd = openSync(path, 'w')));
  ftruncateSync(fd, 0);
  writeSync(fd, bytes, 0, bytes.length, 0);
}
after(() => {
  for (const fd of open.values()) closeSync(fd);
  rmSync(dir, { recursive: true, force: true });
});

/** xorshift32: small, seeded, reproducible. */
function rng(seed: number): () => number {
  let x = seed >>> 0 || 1;
  return () => {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    return x / 0x100000000;
  };
}

const SPICE = ['\n', '\r', '\r\n', ' ', '\t', ':', '=', '\\', '\\u', '#', '!', '-', '.', '0', '9', '-1', '+', '"', '{', '}', '[', '\xff', '\ufeff', '\0', '/', '..', '9223372036854775808', '2147483648'];

function mutate(seed: Buffer, r: () => number): Buffer {
  let b = Buffer.from(seed);
  const steps = 1 + Math.floor(r() * 4);
  for (let s = 0; s < steps; s++) {
    const at = Math.floor(r() * (b.length + 1));
    switch (Math.floor(r() * 5)) {
      case 0:
        if (b.length > 0) b[Math.min(at, b.length - 1)] = Math.floor(r() * 256);
        break;
      case 1: {
        const spice = Buffer.from(SPICE[Math.floor(r() * SPICE.length)]!, 'latin1');
        b = Buffer.concat([b.subarray(0, at), spice, b.subarray(at)]);
        break;
      }
      case 2:
        b = b.subarray(0, at);
        break;
      case 3:
        b = Buffer.concat([b.subarray(0, at), b.subarray(Math.min(b.length, at + 1 + Math.floor(r() * 4)))]);
        break;
      default:
        b = Buffer.concat([b, b.subarray(at)]);
    }
  }
  return b;
}

function total(label: string, input: Buffer, fn: () => unknown): void {
  try {
    fn();
  } catch (e) {
    if (!(e instanceof KafkaliteError)) {
      assert.fail(`${label}: untyped ${String(e)} for input ${JSON.stringify(input.toString('latin1'))}`);
    }
  }
}

const SEEDS: [string, string, (path: string) => unknown][] = [
  ['offset checkpoint', '0\n2\nfoo 0 1\n__consumer_offsets 49 123\n', readOffsetCheckpoint],
  ['epoch checkpoint', '0\n2\n0 0\n2 81\n', readLeaderEpochCheckpoint],
  ['epoch cache', '0\n3\n0 0\n2 81\n5 90\n', (p) => new LeaderEpochFileCache(p)],
  ['partition.metadata', 'version: 0\ntopic_id: v9meXjI1RVKB-NSvF0GXDA', readPartitionMetadata],
  ['meta.properties', '#\n#Mon Sep 02 15:43:32 IST 2024\ncluster.id=rwd2jqiwRaCycLq7mKVHXA\ndirectory.id=AiSXPLrdRM-HREWplhnaNA\nnode.id=1\nversion=1\n', readMetaProperties],
];

describe('metadata readers under hostile bytes', () => {
  for (const [label, seedText, read] of SEEDS) {
    test(`${label} (${MUTATIONS} mutations)`, () => {
      const r = rng(0x5eed + label.length);
      const seed = Buffer.from(seedText, 'latin1');
      for (let i = 0; i < MUTATIONS; i++) {
        const input = mutate(seed, r);
        const path = join(dir, `f-${label.replace(/\W/g, '_')}`);
        rewrite(path, input);
        total(`${label} #${i}`, input, () => read(path));
      }
    });
  }

  test(`.kafka_cleanshutdown never throws (${MUTATIONS} mutations)`, () => {
    const r = rng(77);
    const logDir = join(dir, 'logdir');
    mkdirSync(logDir);
    for (let i = 0; i < MUTATIONS; i++) {
      const input = mutate(Buffer.from('{"version":0,"brokerEpoch":83,"x":[{"y":"z"}]}'), r);
      rewrite(join(logDir, '.kafka_cleanshutdown'), input);
      const result = readCleanShutdownFile(logDir);
      assert.ok(result === undefined || typeof result.brokerEpoch === 'bigint');
    }
  });

  test(`directory names and uuids (${NAME_MUTATIONS} mutations per seed)`, () => {
    const r = rng(99);
    for (const seedText of ['foo.bar-testtopic-42.0123456789abcdef0123456789abcdef-delete', 'foo-0', 'x-1.abc-future', 'AiSXPLrdRM-HREWplhnaNA']) {
      for (let i = 0; i < NAME_MUTATIONS; i++) {
        const input = mutate(Buffer.from(seedText, 'latin1'), r);
        const text = input.toString('latin1');
        total('dir name', input, () => {
          const parsed = parseTopicPartitionName(text);
          assert.ok(Number.isInteger(parsed.partition) && parsed.partition >= 0 && parsed.topic.length > 0);
          assert.ok(!parsed.topic.includes('/'));
        });
        total('uuid', input, () => assert.equal(parseUuid(text).length, 16));
      }
    }
  });
});
