'use strict';
// Throughput, cache-hot: `node native/bench-crc32c.cjs [sizes...]` (a few seconds). Each round runs
// every implementation for ~ROUND_MS on the same buffer, in turn; the median round is reported.
const path = require('node:path');
const { randomBytes } = require('node:crypto');
const root = path.join(__dirname, '..', 'node_modules');
const ours = require('./index.cjs');
const nodeRs = require(path.join(root, '@node-rs/crc32'));
let sse = null;
try { sse = require(path.join(root, 'sse4_crc32')); } catch { /* optional */ }

const ROUNDS = 7, ROUND_MS = 12;
const sizes = process.argv.length > 2 ? process.argv.slice(2).map(Number) : [0, 64, 512, 1024, 16384, 1 << 20];
const big = randomBytes((1 << 20) + 64);

// crc.ts's JS slicing-by-8 (used below 512 bytes), for reference at small sizes
const T = new Int32Array(2048);
for (let i = 0; i < 256; i++) { let c = i; for (let k = 0; k < 8; k++) c = c & 1 ? 0x82f63b78 ^ (c >>> 1) : c >>> 1; T[i] = c; }
for (let i = 0; i < 256; i++) for (let k = 1; k < 8; k++) T[k * 256 + i] = (T[(k - 1) * 256 + i] >>> 8) ^ T[T[(k - 1) * 256 + i] & 0xff];
function crcJs(t, buf, start, end) {
  let c = -1, i = start;
  for (; i + 8 <= end; i += 8) {
    c ^= buf[i] | (buf[i + 1] << 8) | (buf[i + 2] << 16) | (buf[i + 3] << 24);
    c = t[1792 + (c & 0xff)] ^ t[1536 + ((c >>> 8) & 0xff)] ^ t[1280 + ((c >>> 16) & 0xff)] ^ t[1024 + (c >>> 24)] ^
      t[768 + buf[i + 4]] ^ t[512 + buf[i + 5]] ^ t[256 + buf[i + 6]] ^ t[buf[i + 7]];
  }
  for (; i < end; i++) c = t[(c ^ buf[i]) & 0xff] ^ (c >>> 8);
  return (c ^ -1) >>> 0;
}

function impls(buf, off) {
  const end = off + buf.length;
  const list = [
    ['kafkalite-native crc32c', () => ours.crc32c(0, buf)],
    ['  same, start/end on parent', () => ours.crc32c(0, big, off, end)],
    ['  same, subarray + call', () => ours.crc32c(0, big.subarray(off, end))],
  ];
  if (sse) list.push(['sse4_crc32', () => sse.calculate(buf)], ['  same, subarray + call', () => sse.calculate(big.subarray(off, end))]);
  list.push(['@node-rs/crc32', () => nodeRs.crc32c(buf, 0)]);
  if (buf.length <= 1024) list.push(['JS slicing-by-8 (crc.ts)', () => crcJs(T, big, off, end)]);
  return list;
}

function timeCalls(fn, calls) {
  let x = 0;
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < calls; i++) x ^= fn();
  return [Number(process.hrtime.bigint() - t0), x];
}

let sink = 0;
console.log(`hardware: ${ours.hardware}; ${process.version}; median of ${ROUNDS} rounds of ~${ROUND_MS} ms`);
console.log('size      implementation                   GB/s     ns/call');
for (const size of sizes) {
  const off = 3; // unaligned, as a record inside a frame
  const buf = big.subarray(off, off + size);
  const list = impls(buf, off);
  const calls = list.map(([, fn]) => { // calibrate
    let n = 16;
    for (;;) { const [ns] = timeCalls(fn, n); if (ns > 2e6) return Math.max(1, Math.round((n * ROUND_MS * 1e6) / ns)); n *= 4; }
  });
  const per = list.map(() => []);
  for (let r = 0; r < ROUNDS; r++) list.forEach(([, fn], i) => { const [ns, x] = timeCalls(fn, calls[i]); sink ^= x; per[i].push(ns / calls[i]); });
  list.forEach(([name], i) => {
    const ns = per[i].sort((a, b) => a - b)[ROUNDS >> 1];
    const gbs = size ? (size / ns).toFixed(2) : '-';
    console.log(`${String(size).padEnd(9)} ${name.padEnd(32)} ${gbs.padStart(6)}  ${ns.toFixed(1).padStart(10)}`);
  });
}
if (sink === 0.5) console.log(sink);
