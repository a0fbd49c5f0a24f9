/**
 * OffsetMapTest (SkimpyOffsetMap put/get, clear, full map, latest offset, utilization, Kafka's
 * probe order), segment grouping (sizes, index sizes, empty segments, Int.MAX offset ranges) and
 * LogCleanerManagerTest-style cleanable offsets (checkpoint reset, active segment, min lag, ratio).
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { cleanableOffsets, filthiestLog, logToClean } from '../../../src/storage/cleaner/cleanable-log.js';
import { keyHash128 } from '../../../src/storage/cleaner/key-hash.js';
import { OFFSET_MAP_GROUP, OffsetMap } from '../../../src/storage/cleaner/offset-map.js';
import { groupSegmentsBySize } from '../../../src/storage/cleaner/segment-groups.js';
import { tempDir } from '../../helpers/storage.js';
import { appendRecords, compactConfig, diskRecords, openHarness, T0, type Harness } from './harness.js';

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

  // MurmurHash3 x86_128 digests, seed 0x9747b28c, printed by the mmh3 Python package
  // (mmh3.hash_bytes(key, 0x9747b28c, x64arch=False)): every tail length 0..15 and whole blocks
  const MMH3_VECTORS: [string, string][] = [
    ['', 'a1d5bef71c6a575b1c6a575b1c6a575b'],
    ['61', '44f94e086e18a1216e18a1216e18a121'],
    ['736f6d652d6b6579', '22e951e3a1fbaae8021d8456021d8456'],
    ['6b65792d3030303030303031', '0e7c2b642169055f44cd9ef6353b3054'],
    ['30313233343536373839616263646566', '243f76dc180f0ada1d915739d6a31131'],
    ['3031323334353637383961626364656658595a', '5937889e8550bd116fd83157154c159c'],
    ['000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f2021222324', 'e83d383d92df6ffa80fd5855e4eca1fd'],
    ['808182838485868788898a8b8c8d8e8f909192939495969798999a9b9c9d9e', '5128e08f6bf656cae93f721a96a982bf'],
  ];

  const digestOf = (key: Buffer, start = 0, length = key.length): Buffer => {
    const words = new Int32Array(4);
    keyHash128(key, start, length, words);
    const out = Buffer.alloc(16);
    for (let i = 0; i < 4; i++) out.writeInt32LE(words[i]!, i * 4);
    return out;
  };

  it('key hash is MurmurHash3 x86_128 (vectors from the mmh3 package), also over a key inside a larger buffer', () => {
    for (const [key, digest] of MMH3_VECTORS) {
      assert.equal(digestOf(Buffer.from(key, 'hex')).toString('hex'), digest, `key ${key}`);
      const framed = Buffer.concat([Buffer.from('prefix'), Buffer.from(key, 'hex'), Buffer.from('suffix')]);
      assert.equal(digestOf(framed, 6, key.length / 2).toString('hex'), digest, `framed key ${key}`);
    }
  });

  it("first probe is Kafka's rule over the digest: abs(big-endian int32 at digest[0..4]) % slots", () => {
    const slots = 97;
    const map = new OffsetMap(24 * slots);
    const key = Buffer.from('some-key');
    map.put(key, 42n);
    const digest = Buffer.from('22e951e3a1fbaae8021d8456021d8456', 'hex'); // mmh3 vector above
    const probe = digest.readInt32BE(0);
    const slot = (probe === -0x80000000 ? 0 : Math.abs(probe)) % slots;
    const table = (map as unknown as { table: Int32Array }).table;
    // the slot holds h1..h4 (the digest's little-endian words) then the offset's high and low words
    assert.deepEqual([...table.subarray(slot * 6, slot * 6 + 4)], [0, 4, 8, 12].map((i) => digest.readInt32LE(i)));
    assert.deepEqual([...table.subarray(slot * 6 + 4, slot * 6 + 6)], [0, 42]);
  });

  it('bigint and number paths agree, including offsets past 2^32 and Long.MAX', () => {
    const map = new OffsetMap(24 * 64);
    map.put(Buffer.from('a'), (1n << 63n) - 1n);
    map.putAt(Buffer.from('xxbyy'), 2, 1, 2 ** 40 + 7);
    assert.equal(map.get(Buffer.from('b')), 2n ** 40n + 7n);
    assert.equal(map.getAt(Buffer.from('a'), 0, 1), 2 ** 63); // rounded, still above every number offset
    assert.equal(map.get(Buffer.from('a')), (1n << 63n) - 1n);
    assert.equal(map.latestOffset, 2n ** 40n + 7n);
    assert.equal(map.getAt(Buffer.from('zz'), 0, 2), -1);
  });
});

describe('offset map groups (hashGroupKey, touchGroup, putGroupKey, getGroupKey)', () => {
  it('grouped puts and gets give the table and answers of one-by-one calls, a later put of a key in the same group winning', () => {
    // 300 slots for 200 distinct keys: collisions reach the second probe and beyond
    const one = new OffsetMap(24 * 300);
    const grouped = new OffsetMap(24 * 300);
    const data = Buffer.alloc(4000 * 6);
    let x = 7;
    for (let i = 0; i < 4000; i++) {
      x = (Math.imul(x, 1103515245) + 12345) & 0x7fffffff;
      data.write(`k${(x % 200).toString().padStart(5, '0')}`, i * 6);
    }
    for (let i = 0; i < 4000; i++) one.putAt(data, i * 6, 6, i);
    for (let base = 0; base < 4000; base += OFFSET_MAP_GROUP) {
      const n = Math.min(OFFSET_MAP_GROUP, 4000 - base);
      for (let j = 0; j < n; j++) grouped.hashGroupKey(j, data, (base + j) * 6, 6);
      grouped.touchGroup(n);
      for (let j = 0; j < n; j++) grouped.putGroupKey(j, base + j);
    }
    const tableOf = (m: OffsetMap) => [...(m as unknown as { table: Int32Array }).table];
    assert.deepEqual(tableOf(grouped), tableOf(one));
    assert.equal(grouped.size, 200);
    assert.equal(grouped.latestOffset, 3999n);
    let latest = 0;
    for (let base = 0; base < 4000; base += OFFSET_MAP_GROUP) {
      const n = Math.min(OFFSET_MAP_GROUP, 4000 - base);
      for (let j = 0; j < n; j++) grouped.hashGroupKey(j, data, (base + j) * 6, 6);
      grouped.touchGroup(n);
      // a single-key call between group calls leaves the group alone
      assert.equal(grouped.getAt(Buffer.from('absent'), 0, 6), -1);
      for (let j = 0; j < n; j++) {
        const got = grouped.getGroupKey(j);
        assert.equal(got, one.getAt(data, (base + j) * 6, 6));
        if (got === base + j) latest++;
      }
    }
    assert.ok(latest >= 200, 'every key is the latest at one offset');
  });
});

describe('latest-offset marks (the map tells, per offset of the round, whether it is still its key\'s latest)', () => {
  /** Puts `keys[i]` at `start + i` (null: a keyless record, never put) through the grouped and single-key paths. */
  function build(map: OffsetMap, start: number, keys: (string | null)[], grouped: boolean): void {
    map.beginRound(BigInt(start));
    let n = 0;
    const pending: number[] = [];
    const flush = () => {
      map.touchGroup(n);
      for (let i = 0; i < n; i++) map.putGroupKey(i, pending[i]!);
      n = 0;
      pending.length = 0;
    };
    keys.forEach((k, i) => {
      if (k === null) return;
      const b = Buffer.from(k);
      if (!grouped) return map.putAt(b, 0, b.length, start + i);
      map.hashGroupKey(n++, b, 0, b.length);
      pending.push(start + i);
      if (n === OFFSET_MAP_GROUP) flush();
    });
    if (grouped) flush();
  }

  it('a marked offset is exactly one the map still holds for its key (random keys, both put paths, rounds reusing the marks)', () => {
    const map = new OffsetMap(24 * 4096);
    let seed = 7;
    const rnd = (n: number) => ((seed = (Math.imul(seed, 1103515245) + 12345) & 0x7fffffff) % n);
    for (let round = 0; round < 6; round++) {
      const start = [0, 5, 1_000_003, 2 ** 40, 17, 0][round]!;
      const count = 200 + rnd(3000);
      const distinct = 1 + rnd(800);
      const keys = Array.from({ length: count }, () => (rnd(10) === 0 ? null : `k${rnd(distinct)}`));
      build(map, start, keys, round % 2 === 0);
      assert.ok(map.marks.active);
      keys.forEach((k, i) => {
        const offset = start + i;
        assert.ok(map.marks.covers(offset));
        const expected = k !== null && map.getAt(Buffer.from(k), 0, k.length) === offset;
        assert.equal(map.marks.isLatest(offset), expected, `round ${round}, offset ${offset} (key ${k})`);
      });
      assert.equal(map.marks.covers(start - 1), false, 'below the round start the map answers');
    }
  });

  it('bigint puts past 2^53 and a start past 2^53 switch the marks off; clear() leaves them off', () => {
    const map = new OffsetMap(24 * 100);
    map.beginRound(10n);
    map.put(Buffer.from('a'), 10n);
    assert.ok(map.marks.active && map.marks.isLatest(10));
    map.put(Buffer.from('a'), 2n ** 60n);
    assert.equal(map.marks.active, false);
    map.beginRound(2n ** 60n);
    assert.equal(map.marks.active, false);
    map.beginRound(0n);
    map.putAt(Buffer.from('b'), 0, 1, 3);
    assert.ok(map.marks.isLatest(3) && !map.marks.isLatest(2));
    // the same offset put again for its key stays the latest, as map.get(key) === 3 says
    map.putAt(Buffer.from('b'), 0, 1, 3);
    assert.ok(map.marks.isLatest(3));
    assert.equal(map.getAt(Buffer.from('b'), 0, 1), 3);
    map.clear();
    assert.equal(map.marks.active, false);
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

describe('background rounds in steps (LogCleaner.step)', () => {
  let tmp: { dir: string; cleanup: () => void };
  let h: Harness;
  beforeEach(() => (tmp = tempDir('cleaner-steps')));
  afterEach(() => {
    h.log.close();
    tmp.cleanup();
  });

  it('a round takes one step per segment group; appends between steps land; the checkpoint moves only at the end', () => {
    // segment.bytes small enough that the round has several groups
    h = openHarness(tmp.dir, compactConfig({ segmentBytes: 600 }));
    for (let i = 0; i < 40; i++) appendRecords(h.log, [{ key: `k${i % 3}`, value: `value-${i}-${'p'.repeat(60)}` }]);
    h.log.roll();
    const before = h.log.segmentCount;
    assert.ok(before > 4, `only ${before} segments`);
    const states: string[] = [];
    for (let state = h.cleaner.step(); ; state = h.cleaner.step()) {
      states.push(state);
      if (state !== 'working') break;
      assert.equal(h.cleaner.checkpoint.get('t', 0), undefined, 'checkpoint written before the round ended');
      appendRecords(h.log, [{ key: 'late', value: `x${states.length}` }]); // the broker keeps appending
    }
    assert.equal(states.at(-1), 'cleaned');
    assert.ok(states.length >= 3, `expected the map step and several group steps, got ${states.join(',')}`);
    assert.equal(h.cleaner.checkpoint.get('t', 0), 40n);
    const latest = new Map<string, string>();
    for (const r of diskRecords(join(tmp.dir, 't-0'))) latest.set(r.key!, r.value!);
    assert.equal(latest.get('k0'), `value-39-${'p'.repeat(60)}`);
    assert.equal(latest.get('late'), `x${states.length - 1}`);
  });

  it('a round whose segments vanish between steps (retention, truncation) is abandoned unrecorded', () => {
    h = openHarness(tmp.dir, compactConfig({ segmentBytes: 600 }));
    for (let i = 0; i < 40; i++) appendRecords(h.log, [{ key: `k${i % 3}`, value: `value-${i}-${'p'.repeat(60)}` }]);
    h.log.roll();
    assert.equal(h.cleaner.step(), 'working'); // the offset map
    h.log.truncateTo(5n);
    let state = h.cleaner.step();
    while (state === 'working') state = h.cleaner.step();
    assert.equal(state, 'idle');
    assert.equal(h.cleaner.checkpoint.get('t', 0), undefined);
  });
});
