/**
 * The native records scan (native/src/records.c) against the JavaScript one it stands in for on
 * the append path (RecordIterator.scanNext, DefaultRecord.readFrom's checks): on random batches it
 * accepts them and summarises them exactly (max/min timestampDelta, null keys); on damaged ones it
 * never accepts what the JavaScript scan refuses, and what it accepts it summarises as the
 * JavaScript does. Records are also built byte by byte (reference varints, overlong forms, nulls
 * in every field that allows them). Last, the whole validator suite runs again with the addon
 * switched off (KAFKALITE_NATIVE=off), so the JavaScript path stays proven on its own.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import type { RecordBatch } from '../../src/record/batch.js';
import { readRecordBatches } from '../../src/record/batches.js';
import { encodeRecordBatch, type RecordInput } from '../../src/record/builder.js';
import { RecordLayout } from '../../src/record/record-layout.js';
import { REPO_ROOT } from '../helpers/paths.js';
import { overlong, refVarint, refVarlong, Rng } from '../helpers/ref.js';

const require = createRequire(import.meta.url);
const SEED = Number(process.env.KAFKALITE_SEED ?? 20261129);

interface Addon {
  scanRecords(data: Uint8Array, start: number, end: number, count: number, summary: Float64Array): boolean;
}
function addon(): Addon {
  // an optionalDependency built at install (package.json allowScripts): its absence here is a finding
  return require('kafkalite-native') as Addon;
}

/** What the JavaScript scan makes of the records of `batch`: its summary, or the error it throws. */
function jsScan(batch: RecordBatch): { ok: true; max: number; min: number; nullKeys: number; count: number } | { ok: false; error: unknown } {
  try {
    const it = batch.recordIterator({ verifyCrc: false });
    const r = new RecordLayout();
    let max = -Infinity;
    let min = Infinity;
    let nullKeys = 0;
    let count = 0;
    while (it.scanNext(r)) {
      const d = r.timestampDelta;
      if (typeof d !== 'number') return { ok: false, error: new Error('timestampDelta beyond 2^53 (the native scan declines those)') };
      max = Math.max(max, d);
      min = Math.min(min, d);
      if (r.keySize < 0) nullKeys++;
      count++;
    }
    return { ok: true, max, min, nullKeys, count };
  } catch (error) {
    return { ok: false, error };
  }
}

function nativeScan(batch: RecordBatch): { ok: boolean; max: number; min: number; nullKeys: number } {
  const s = new Float64Array(3);
  const ok = addon().scanRecords(batch.buf, batch.position + 61, batch.position + batch.sizeInBytes, batch.recordsCount, s);
  return { ok, max: s[0]!, min: s[1]!, nullKeys: s[2]! };
}

function randomRecords(rng: Rng): RecordInput[] {
  const n = rng.range(1, 300);
  const ts0 = rng.pick([1_700_000_000_000, 100_000, 2 ** 52]);
  return Array.from({ length: n }, () => ({
    key: rng.bool(0.2) ? null : rng.bytes(rng.int(40)),
    value: rng.bool(0.1) ? null : rng.bytes(rng.int(rng.bool(0.05) ? 5000 : 200)),
    timestamp: ts0 + rng.range(-100_000, 100_000),
    headers: Array.from({ length: rng.int(4) }, () => ({ key: `h${rng.int(100)}`, value: rng.bool(0.3) ? null : rng.bytes(rng.int(20)) })),
  }));
}

function onlyBatch(bytes: Buffer): RecordBatch {
  const b = readRecordBatches(bytes, { verifyCrc: false }).nextBatch();
  assert.ok(b !== null && b.kind === 'v2');
  return b as RecordBatch;
}

