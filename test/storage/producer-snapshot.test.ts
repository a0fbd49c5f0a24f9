/**
 * Producer-state snapshot files (Kafka `ProducerStateManager.writeSnapshot`, ProducerSnapshot.json):
 * a hand-computed worked example, the real
 * snapshots a Kafka 4.0 broker wrote into the kafka-tester corpus (decoded from their raw bytes
 * independently here, then re-encoded byte for byte), and every kind of corruption Kafka's
 * `readSnapshot` turns into CorruptSnapshotException (here StorageError with a position).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { InvalidArgumentError, StorageError } from '../../src/errors.js';
import { crc32c } from '../../src/record/crc.js';
import {
  decodeProducerSnapshot,
  encodeProducerSnapshot,
  readProducerSnapshot,
  writeProducerSnapshot,
  type ProducerSnapshotEntry,
} from '../../src/storage/producer-snapshot.js';
import { CORPORA } from '../helpers/paths.js';

const hex = (s: string) => Buffer.from(s.replace(/\s+/g, ''), 'hex');

/** Hand-computed: pid 1000, epoch 5, lastSeq 9, lastOffset 42, offsetDelta 9, no transaction. */
const EXAMPLE_6 = hex(
  '0001 90643924 00000001 00000000000003e8 0005 00000009 000000000000002a 00000009 0000018bcfe56800 ffffffff ffffffffffffffff',
);
const EXAMPLE_6_ENTRY: ProducerSnapshotEntry = {
  producerId: 1000n,
  producerEpoch: 5,
  lastSequence: 9,
  lastOffset: 42n,
  offsetDelta: 9,
  timestamp: 1700000000000n,
  coordinatorEpoch: -1,
  currentTxnFirstOffset: -1n,
};
const EMPTY = hex('0001 48674bc7 00000000');

function findFiles(dir: string, suffix: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) findFiles(p, suffix, out);
    else if (name.endsWith(suffix)) out.push(p);
  }
  return out;
}

/** Independent reading of the ProducerSnapshot.json layout, field by field at fixed offsets. */
function rawEntries(bytes: Buffer): ProducerSnapshotEntry[] {
  const n = bytes.readInt32BE(6);
  return Array.from({ length: n }, (_, i) => {
    const b = 10 + 46 * i;
    return {
      producerId: bytes.readBigInt64BE(b),
      producerEpoch: bytes.readInt16BE(b + 8),
      lastSequence: bytes.readInt32BE(b + 10),
      lastOffset: bytes.readBigInt64BE(b + 14),
      offsetDelta: bytes.readInt32BE(b + 22),
      timestamp: bytes.readBigInt64BE(b + 26),
      coordinatorEpoch: bytes.readInt32BE(b + 34),
      currentTxnFirstOffset: bytes.readBigInt64BE(b + 38),
    };
  });
}

function assertStorageError(fn: () => unknown, message: RegExp, position: number): void {
  assert.throws(fn, (e: unknown) => {
    assert.ok(e instanceof StorageError, `expected StorageError, got ${String(e)}`);
    assert.equal(e.code, 'STORAGE_ERROR');
    assert.match(e.message, message);
    assert.equal(e.position, position);
    return true;
  });
}

