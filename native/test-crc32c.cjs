'use strict';
// Correctness of the addon against sse4_crc32 and @node-rs/crc32: `node native/test-crc32c.cjs`
const assert = require('node:assert/strict');
const { randomBytes, randomInt } = require('node:crypto');
const path = require('node:path');
const root = path.join(__dirname, '..', 'node_modules');
const ours = require('./index.cjs');
const nodeRs = require(path.join(root, '@node-rs/crc32'));
let sse = null;
try { sse = require(path.join(root, 'sse4_crc32')); } catch { /* optional */ }

const refs = [['@node-rs/crc32', (b, i) => nodeRs.crc32c(b, i) >>> 0]];
if (sse) refs.push(['sse4_crc32', (b, i) => sse.calculate(b, i) >>> 0]);
const mine = [['crc32c', ours.crc32c], ['crc32cSoftware', ours.crc32cSoftware]];
let checks = 0;

function check(buf, init) {
  const want = refs[0][1](buf, init);
  for (const [name, f] of refs) assert.equal(f(buf, init), want, `${name} len ${buf.length}`);
  for (const [name, f] of mine) {
    assert.equal(f(init, buf), want, `${name} len ${buf.length} off ${buf.byteOffset} init ${init}`);
    // the same bytes through start/end on the parent buffer
    const parent = new Uint8Array(buf.buffer, 0, buf.byteOffset + buf.length + 3);
    assert.equal(f(init, parent, buf.byteOffset, buf.byteOffset + buf.length), want, `${name} start/end`);
    checks += 2;
  }
  return want;
}

console.log('hardware path:', ours.hardware, '| references:', refs.map((r) => r[0]).join(', '));
const nine = Buffer.from('123456789');
assert.equal(ours.crc32c(0, nine), 0xe3069283);
assert.equal(ours.crc32cSoftware(0, nine), 0xe3069283);
assert.equal(ours.crc32c(0, new Uint8Array(0)), 0);

const pool = randomBytes(4 * 1024 * 1024 + 64);
const view = (len) => { const off = randomInt(0, 64); return pool.subarray(off, off + len); };
for (let len = 0; len <= 4096; len++) check(view(len), 0);
for (let len = 0; len <= 4096; len += 7) check(view(len), randomInt(0, 2 ** 32));
const edges = [];
for (const lane of [32, 128, 256, 8192]) for (const m of [1, 2, 3, 4, 6]) for (let d = -9; d <= 9; d++) edges.push(3 * lane * m + d);
for (const len of edges) check(view(len), randomInt(0, 2 ** 32));
for (let i = 0; i < 40; i++) check(view(randomInt(4097, 4 * 1024 * 1024 + 1)), i % 2 ? randomInt(0, 2 ** 32) : 0);
check(pool.subarray(0, 4 * 1024 * 1024), 0);

// chaining: crc(a + b) === crc(crc(a), b), split anywhere
for (let i = 0; i < 300; i++) {
  const whole = view(randomInt(0, i < 200 ? 5000 : 200000));
  const cut = randomInt(0, whole.length + 1);
  for (const [name, f] of mine) {
    assert.equal(f(f(0, whole.subarray(0, cut)), whole.subarray(cut)), f(0, whole), `${name} chain ${whole.length}/${cut}`);
    checks++;
  }
}
// other TypedArrays are read as their bytes
const u32 = new Uint32Array(randomBytes(400).buffer.slice(0, 400));
assert.equal(ours.crc32c(0, u32), nodeRs.crc32c(Buffer.from(u32.buffer, u32.byteOffset, 400), 0) >>> 0);
assert.throws(() => ours.crc32c(0, 'abc'), TypeError);
assert.throws(() => ours.crc32c(0, nine, 2, 10), RangeError);
assert.throws(() => ours.crc32c(0, nine, 1.5, 3), RangeError);
console.log(`ok: ${checks} comparisons`);
