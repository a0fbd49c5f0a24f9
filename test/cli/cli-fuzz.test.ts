/**
 * Hostile files never crash the CLI: a kafkalite-written data dir (every codec, several segments,
 * indexes, producer snapshots, checkpoints) is damaged at random (bytes flipped, files cut short,
 * garbage appended, hostile length fields) and verify, stats and dump-log (every file, deep
 * iteration with data, every decoder) must answer with a report (verify, stats) or an error line
 * and exit status (dump-log), never an exception. Damage in bytes a CRC covers must make verify fail. Cases derive from
 * (seed, index): KAFKALITE_FUZZ_SEED replays a run.
 */
import assert from 'node:assert/strict';
import { cpSync, openSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { dumpLog } from '../../src/cli/dump-log.js';
import { LineWriter } from '../../src/cli/output.js';
import { collectStats } from '../../src/cli/stats.js';
import { verifyPath } from '../../src/cli/verify.js';
import { encodeRecordBatch } from '../../src/record/index.js';
import { DEFAULT_LOG_CONFIG } from '../../src/storage/log-config.js';
import { LogManager } from '../../src/storage/log-manager.js';
import { Rng } from '../helpers/ref.js';
import { frameLog, tempDir } from '../helpers/storage.js';
import { tierCount } from '../helpers/tier.js';

const SEED = Number(process.env.KAFKALITE_FUZZ_SEED ?? 20261129);
/** The unit tier (test/tiers.ts) damages 60 copies. */
const CASES = Number(process.env.KAFKALITE_CLI_FUZZ_CASES ?? tierCount(150, 60));
const CODECS = ['none', 'gzip', 'snappy', 'lz4', 'zstd'] as const;

function listFiles(dir: string, out: string[] = []): string[] {
  for (const d of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, d.name);
    if (d.isDirectory()) listFiles(p, out);
    else out.push(p);
  }
  return out.sort();
}

describe('CLI on randomly damaged directories', () => {
  let tmp: { dir: string; cleanup: () => void };
  let pristine: string;
  const devNull = openSync('/dev/null', 'w');
  before(() => {
    tmp = tempDir('cli-fuzz');
    pristine = join(tmp.dir, 'pristine');
    const manager = LogManager.open(pristine, { defaultConfig: { ...DEFAULT_LOG_CONFIG, segmentBytes: 2500, indexIntervalBytes: 200 } });
    const log = manager.getOrCreateLog('t', 0);
    let sequence = 0;
    for (let i = 0; i < 25; i++) {
      const records = Array.from({ length: 1 + (i % 4) }, (_, j) => ({ key: `k${j}`, value: `v${i}.${j} `.repeat(6), headers: [{ key: 'h', value: 'x' }], timestamp: 1_700_000_000_000 + i * 10 + j }));
      const producer = i % 5 === 2 ? { producerId: 9n, producerEpoch: 0, baseSequence: sequence } : {};
      if (i % 5 === 2) sequence += records.length;
      log.append(encodeRecordBatch(records, { compression: CODECS[i % 5], ...producer }), { leaderEpoch: 1 });
    }
    manager.close();
  });
  after(() => tmp.cleanup());

  /** Every entry point; only typed errors may escape dumpLog (it catches them itself). */
  function exercise(dir: string): { ok: boolean } {
    const report = verifyPath(dir);
    collectStats(dir);
    const files = listFiles(dir);
    const out = new LineWriter(devNull);
    for (const decoder of [undefined, 'offsets', 'transaction-log', 'cluster-metadata'] as const) {
      const status = dumpLog(
        { files, deepIteration: true, printDataLog: true, skipRecordMetadata: false, maxBytes: 0x7fffffff, json: decoder === 'offsets', ...(decoder ? { decoder } : {}) },
        out,
        out,
      );
      assert.ok(status === 0 || status === 1);
    }
    return { ok: report.ok };
  }

  it('the undamaged directory verifies clean', () => {
    assert.equal(exercise(pristine).ok, true);
  });

  it(`${CASES} damaged copies: reports or typed errors only; CRC-covered damage always fails verify`, () => {
    const rng = new Rng(SEED);
    // cases run per kind of damage, and how many had damage under a CRC (the run is a fixed count, never a time)
    const kinds = [0, 0, 0, 0];
    let crcCases = 0;
    for (let c = 0; c < CASES; c++) {
      const dir = join(tmp.dir, `case-${c}`);
      cpSync(pristine, dir, { recursive: true });
      const files = listFiles(dir).filter((f) => !f.endsWith('.lock') && statSync(f).size > 0);
      const file = rng.pick(files);
      const bytes = readFileSync(file);
      const kind = rng.int(4);
      let crcCovered = false;
      if (kind === 0) {
        for (let k = 0, n = rng.range(1, 4); k < n; k++) bytes[rng.int(bytes.length)] ^= 1 << rng.int(8);
        writeFileSync(file, bytes);
      } else if (kind === 1) {
        writeFileSync(file, bytes.subarray(0, rng.int(bytes.length)));
      } else if (kind === 2) {
        writeFileSync(file, Buffer.concat([bytes, rng.bytes(rng.range(1, 80))]));
      } else {
        // a hostile length: a batch's size field or a record count in a .log, else any int32
        const at = file.endsWith('.log') && bytes.length >= 61 ? rng.pick([8, 57]) : rng.int(Math.max(1, bytes.length - 4));
        if (at + 4 <= bytes.length) bytes.writeInt32BE(rng.pick([0x7fffffff, -1, 13, 0x10000000]), at);
        writeFileSync(file, bytes);
        crcCovered = file.endsWith('.log') && at === 57; // the record count is under the CRC
      }
      if (kind === 0 && file.endsWith('.log')) {
        // a flip inside a batch's CRC-covered range (from attributes on) must be caught
        const framed = frameLog(readFileSync(join(pristine, file.slice(dir.length))));
        const diff = bytes.findIndex((b, i) => b !== readFileSync(join(pristine, file.slice(dir.length)))[i]);
        crcCovered = framed.some((b) => diff >= b.position + 21 && diff < b.position + b.size);
      }
      let result;
      try {
        result = exercise(dir);
      } catch (e) {
        // verify and stats report damage, dump-log prints it: nothing may escape
        assert.fail(`case ${c} (seed ${SEED}, ${file}, kind ${kind}): ${(e as Error).stack}`);
      }
      if (crcCovered) assert.equal(result.ok, false, `case ${c}: damage under a CRC in ${file} went unnoticed`);
      rmSync(dir, { recursive: true, force: true });
      kinds[kind]!++;
      if (crcCovered) crcCases++;
    }
    assert.equal(kinds.reduce((a, b) => a + b, 0), CASES);
    assert.ok(kinds.every((n) => n > 0), `every kind of damage ran: ${kinds.join(', ')}`);
    assert.ok(crcCases > 0, 'some damage fell under a CRC');
  });
});