describe('producer snapshot: the hand-computed example', () => {
  it('encodes one entry to the 56 worked bytes', () => {
    assert.deepEqual(encodeProducerSnapshot([EXAMPLE_6_ENTRY]), EXAMPLE_6);
  });
  it('decodes the worked bytes', () => {
    assert.deepEqual(decodeProducerSnapshot(EXAMPLE_6), [EXAMPLE_6_ENTRY]);
  });
  it('encodes and decodes the 10-byte empty snapshot', () => {
    assert.deepEqual(encodeProducerSnapshot([]), EMPTY);
    assert.deepEqual(decodeProducerSnapshot(EMPTY), []);
  });
  it('round-trips many entries with extreme field values', () => {
    const entries: ProducerSnapshotEntry[] = [
      EXAMPLE_6_ENTRY,
      {
        producerId: (1n << 63n) - 1n,
        producerEpoch: 32767,
        lastSequence: 2147483647,
        lastOffset: -1n,
        offsetDelta: 0,
        timestamp: -(1n << 63n),
        coordinatorEpoch: 2147483647,
        currentTxnFirstOffset: 77n,
      },
      {
        producerId: -1n,
        producerEpoch: -32768,
        lastSequence: -2147483648,
        lastOffset: 0n,
        offsetDelta: -2147483648,
        timestamp: 0n,
        coordinatorEpoch: -2147483648,
        currentTxnFirstOffset: -1n,
      },
    ];
    const bytes = encodeProducerSnapshot(entries);
    assert.equal(bytes.length, 10 + 46 * 3);
    assert.deepEqual(rawEntries(bytes), entries);
    assert.deepEqual(decodeProducerSnapshot(bytes), entries);
  });
  it('refuses fields outside their Java types', () => {
    const bad = (patch: Partial<ProducerSnapshotEntry>) => () => encodeProducerSnapshot([{ ...EXAMPLE_6_ENTRY, ...patch }]);
    assert.throws(bad({ producerEpoch: 32768 }), InvalidArgumentError);
    assert.throws(bad({ lastSequence: 2 ** 31 }), InvalidArgumentError);
    assert.throws(bad({ offsetDelta: 1.5 }), InvalidArgumentError);
    assert.throws(bad({ coordinatorEpoch: -(2 ** 31) - 1 }), InvalidArgumentError);
    assert.throws(bad({ producerId: 1n << 63n }), InvalidArgumentError);
    assert.throws(bad({ currentTxnFirstOffset: -(1n << 63n) - 1n }), InvalidArgumentError);
  });
});

describe('producer snapshot: real Kafka 4.0 snapshots (kafka-tester corpus)', () => {
  const files = findFiles(join(CORPORA, 'kafka-tester'), '.snapshot').sort();

  it('finds the 56-byte foo-0 snapshots and the 10-byte empty ones', () => {
    const sizes = files.map((f) => statSync(f).size);
    assert.ok(files.length >= 5, `found ${files.length} snapshots`);
    assert.ok(sizes.includes(56));
    assert.ok(sizes.includes(10));
    assert.ok(sizes.every((s) => s === 10 || s === 56));
  });

  for (const file of files) {
    it(`decodes and re-encodes ${file.slice(CORPORA.length + 1)} byte for byte`, () => {
      const bytes = readFileSync(file);
      const entries = readProducerSnapshot(file);
      assert.deepEqual(entries, rawEntries(bytes));
      assert.deepEqual(decodeProducerSnapshot(bytes), entries);
      assert.deepEqual(encodeProducerSnapshot(entries), bytes);
      if (bytes.length === 10) assert.deepEqual(entries, []);
    });
  }

  it('reads the idempotent producer of foo-0 (3 records m1..m3, last batch seq 2 at offset 2)', () => {
    const file = files.find((f) => f.includes('@e856b9a') && f.endsWith('foo-0/00000000000000000003.snapshot'));
    assert.ok(file);
    const [e, ...rest] = readProducerSnapshot(file);
    assert.equal(rest.length, 0);
    assert.equal(e!.producerId, 0n);
    assert.equal(e!.producerEpoch, 0);
    assert.equal(e!.lastSequence, 2);
    assert.equal(e!.lastOffset, 2n);
    assert.equal(e!.offsetDelta, 0);
    assert.equal(e!.coordinatorEpoch, -1);
    assert.equal(e!.currentTxnFirstOffset, -1n);
    assert.equal(e!.timestamp, readFileSync(file).readBigInt64BE(10 + 26));
  });
});

