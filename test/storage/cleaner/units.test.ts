/**
 * OffsetMapTest (SkimpyOffsetMap put/get, clear, full map, latest offset, utilization, Kafka's
 * probe order), segment grouping (sizes, index sizes, empty segments, Int.MAX offset ranges) and
 * LogCleanerManagerTest-style cleanable offsets (checkpoint reset, active segment, min lag, ratio).
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { cleanableOffsets, filthiestLog, logToClean } from '../../../src/storage/cleaner/cleanable-log.js';
import { OffsetMap } from '../../../src/storage/cleaner/offset-map.js';
import { groupSegmentsBySize } from '../../../src/storage/cleaner/segment-groups.js';
import { tempDir } from '../../helpers/storage.js';
import { appendRecords, compactConfig, openHarness, T0, type Harness } from './harness.js';

describe('offset map (SkimpyOffsetMap)', () => {
  it('put/get, overwrite, absent keys, latest offset, clear', () => {
    const map = new OffsetMap(24 * 1000);
    assert.equal(map.slots, 1000);
    for (let i = 0; i < 500; i++) map.put(Buffer.from(`key${i}`), BigInt(i));
    for (let i = 0; i < 500; i++) assert.equal(map.get(Buffer.from(`key${i}`)), BigInt(i));
    assert.equal(map.get(Buffer.from('absent')), -1n);
    map.put(Buffer.from('key7'), 9000n);
    assert.equal(map.get(Buffer.from('key7')), 9000n);
    assert.equal(map.size, 500);
    assert.equal(map.latestOffset, 9000n);
    assert.equal(map.utilization, 0.5);
    map.clear();
    assert.equal(map.size, 0);
    assert.equal(map.latestOffset, -1n);
    assert.equal(map.get(Buffer.from('key1')), -1n);
  });

  it('a full map refuses new keys with a typed error, and get still terminates', () => {
    const map = new OffsetMap(24 * 4);
    for (let i = 0; i < 4; i++) map.put(Buffer.from(`k${i}`), BigInt(i));
    assert.throws(() => map.put(Buffer.from('k9'), 9n), { code: 'STORAGE_ERROR' });
    assert.equal(map.get(Buffer.from('k9')), -1n);
  });

  it("first probe is Kafka's slot: abs(int32 at hash[0..4]) % slots, computed here from MD5 independently", () => {
    const slots = 97;
    const map = new OffsetMap(24 * slots);
    const key = Buffer.from('some-key');
    map.put(key, 42n);
    const digest = createHash('md5').update(key).digest();
    const probe = digest.readInt32BE(0);
    const slot = (probe === -0x80000000 ? 0 : Math.abs(probe)) % slots;
    const raw = (map as unknown as { bytes: Buffer }).bytes;
    assert.deepEqual(raw.subarray(slot * 24, slot * 24 + 16), digest);
    assert.equal(raw.readBigInt64BE(slot * 24 + 16), 42n);
  });
});

describe('segment grouping (groupSegmentsBySize)', () => {
  const seg = (baseOffset: bigint, size: number, index = 8, time = 12) => ({
    baseOffset,
    size,
    offsetIndex: { sizeInBytes: index },
    timeIndex: { sizeInBytes: time },
  });
  const bases = (groups: { baseOffset: bigint }[][]) => groups.map((g) => g.map((s) => s.baseOffset));

  it('merges while the log sizes fit segment.bytes', () => {
    const segs = [seg(0n, 400), seg(10n, 400), seg(20n, 400), seg(30n, 100)];
    assert.deepEqual(bases(groupSegmentsBySize(segs, 1000, 1000, 40n)), [[0n, 10n], [20n, 30n]]);
  });
  it('splits on offset-index and time-index sizes', () => {
    assert.deepEqual(bases(groupSegmentsBySize([seg(0n, 1, 600), seg(10n, 1, 600)], 1000, 1000, 20n)), [[0n], [10n]]);
    assert.deepEqual(bases(groupSegmentsBySize([seg(0n, 1, 0, 600), seg(10n, 1, 0, 600)], 1000, 1000, 20n)), [[0n], [10n]]);
  });
  it('splits when offsets would exceed Int.MAX from the group base, unless the next segment is empty', () => {
    const big = 0x7fffffffn;
    assert.deepEqual(bases(groupSegmentsBySize([seg(0n, 10), seg(big, 10), seg(big + 5n, 10)], 1000, 1000, big + 10n)), [[0n], [big, big + 5n]]);
    assert.deepEqual(bases(groupSegmentsBySize([seg(0n, 10), seg(big, 0), seg(big + 5n, 10)], 1000, 1000, big + 10n)), [[0n, big], [big + 5n]]);
  });
});

describe('cleanable offsets and the filthiest log', () => {
  let tmp: { dir: string; cleanup: () => void };
  let h: Harness;
  beforeEach(() => (tmp = tempDir('cleanable')));
  afterEach(() => {
    h.log.close();
    tmp.cleanup();
  });

  it('first dirty offset from the checkpoint, reset when out of range; the active segment bounds the dirty section', () => {
    h = openHarness(tmp.dir, compactConfig());
    appendRecords(h.log, [{ key: 'a', value: '1' }, { key: 'b', value: '1' }]);
    h.log.roll();
    appendRecords(h.log, [{ key: 'a', value: '2' }]);
    assert.deepEqual(cleanableOffsets(h.log, undefined, T0), { firstDirtyOffset: 0n, firstUncleanableDirtyOffset: 2n, forceUpdateCheckpoint: false });
    assert.deepEqual(cleanableOffsets(h.log, 1n, T0), { firstDirtyOffset: 1n, firstUncleanableDirtyOffset: 2n, forceUpdateCheckpoint: false });
    assert.deepEqual(cleanableOffsets(h.log, 99n, T0), { firstDirtyOffset: 0n, firstUncleanableDirtyOffset: 2n, forceUpdateCheckpoint: true });
  });

  it('min.compaction.lag.ms holds back segments with young records', () => {
    h = openHarness(tmp.dir, compactConfig({ minCompactionLagMs: 1000 }));
    appendRecords(h.log, [{ key: 'a', value: '1', timestamp: T0 }]);
    h.log.roll();
    appendRecords(h.log, [{ key: 'a', value: '2', timestamp: T0 + 900 }]);
    h.log.roll();
    assert.equal(cleanableOffsets(h.log, undefined, T0 + 1500).firstUncleanableDirtyOffset, 1n);
    assert.equal(cleanableOffsets(h.log, undefined, T0 + 2000).firstUncleanableDirtyOffset, 2n);
  });

  it('the dirty ratio must exceed min.cleanable.dirty.ratio; max.compaction.lag.ms forces cleaning', () => {
    h = openHarness(tmp.dir, compactConfig({ minCleanableDirtyRatio: 0.5 }));
    appendRecords(h.log, [{ key: 'a', value: '1', timestamp: T0 }]);
    h.log.roll();
    appendRecords(h.log, [{ key: 'a', value: '2', timestamp: T0 }]);
    h.log.roll();
    const all = logToClean(h.log, undefined, T0);
    assert.equal(all.cleanableRatio, 1);
    assert.ok(filthiestLog([h.log], () => undefined, T0));
    // with the first segment clean, half the bytes are dirty: 0.5 is not > 0.5
    const half = logToClean(h.log, 1n, T0);
    assert.equal(half.cleanableRatio, 0.5);
    assert.equal(filthiestLog([h.log], () => 1n, T0), undefined);
    h.log.config = compactConfig({ minCleanableDirtyRatio: 0.5, maxCompactionLagMs: 1000 });
    assert.ok(filthiestLog([h.log], () => 1n, T0 + 5000), 'overdue for max.compaction.lag.ms');
    h.log.config = { ...compactConfig(), cleanupPolicy: 'delete' };
    assert.equal(filthiestLog([h.log], () => undefined, T0), undefined, 'delete-only logs are not compacted');
    void join;
  });
});