describe('native records scan (native/src/records.c)', () => {
  test('random valid batches: accepted, with the JavaScript summary', () => {
    const rng = new Rng(SEED);
    for (let i = 0; i < 300; i++) {
      const batch = onlyBatch(encodeRecordBatch(randomRecords(rng)));
      const js = jsScan(batch);
      assert.ok(js.ok, `case ${i} seed ${SEED}`);
      const n = nativeScan(batch);
      assert.ok(n.ok, `native refused valid case ${i} seed ${SEED}`);
      assert.deepEqual([n.max, n.min, n.nullKeys], [js.max, js.min, js.nullKeys], `case ${i} seed ${SEED}`);
    }
  });

  test('damaged batches: never accepted where the JavaScript scan refuses; accepted ones summarised alike', () => {
    const rng = new Rng(SEED + 1);
    let refusedByBoth = 0;
    let acceptedByBoth = 0;
    for (let i = 0; i < 400; i++) {
      const bytes = encodeRecordBatch(randomRecords(rng).slice(0, rng.range(1, 20)));
      for (let m = 0; m < 25; m++) {
        const d = Buffer.from(bytes);
        const kind = rng.int(4);
        if (kind === 0) {
          for (let k = rng.range(1, 3); k > 0; k--) d[rng.range(61, d.length - 1)] = rng.int(256);
        } else if (kind === 1) {
          d[rng.range(61, d.length - 1)]! ^= 1 << rng.int(8);
        } else if (kind === 2) {
          d.writeInt32BE(d.readInt32BE(57) + rng.range(-2, 2), 57); // records count
        } else {
          const cut = rng.range(61, d.length - 1); // a shorter batch: its length field shrinks with it
          d.writeInt32BE(cut - 12, 8);
        }
        const batch = onlyBatch(kind === 3 ? d.subarray(0, d.readInt32BE(8) + 12) : d);
        const js = jsScan(batch);
        const n = batch.recordsCount > 0 ? nativeScan(batch) : { ok: false, max: 0, min: 0, nullKeys: 0 };
        if (!js.ok) {
          assert.equal(n.ok, false, `native accepted what JavaScript refuses (${String(js.error)}); case ${i}/${m} seed ${SEED}`);
          refusedByBoth++;
        } else if (n.ok) {
          assert.deepEqual([n.max, n.min, n.nullKeys], [js.max, js.min, js.nullKeys], `case ${i}/${m} seed ${SEED}`);
          acceptedByBoth++;
        }
      }
    }
    // the mutations must exercise both outcomes, or this test proves nothing
    assert.ok(refusedByBoth > 1000 && acceptedByBoth > 100, `refused ${refusedByBoth}, accepted ${acceptedByBoth}`);
  });

  test('records built byte by byte: overlong varints, nulls, headers; and the malformed ones refused', () => {
    /** A v2 batch of hand-built record bodies (CRC not needed: the scan does not check it). */
    const batchOf = (bodies: number[][]): RecordBatch => {
      const records = Buffer.from(bodies.flatMap((b) => [...refVarint(b.length), ...b]));
      const out = Buffer.alloc(61 + records.length);
      out.writeInt32BE(out.length - 12, 8);
      out[16] = 2;
      out.writeInt32BE(bodies.length - 1, 23);
      out.writeInt32BE(bodies.length, 57);
      records.copy(out, 61);
      return onlyBatch(out);
    };
    const body = (o: { ts?: number[]; key?: number[]; value?: number[]; headers?: number[] }) => [
      0,
      ...(o.ts ?? refVarlong(7)),
      ...refVarint(0),
      ...(o.key ?? [...refVarint(2), 0x61, 0x62]),
      ...(o.value ?? refVarint(-1)),
      ...(o.headers ?? refVarint(0)),
    ];
    const good = [
      body({}),
      body({ ts: refVarlong(-123456789012), key: refVarint(-1) }),
      body({ key: [...overlong(refVarint(2), 3), 0x61, 0x62] }), // a non-canonical length, as Java reads it
      body({ ts: overlong(refVarlong(5), 2) }),
      body({ headers: [...refVarint(2), ...refVarint(1), 0x68, ...refVarint(-1), ...refVarint(0), ...refVarint(1), 0x7a] }),
    ];
    const batch = batchOf(good);
    const js = jsScan(batch);
    const n = nativeScan(batch);
    assert.ok(js.ok && n.ok);
    assert.deepEqual([n.max, n.min, n.nullKeys], [js.max, js.min, js.nullKeys]);
    assert.deepEqual([n.max, n.min, n.nullKeys], [7, -123456789012, 1]);

    const bad: [string, number[]][] = [
      ['a null header key', body({ headers: [...refVarint(1), ...refVarint(-1), ...refVarint(-1)] })],
      ['a negative header count', body({ headers: refVarint(-2) })],
      ['a key past the record', body({ key: [...refVarint(50), 0x61] })],
      ['a varint of six bytes', body({ key: [0x84, 0x80, 0x80, 0x80, 0x80, 0x00, 0x61, 0x62] })],
      ['a byte left in the record', [...body({}), 0]],
    ];
    for (const [what, b] of bad) {
      const damaged = batchOf([body({}), b]);
      assert.equal(jsScan(damaged).ok, false, `JavaScript refuses ${what}`);
      assert.equal(nativeScan(damaged).ok, false, `native refuses ${what}`);
    }
    // beyond 2^53 the JavaScript scan gives a bigint; the native one declines and leaves it to it
    const far = batchOf([body({ ts: refVarlong(2n ** 60n) })]);
    assert.equal(nativeScan(far).ok, false);
  });

  test('the validator suite passes with the addon switched off (KAFKALITE_NATIVE=off: the JavaScript scan alone)', () => {
    // the TAP reporter on every Node (the default one differs between Node 20 and 24 off a terminal)
    const r = spawnSync(process.execPath, ['--test', '--test-reporter=tap', join(REPO_ROOT, 'dist', 'test', 'storage', 'log-validator.test.js')], {
      encoding: 'utf8',
      // NODE_TEST_CONTEXT would make the inner runner report to this one instead of printing
      env: { ...process.env, KAFKALITE_NATIVE: 'off', NODE_TEST_CONTEXT: undefined },
    });
    assert.equal(r.status, 0, r.stdout.slice(-3000) + r.stderr.slice(-2000));
    assert.match(r.stdout, /# pass [1-9]/);
    assert.match(r.stdout, /# fail 0/);
  });
});