describe('producer snapshot: corruption is a StorageError with a position', () => {
  it('empty file and a header cut short', () => {
    assertStorageError(() => decodeProducerSnapshot(Buffer.alloc(0)), /shorter than the 10-byte header/, 0);
    assertStorageError(() => decodeProducerSnapshot(EMPTY.subarray(0, 9)), /shorter than the 10-byte header/, 9);
  });
  it('unknown versions', () => {
    for (const v of [0, 2, -1, 0x100]) {
      const b = Buffer.from(EXAMPLE_6);
      b.writeInt16BE(v, 0);
      assertStorageError(() => decodeProducerSnapshot(b), new RegExp(`unknown file version ${v}`), 0);
    }
  });
  it('a truncated entry', () => {
    for (const len of [11, 30, 55]) {
      assertStorageError(() => decodeProducerSnapshot(EXAMPLE_6.subarray(0, len)), /entry count 1 needs 46 bytes/, 10);
    }
  });
  it('trailing bytes after the entries', () => {
    const b = Buffer.concat([EXAMPLE_6, Buffer.alloc(3)]);
    assertStorageError(() => decodeProducerSnapshot(b), /3 trailing bytes/, 56);
    const whole = Buffer.concat([EMPTY, EXAMPLE_6.subarray(10)]); // an entry the count does not cover
    assertStorageError(() => decodeProducerSnapshot(whole), /46 trailing bytes after its 0 entries/, 10);
  });
  it('count mismatch: larger than the entries present, negative, huge (no allocation by count)', () => {
    const more = Buffer.from(EXAMPLE_6);
    more.writeInt32BE(2, 6);
    assertStorageError(() => decodeProducerSnapshot(more), /entry count 2 needs 92 bytes of entries but only 46 remain/, 56);
    const negative = Buffer.from(EXAMPLE_6);
    negative.writeInt32BE(-1, 6);
    assertStorageError(() => decodeProducerSnapshot(negative), /entry count -1 cannot be negative/, 6);
    const huge = Buffer.from(EMPTY);
    huge.writeInt32BE(0x7fffffff, 6);
    assertStorageError(() => decodeProducerSnapshot(huge), /entry count 2147483647/, 10);
  });
  it('CRC mismatch: a flipped bit anywhere in [6, end) or in the stored CRC', () => {
    for (const at of [2, 5, 6, 9, 10, 20, 55]) {
      const b = Buffer.from(EXAMPLE_6);
      b[at]! ^= 0x10;
      if (at >= 6 && at < 10) continue; // the count: reported as a count mismatch instead
      assertStorageError(() => decodeProducerSnapshot(b), /Snapshot is corrupt \(CRC is no longer valid\)\. Stored crc: \d+\. Computed crc: \d+/, 2);
    }
    const b = Buffer.from(EXAMPLE_6);
    b.writeUInt32BE(0x90643925, 2);
    assertStorageError(() => decodeProducerSnapshot(b), /Stored crc: 2422487333\. Computed crc: 2422487332/, 2);
  });
  it('the CRC covers exactly [6, end): a body edit with a recomputed CRC decodes', () => {
    const b = Buffer.from(EXAMPLE_6);
    b.writeInt32BE(7, 10 + 10); // lastSequence 9 -> 7
    assert.throws(() => decodeProducerSnapshot(b), StorageError);
    b.writeUInt32BE(crc32c(b, 6), 2);
    assert.equal(decodeProducerSnapshot(b)[0]!.lastSequence, 7);
  });
  it('location prefixes the message', () => {
    assertStorageError(() => decodeProducerSnapshot(Buffer.alloc(2), '/x/1.snapshot'), /^\/x\/1\.snapshot: Snapshot failed schema validation/, 2);
  });
});

describe('producer snapshot: files', () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'kafkalite-snapshot-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('writes and reads back, with and without fsync', () => {
    const p = join(dir, '00000000000000000042.snapshot');
    writeProducerSnapshot(p, [EXAMPLE_6_ENTRY], true);
    assert.deepEqual(readFileSync(p), EXAMPLE_6);
    assert.deepEqual(readProducerSnapshot(p), [EXAMPLE_6_ENTRY]);
    writeProducerSnapshot(p, []);
    assert.deepEqual(readFileSync(p), EMPTY, 'a rewrite leaves no stale bytes behind');
    assert.deepEqual(readProducerSnapshot(p), []);
  });
  it('a missing file, and a corrupt one, are StorageErrors naming the path', () => {
    const missing = join(dir, 'missing.snapshot');
    assert.throws(() => readProducerSnapshot(missing), (e: unknown) => e instanceof StorageError && e.message.includes(missing));
    const p = join(dir, '00000000000000000007.snapshot');
    writeFileSync(p, EXAMPLE_6.subarray(0, 40));
    assertStorageError(() => readProducerSnapshot(p), new RegExp(`^${p.replace(/[.\\/]/g, '\\$&')}: `), 10);
  });
  it('writing to a directory that does not exist is a StorageError', () => {
    assert.throws(() => writeProducerSnapshot(join(dir, 'no', 'such', '1.snapshot'), []), StorageError);
  });
});
