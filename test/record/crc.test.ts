/**
 * Checksums (Kafka `Crc32C`, `java.util.zip.CRC32`): Kafka's Crc32CTest vector, the standard "123456789" check values, and
 * agreement of both CRC-32C implementations (sse4_crc32 and @node-rs/crc32) with each other and
 * with the table-driven reference in helpers/ref.ts, over random buffers and sub-ranges.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { crc32, crc32c, crc32cImplementation } from '../../src/record/index.js';
import { REPO_ROOT } from '../helpers/paths.js';
import { Rng, refCrc32, refCrc32c } from '../helpers/ref.js';

const require = createRequire(import.meta.url);
const SEED = 0xc3c32c;

describe('known answers', () => {
  test('CRC-32C of "Some String" = 608512271 (Crc32CTest)', () => {
    assert.equal(crc32c(Buffer.from('Some String', 'ascii')), 608512271);
    assert.equal(refCrc32c(Buffer.from('Some String', 'ascii')), 608512271);
  });

  test('CRC-32C check value of "123456789" = 0xE3069283', () => {
    assert.equal(crc32c(Buffer.from('123456789')), 0xe3069283);
  });

  test('CRC-32 (IEEE) check value of "123456789" = 0xCBF43926', () => {
    assert.equal(crc32(Buffer.from('123456789')), 0xcbf43926);
    assert.equal(refCrc32(Buffer.from('123456789')), 0xcbf43926);
  });

  test('results are unsigned 32-bit; empty input is 0', () => {
    assert.equal(crc32c(Buffer.alloc(0)), 0);
    assert.equal(crc32(Buffer.alloc(0)), 0);
    const v = crc32c(Buffer.from('123456789'));
    assert.ok(v > 0x7fffffff, 'high bit set must stay positive');
  });

  test('start/end select a sub-range (Crc32C.compute(buffer, offset, size))', () => {
    const b = Buffer.from('xxSome Stringyy');
    assert.equal(crc32c(b, 2, 13), 608512271);
    assert.equal(crc32(Buffer.from('--123456789--'), 2, 11), 0xcbf43926);
    assert.equal(crc32c(b, 5, 5), 0);
  });

  test('works on a Uint8Array view with a non-zero byteOffset', () => {
    const backing = Buffer.from('....Some String....');
    const view = new Uint8Array(backing.buffer, backing.byteOffset + 4, 11);
    assert.equal(crc32c(view), 608512271);
  });
});

describe('implementations agree', () => {
  test('the loaded implementation is one of the three known ones', () => {
    assert.ok(['kafkalite-native', 'sse4_crc32', '@node-rs/crc32'].includes(crc32cImplementation), crc32cImplementation);
  });

  test('sse4_crc32 and @node-rs/crc32 and the reference agree on random buffers', () => {
    const nodeRs = require('@node-rs/crc32') as { crc32c(b: Uint8Array, init?: number): number; crc32(b: Uint8Array, init?: number): number };
    let sse: { calculate(b: Uint8Array, init?: number): number } | undefined;
    try {
      sse = require('sse4_crc32');
    } catch {
      sse = undefined;
    }
    // sse4_crc32 is an optionalDependency but is installed in this project: its absence is a finding.
    assert.ok(sse, 'sse4_crc32 did not load');
    const rng = new Rng(SEED);
    for (let i = 0; i < 400; i++) {
      const len = i < 100 ? i : rng.int(i < 390 ? 5000 : 300000);
      const b = rng.bytes(len);
      const start = rng.int(len + 1);
      const end = start + rng.int(len - start + 1);
      const view = b.subarray(start, end);
      const ref = refCrc32c(b, start, end);
      assert.equal(nodeRs.crc32c(view, 0) >>> 0, ref, `node-rs len ${len} [${start},${end}) seed ${SEED}`);
      assert.equal(sse.calculate(view) >>> 0, ref, `sse4 len ${len} [${start},${end}) seed ${SEED}`);
      assert.equal(crc32c(b, start, end), ref, `kafkalite len ${len} [${start},${end}) seed ${SEED}`);
      assert.equal(crc32(b, start, end), refCrc32(b, start, end), `crc32 len ${len} seed ${SEED}`);
    }
  });

  test("kafkalite-native CRC-32C (native/src/crc32c.c): hardware and table paths agree with the reference at lane boundaries, unaligned, chained", () => {
    let own: { crc32c(init: number, b: Uint8Array, s?: number, e?: number): number; crc32cSoftware(init: number, b: Uint8Array, s?: number, e?: number): number; hardware: boolean } | undefined;
    try {
      own = require('kafkalite-native');
    } catch {
      own = undefined;
    }
    // an optionalDependency built at install (package.json allowScripts): its absence here is a finding
    assert.ok(own, 'kafkalite-native did not load');
    const rng = new Rng(SEED + 2);
    // lanes of 3 x 128 and 3 x 32 bytes, then 8-byte words, then bytes: lengths either side of each
    const lengths = [0, 1, 7, 8, 9, 95, 96, 97, 383, 384, 385, 479, 480, 481, 767, 768, 769, 4096, 65536 + 13, 1 << 20];
    for (const len of lengths) {
      const b = rng.bytes(len + 3);
      const ref = refCrc32c(b, 3, 3 + len);
      assert.equal(own.crc32c(0, b, 3, 3 + len), ref, `hardware=${own.hardware} len ${len}`);
      assert.equal(own.crc32cSoftware(0, b, 3, 3 + len), ref, `table len ${len}`);
      const cut = rng.int(len + 1);
      assert.equal(own.crc32c(own.crc32c(0, b, 3, 3 + cut), b, 3 + cut, 3 + len), ref, `chained at ${cut} of ${len}`);
    }
    assert.throws(() => own.crc32c(0, Buffer.alloc(4), 2, 5), RangeError);
    assert.throws(() => own.crc32c(0, 'text' as unknown as Uint8Array), TypeError);
  });

  test('KAFKALITE_CRC32C=node-rs / sse4_crc32 select those libraries with identical results (child process)', () => {
    const rng = new Rng(SEED + 1);
    const bufs = Array.from({ length: 50 }, (_, i) => rng.bytes(i * 37 + rng.int(2000)));
    const ranges = bufs.map((b) => {
      const s = rng.int(b.length + 1);
      return [s, s + rng.int(b.length - s + 1)] as const;
    });
    // the module that reads the switches (and the addon module it loads), not the whole library:
    // a child loading src/index.js spent most of its CPU compiling modules this test does not need
    const moduleUrl = 'file://' + join(REPO_ROOT, 'dist', 'src', 'record', 'crc.js');
    const code = `
      import { crc32c, crc32cImplementation } from ${JSON.stringify(moduleUrl)};
      let input = '';
      process.stdin.on('data', (d) => (input += d));
      process.stdin.on('end', () => {
        const cases = JSON.parse(input);
        const out = cases.map(([h, s, e]) => crc32c(Buffer.from(h, 'hex'), s, e));
        process.stdout.write(JSON.stringify({ impl: crc32cImplementation, out }));
      });`;
    const input = JSON.stringify(bufs.map((b, i) => [b.toString('hex'), ranges[i]![0], ranges[i]![1]]));
    for (const env of ['node-rs', 'sse4_crc32', undefined] as const) {
      const r = spawnSync(process.execPath, ['--input-type=module', '-e', code], {
        input,
        encoding: 'utf8',
        env: { ...process.env, KAFKALITE_CRC32C: env ?? '' },
      });
      assert.equal(r.status, 0, r.stderr);
      const { impl, out } = JSON.parse(r.stdout) as { impl: string; out: number[] };
      assert.equal(impl, env === 'node-rs' ? '@node-rs/crc32' : env === 'sse4_crc32' ? 'sse4_crc32' : 'kafkalite-native');
      out.forEach((v, i) => {
        const [s, e] = ranges[i]!;
        assert.equal(v, refCrc32c(bufs[i]!, s, e), `${impl} case ${i}`);
      });
    }
  });

  test('an unknown KAFKALITE_CRC32C or KAFKALITE_NATIVE value stops the load with an error naming it (child process)', () => {
    // the module that reads the switches (and the addon module it loads), not the whole library:
    // a child loading src/index.js spent most of its CPU compiling modules this test does not need
    const moduleUrl = 'file://' + join(REPO_ROOT, 'dist', 'src', 'record', 'crc.js');
    const load = (env: Record<string, string>) =>
      spawnSync(process.execPath, ['--input-type=module', '-e', `import ${JSON.stringify(moduleUrl)};`], { encoding: 'utf8', env: { ...process.env, ...env } });
    const crc = load({ KAFKALITE_CRC32C: 'sse42' });
    assert.notEqual(crc.status, 0);
    assert.match(crc.stderr, /KAFKALITE_CRC32C must be unset or one of kafkalite-native, sse4_crc32, node-rs, not 'sse42'/);
    const native = load({ KAFKALITE_NATIVE: 'false' });
    assert.notEqual(native.status, 0);
    assert.match(native.stderr, /KAFKALITE_NATIVE must be unset, 'on' or 'off', not 'false'/);
    assert.equal(load({ KAFKALITE_NATIVE: 'off', KAFKALITE_CRC32C: 'node-rs' }).status, 0);
  });
});
