/**
 * `kafkalite verify` and `kafkalite recover`, run as a user runs them (the built bin/kafkalite.js in
 * a child process; exit codes, stdout, stderr).
 *
 * verify must pass on every real Kafka data directory of the kafka-tester corpus and on a
 * kafkalite-written one. Each injected fault (flipped CRC byte, truncated batch, index entry
 * pointing mid-batch, time index out of order, garbage .swap, corrupt producer snapshot, bad
 * checkpoint line) must be reported in the right file at the right byte, found independently from
 * the raw files (frameLog, fixed entry sizes, line offsets); `recover --full` must then repair
 * what Kafka's recovery repairs so that verify is clean, and `--dry-run` must report the same
 * changes while leaving every byte in place.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, readdirSync, readFileSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { encodeRecordBatch } from '../../src/index.js';
import { DEFAULT_LOG_CONFIG } from '../../src/storage/log-config.js';
import { LogManager } from '../../src/storage/log-manager.js';
import { CORPORA, REPO_ROOT } from '../helpers/paths.js';
import { RawClient } from '../helpers/raw-client.js';
import { frameLog, tempDir } from '../helpers/storage.js';

const CLI = join(REPO_ROOT, 'bin', 'kafkalite.js');
const TESTER = join(CORPORA, 'kafka-tester');
const CODECS = ['none', 'gzip', 'snappy', 'lz4', 'zstd'] as const;

function run(...args: string[]) {
  return spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8' });
}

interface Problem {
  file: string;
  position?: number;
  reason: string;
  severity: string;
}
interface Report {
  ok: boolean;
  problems: Problem[];
  segments: number;
  batches: number;
  records: number;
}

function verifyJson(path: string): { status: number | null; report: Report; stderr: string } {
  const res = run('verify', '--json', path);
  return { status: res.status, report: JSON.parse(res.stdout) as Report, stderr: res.stderr };
}

const errors = (r: Report) => r.problems.filter((p) => p.severity === 'error');

function treeHashes(root: string): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (dir: string) => {
    for (const d of readdirSync(dir, { withFileTypes: true })) {
      const p = join(dir, d.name);
      if (d.isDirectory()) walk(p);
      else out.set(relative(root, p), createHash('sha256').update(readFileSync(p)).digest('hex'));
    }
  };
  walk(root);
  return out;
}

/** A data dir written by kafkalite: two topics, every codec, several segments, an idempotent producer. */
function writeDataDir(dir: string): void {
  const config = { ...DEFAULT_LOG_CONFIG, segmentBytes: 4000, indexIntervalBytes: 300 };
  const manager = LogManager.open(dir, { defaultConfig: config });
  const events = manager.getOrCreateLog('events', 0);
  for (let i = 0; i < 30; i++) {
    const records = Array.from({ length: 1 + (i % 3) }, (_, j) => ({ key: `k${i}-${j}`, value: `event ${i}.${j} `.repeat(8), timestamp: 1_700_000_000_000 + i * 10 + j }));
    events.append(encodeRecordBatch(records, { compression: CODECS[i % 5] }), { leaderEpoch: 1 });
  }
  events.append(
    encodeRecordBatch([{ value: 'idempotent', timestamp: 1_700_000_001_000 }], { producerId: 42n, producerEpoch: 0, baseSequence: 0 }),
    { leaderEpoch: 1 },
  );
  const other = manager.getOrCreateLog('other', 1);
  other.append(encodeRecordBatch([{ value: 'x', timestamp: 1_700_000_000_000 }]), { leaderEpoch: 1 });
  manager.close();
}

describe('kafkalite verify: clean directories pass', () => {
  const dirs = readdirSync(TESTER).map((v) => join(TESTER, v, 'internal/test_helpers/pass_all/kraft-combined-logs'));
  it('the corpus has three kafka-tester data dirs', () => assert.equal(dirs.filter((d) => existsSync(d)).length, 3));
  for (const dir of dirs) {
    it(`real Kafka data dir ${relative(TESTER, dir).split('/')[0]}`, () => {
      const res = run('verify', dir);
      assert.equal(res.status, 0, res.stdout + res.stderr);
      assert.equal(res.stderr, '', 'nothing on stderr when it is not a terminal');
      assert.match(res.stdout.trimEnd().split('\n').at(-1)!, /^OK /);
      const { report } = verifyJson(dir);
      assert.equal(report.ok, true);
      assert.deepEqual(errors(report), []);
    });
  }
  it('every corpus segment file, partition dir and metadata file on its own', () => {
    const dir = dirs.find((d) => d.includes('@e856b9a'))!;
    for (const p of [
      join(dir, 'foo-0'),
      join(dir, '__cluster_metadata-0'),
      join(dir, 'foo-0/00000000000000000000.log'),
      join(dir, '__cluster_metadata-0/00000000000000000000.index'),
      join(dir, '__cluster_metadata-0/00000000000000000000.timeindex'),
      join(dir, 'foo-0/00000000000000000003.snapshot'),
      join(dir, 'bootstrap.checkpoint'),
      join(dir, 'recovery-point-offset-checkpoint'),
      join(dir, 'meta.properties'),
      join(dir, 'foo-0/partition.metadata'),
      join(dir, 'foo-0/leader-epoch-checkpoint'),
    ]) {
      const res = run('verify', p);
      assert.equal(res.status, 0, `${p}: ${res.stdout}`);
    }
  });
  it('counts what the corpus holds (e856b9a: metadata log 109 batches + foo-0 2 batches + bootstrap 3)', () => {
    const { report } = verifyJson(dirs.find((d) => d.includes('@e856b9a'))!);
    assert.equal(report.segments, 2);
    assert.equal(report.batches, 109 + 2 + 3);
  });
  it('a batch larger than the scan window (3 MiB) and a 17-byte tail', () => {
    const tmp = tempDir('verify-big');
    try {
      const log = join(tmp.dir, '00000000000000000000.log');
      const small = encodeRecordBatch([{ value: 'x', timestamp: 2 }], { baseOffset: 1n });
      writeFileSync(log, Buffer.concat([encodeRecordBatch([{ value: Buffer.alloc(3 * 1024 * 1024, 0x61), timestamp: 1 }]), small]));
      let res = verifyJson(log);
      assert.equal(res.status, 0, JSON.stringify(res.report.problems));
      assert.equal(res.report.batches, 2);
      // up to 17 trailing bytes are not even framed by Kafka (FileLogInputStream), but they are not a
      // batch (not zeros: a zero tail is a note, below)
      writeFileSync(log, Buffer.concat([readFileSync(log), Buffer.alloc(17, 0x5a)]));
      res = verifyJson(log);
      assert.equal(res.status, 1);
      assert.equal(errors(res.report)[0]!.position, statSync(log).size - 17);
    } finally {
      tmp.cleanup();
    }
  });

  it('a kafkalite-written data dir', () => {
    const tmp = tempDir('verify-clean');
    try {
      writeDataDir(tmp.dir);
      const { status, report } = verifyJson(tmp.dir);
      assert.equal(status, 0, JSON.stringify(report.problems));
      assert.ok(report.segments >= 3, 'several segments');
      assert.equal(report.records, 30 + 10 + 10 + 10 + 1 + 1); // 1+2+3 records per 3 batches, 30 batches
    } finally {
      tmp.cleanup();
    }
  });
});

describe('kafkalite verify: injected faults are found, recover repairs them', () => {
  let tmp: { dir: string; cleanup: () => void };
  let pristine: string;
  let faultNo = 0;
  before(() => {
    tmp = tempDir('verify-faults');
    pristine = join(tmp.dir, 'pristine');
    writeDataDir(pristine);
  });
  after(() => tmp.cleanup());

  /** A fresh copy of the clean dir and the paths of events-0's first segment. */
  function copy() {
    const dir = join(tmp.dir, `case-${faultNo++}`);
    cpSync(pristine, dir, { recursive: true });
    const part = join(dir, 'events-0');
    const seg = (ext: string) => join(part, `00000000000000000000${ext}`);
    return { dir, part, seg };
  }

  /** verify fails with an error in `file` at `position`; recover --full repairs; verify passes. */
  function expectFoundAndRepaired(dir: string, file: string, position: number | undefined, reason: RegExp, repaired = true): void {
    const res = run('verify', dir);
    assert.equal(res.status, 1, res.stdout);
    assert.match(res.stdout.trimEnd().split('\n').at(-1)!, /^FAILED /);
    const { report } = verifyJson(dir);
    const hit = errors(report).find((p) => p.file === file && p.position === position && reason.test(p.reason));
    assert.ok(hit, `expected ${file} at ${position} matching ${reason}, got ${JSON.stringify(report.problems, null, 1)}`);
    const line = `ERROR ${file}${position === undefined ? '' : ` at byte ${position}`}: ${hit.reason}`;
    assert.ok(res.stdout.split('\n').includes(line), `text line ${line}`);
    if (!repaired) return;
    const rec = run('recover', '--full', dir);
    assert.equal(rec.status, 0, rec.stderr);
    const again = verifyJson(dir);
    assert.deepEqual(errors(again.report), [], 'verify is clean after recover');
    assert.equal(again.status, 0);
  }

  it('flipped CRC byte: the batch position in the .log', () => {
    const { dir, seg } = copy();
    const bytes = readFileSync(seg('.log'));
    const batches = frameLog(bytes);
    const victim = batches[2]!;
    bytes[victim.position + victim.size - 1] ^= 0xff; // last record byte: covered by the CRC
    writeFileSync(seg('.log'), bytes);
    expectFoundAndRepaired(dir, seg('.log'), victim.position, /CRC mismatch/);
    assert.equal(statSync(seg('.log')).size, victim.position, 'recovery truncated at the corrupt batch');
  });

  it('truncated batch: the torn tail starts at the last whole batch', () => {
    const { dir, seg } = copy();
    const batches = frameLog(readFileSync(seg('.log')));
    const last = batches.at(-1)!;
    truncateSync(seg('.log'), last.position + last.size - 7);
    expectFoundAndRepaired(dir, seg('.log'), last.position, /do not form a whole batch/);
    assert.equal(statSync(seg('.log')).size, last.position);
  });

  // what a broker killed with its active segment grown ahead of its records leaves (Kafka's
  // preallocate=true; kafkalite's mapped tail): the state of every such crash, not damage
  for (const zeros of [5000, 7]) {
    it(`zeros after the last batch (${zeros} bytes): a note, not an error, and recover trims them`, () => {
      const { dir, seg } = copy();
      const bytes = readFileSync(seg('.log'));
      const end = frameLog(bytes).at(-1)!;
      assert.equal(end.position + end.size, bytes.length, 'the pristine segment ends with a whole batch');
      writeFileSync(seg('.log'), Buffer.concat([bytes, Buffer.alloc(zeros)]));
      const { status, report } = verifyJson(dir);
      assert.equal(status, 0, JSON.stringify(report.problems));
      assert.deepEqual(errors(report), []);
      const note = report.problems.find((p) => p.file === seg('.log'));
      assert.ok(note && note.severity === 'note' && note.position === bytes.length && new RegExp(`^${zeros} bytes of zeros after the last batch`).test(note.reason), JSON.stringify(report.problems));
      assert.equal(run('recover', '--full', dir).status, 0);
      assert.equal(statSync(seg('.log')).size, bytes.length, 'recovery cut the zeros');
    });
  }

  it('zeros then anything else after the last batch: still an error at the first byte that is not a batch', () => {
    const { dir, seg } = copy();
    const bytes = readFileSync(seg('.log'));
    const tail = Buffer.alloc(5000);
    tail[4999] = 1;
    writeFileSync(seg('.log'), Buffer.concat([bytes, tail]));
    expectFoundAndRepaired(dir, seg('.log'), bytes.length, /would be truncated by recovery/);
    assert.equal(statSync(seg('.log')).size, bytes.length);
  });

  it('index entry pointing mid-batch: the entry position in the .index', () => {
    const { dir, seg } = copy();
    const index = readFileSync(seg('.index'));
    assert.ok(index.length >= 16, 'the index has entries');
    index.writeInt32BE(index.readInt32BE(4) + 5, 4); // entry 0's position, 5 bytes into its batch
    writeFileSync(seg('.index'), index);
    expectFoundAndRepaired(dir, seg('.index'), 0, /inside the batch/);
  });

  it('time index out of order: the second entry in the .timeindex', () => {
    const { dir, seg } = copy();
    const ti = readFileSync(seg('.timeindex'));
    assert.ok(ti.length >= 24, 'the time index has two entries');
    ti.writeBigInt64BE(ti.readBigInt64BE(0) - 1n, 12); // entry 1's timestamp below entry 0's
    writeFileSync(seg('.timeindex'), ti);
    expectFoundAndRepaired(dir, seg('.timeindex'), 12, /out of order/);
  });

  function garbageSwap() {
    const c = copy();
    const swap = join(c.part, '00000000000000000005.log.swap');
    writeFileSync(swap, Buffer.alloc(100, 0x5a));
    return { ...c, swap };
  }

  it('garbage .swap: the swap file itself, at byte 0', () => {
    const { dir, swap } = garbageSwap();
    // 0x5a5a5a5a as a size runs past the end: a torn batch under the file rules (FileLogInputStream)
    expectFoundAndRepaired(dir, swap, 0, /do not form a whole batch/, false);
    const rec = run('recover', '--full', dir);
    assert.equal(rec.status, 0, rec.stderr);
    assert.equal(existsSync(swap), false, 'recovery resolved the .log.swap');
  });

  // resolving the .log.swap opens it as a segment, which must not leave .index.swap/.timeindex.swap behind
  it('garbage .swap: one recover leaves verify clean', () => {
    const { dir } = garbageSwap();
    assert.equal(run('recover', '--full', dir).status, 0);
    assert.deepEqual(errors(verifyJson(dir).report), []);
  });

  it('corrupt producer snapshot: the snapshot file with a byte position', () => {
    const { dir, part } = copy();
    const snap = readdirSync(part).filter((n) => n.endsWith('.snapshot')).sort().at(-1)!;
    const path = join(part, snap);
    const bytes = readFileSync(path);
    assert.ok(bytes.length > 10, 'the snapshot holds the idempotent producer');
    bytes[bytes.length - 1] ^= 0x01;
    writeFileSync(path, bytes);
    const { report } = verifyJson(dir);
    const hit = errors(report).find((p) => p.file === path);
    assert.ok(hit && hit.position !== undefined, JSON.stringify(report.problems));
    expectFoundAndRepaired(dir, path, hit.position, /crc|corrupt/i);
  });

  it('bad checkpoint line: the line start in recovery-point-offset-checkpoint', () => {
    const { dir } = copy();
    const path = join(dir, 'recovery-point-offset-checkpoint');
    writeFileSync(path, '0\n2\nevents 0 31\nother x 1\n');
    expectFoundAndRepaired(dir, path, '0\n2\nevents 0 31\n'.length, /Malformed line/);
  });

  it('recover --dry-run reports the changes a real run makes and changes nothing', () => {
    const { dir, seg } = copy();
    const batches = frameLog(readFileSync(seg('.log')));
    truncateSync(seg('.log'), batches.at(-1)!.position + 3);
    const before = treeHashes(dir);
    const dry = run('recover', '--dry-run', '--full', '--json', dir);
    assert.equal(dry.status, 0, dry.stderr);
    assert.deepEqual(treeHashes(dir), before, 'dry run left every byte');
    const real = run('recover', '--full', '--json', dir);
    const a = JSON.parse(dry.stdout) as { changes: unknown[]; truncations: { segment: string; position: number }[] };
    const b = JSON.parse(real.stdout) as typeof a;
    assert.deepEqual(a.changes, b.changes);
    assert.deepEqual(a.truncations, b.truncations);
    assert.ok(b.truncations.some((t) => t.segment === seg('.log') && t.position === batches.at(-1)!.position));
    assert.ok((b.changes as { change: string; file: string }[]).some((c) => c.change === 'truncated' && c.file === seg('.log')));
    const text = run('recover', '--dry-run', dir);
    assert.match(text.stdout, /^No changes .*dry run/m);
  });
});

describe('kafkalite verify / recover usage', () => {
  it('usage errors exit 2 with one line', () => {
    for (const args of [['verify'], ['verify', '/nonexistent/dir'], ['verify', '--bogus', '.'], ['recover'], ['recover', CLI]]) {
      const res = run(...args);
      assert.equal(res.status, 2, `${args.join(' ')}: ${res.stderr}`);
      assert.match(res.stderr, /^Error: /);
      assert.doesNotMatch(res.stderr, /\n\s+at /, 'no stack trace');
    }
  });
});

/**
 * Issue 17 finding 6: `verify` and `recover` must agree. The KRaft metadata log is not one of
 * LogManager's logs, but Kafka recovers it with the same loader at every start; and the zero tails
 * a killed broker leaves in its active segment's preallocated indexes are the normal state of an
 * unclean shutdown (recovery trims them), reported apart from damage.
 */
describe('kafkalite verify / recover agree (KRaft metadata log, preallocated index tails)', () => {
  const META = '__cluster_metadata-0';
  const dirs = readdirSync(TESTER).map((v) => join(TESTER, v, 'internal/test_helpers/pass_all/kraft-combined-logs'));
  const notes = (r: Report) => r.problems.filter((p) => p.severity === 'note');

  for (const source of dirs) {
    const label = relative(TESTER, source).split('/')[0]!;
    for (const full of [false, true]) {
      it(`${label}: a flipped byte in a ${META} batch is found by verify and repaired by recover${full ? ' --full' : ''}`, () => {
        const tmp = tempDir('verify-meta');
        try {
          const dir = join(tmp.dir, 'd');
          cpSync(source, dir, { recursive: true });
          spawnSync('chmod', ['-R', 'u+w', dir]);
          const log = join(dir, META, '00000000000000000000.log');
          const bytes = readFileSync(log);
          const batches = frameLog(bytes);
          const victim = batches[Math.floor(batches.length / 2)]!;
          bytes[victim.position + victim.size - 1] ^= 0xff; // the last record byte: covered by the CRC
          writeFileSync(log, bytes);
          const found = verifyJson(dir);
          assert.equal(found.status, 1);
          assert.ok(errors(found.report).some((p) => p.file === log && p.position === victim.position && /CRC mismatch/.test(p.reason)), JSON.stringify(found.report.problems));
          const rec = run('recover', ...(full ? ['--full'] : []), '--json', dir);
          assert.equal(rec.status, 0, rec.stderr);
          const report = JSON.parse(rec.stdout) as { truncations: { segment: string; position: number }[] };
          assert.deepEqual(report.truncations.map((t) => [t.segment, t.position]), [[log, victim.position]]);
          assert.equal(statSync(log).size, victim.position, 'recovery cut the metadata log at the corrupt batch');
          const after = verifyJson(dir);
          assert.deepEqual(errors(after.report), [], 'verify is clean after recover');
          assert.equal(after.status, 0);
        } finally {
          tmp.cleanup();
        }
      });
    }
  }

  it('a clean Kafka data dir: recover changes nothing in the metadata log but what its load writes', () => {
    const tmp = tempDir('verify-meta-clean');
    try {
      const dir = join(tmp.dir, 'd');
      cpSync(dirs[0]!, dir, { recursive: true });
      spawnSync('chmod', ['-R', 'u+w', dir]);
      const log = join(dir, META, '00000000000000000000.log');
      const before = readFileSync(log);
      const rec = run('recover', '--json', dir);
      assert.equal(rec.status, 0, rec.stderr);
      assert.deepEqual((JSON.parse(rec.stdout) as { truncations: unknown[] }).truncations, []);
      assert.ok(readFileSync(log).equals(before), 'the metadata log is byte for byte the same');
    } finally {
      tmp.cleanup();
    }
  });

  /**
   * A data dir whose broker (`kafkalite serve`, a child process) was SIGKILLed after acknowledging
   * `batches` produce requests, before its only segment was ever closed.
   */
  async function killedDataDir(dir: string, batches: number): Promise<void> {
    const child = spawn(process.execPath, [CLI, 'serve', '--port', '0', '--data-dir', dir, '--log-level', 'info'], { stdio: ['ignore', 'pipe', 'pipe'] });
    try {
      const port = await new Promise<number>((resolve, reject) => {
        let out = '';
        child.stdout.on('data', (d: Buffer) => {
          out += d.toString();
          const m = /listening on [^:\s]+:(\d+)/.exec(out);
          if (m) resolve(Number(m[1]));
        });
        child.on('exit', (code) => reject(new Error(`kafkalite serve exited ${code}: ${out}`)));
      });
      const c = await RawClient.connect(port);
      try {
        const created = await c.request(19, 4, { topics: [{ name: 'killed', numPartitions: 1, replicationFactor: 1, assignments: [], configs: [] }], timeoutMs: 5000, validateOnly: false });
        assert.equal(created.topics[0].errorCode, 0);
        for (let i = 0; i < batches; i++) {
          const records = encodeRecordBatch([{ key: `k${i}`, value: 'v'.repeat(200), timestamp: Date.now() }]);
          const r = await c.request(0, 9, { transactionalId: null, acks: -1, timeoutMs: 5000, topicData: [{ name: 'killed', partitionData: [{ index: 0, records }] }] });
          assert.equal(r.responses[0].partitionResponses[0].errorCode, 0);
        }
      } finally {
        c.destroy();
      }
    } finally {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGKILL');
      await exited;
    }
  }

  it('after a SIGKILL: the preallocated index tails are notes (exit 0), and recover trims them', async () => {
    const tmp = tempDir('verify-killed');
    try {
      await killedDataDir(tmp.dir, 50);
      const seg = (ext: string) => join(tmp.dir, 'killed-0', `00000000000000000000${ext}`);
      // the state the kill left: indexes still at their preallocated size (segment.index.bytes)
      assert.equal(statSync(seg('.index')).size, DEFAULT_LOG_CONFIG.segmentIndexBytes);
      const found = verifyJson(tmp.dir);
      assert.deepEqual(errors(found.report), [], JSON.stringify(found.report.problems));
      assert.equal(found.status, 0);
      assert.equal(found.report.ok, true);
      const tails = notes(found.report);
      // the KRaft metadata log's active segment was never closed either: a log like any other
      const meta = (ext: string) => join(tmp.dir, '__cluster_metadata-0', `00000000000000000000${ext}`);
      // where the platform maps the active segment's tail (storage/mapped-tail.ts), the Produce
      // appends left the .log longer than its batches, the rest zeros, found independently here
      const logBytes = readFileSync(seg('.log'));
      const last = frameLog(logBytes).at(-1)!;
      const logTail = logBytes.length > last.position + last.size;
      if (logTail) assert.ok(logBytes.subarray(last.position + last.size).every((b) => b === 0), 'the .log ends with zeros');
      const expected = [meta('.index'), meta('.timeindex'), seg('.index'), seg('.timeindex'), ...(logTail ? [seg('.log')] : [])];
      assert.deepEqual(tails.map((p) => p.file).sort(), expected.sort());
      for (const p of tails) {
        if (p.file === seg('.log')) assert.match(p.reason, /bytes of zeros after the last batch: the preallocated or mapped tail of a segment that was never closed .*recovery truncates them/);
        else assert.match(p.reason, /preallocated zero entries: the segment was never closed .*recovery .*rebuilds this index without them/);
      }
      const text = run('verify', tmp.dir);
      assert.match(text.stdout, new RegExp(`^NOTE ${seg('.index')} at byte \\d+: `, 'm'));
      assert.match(text.stdout.trimEnd().split('\n').at(-1)!, /^OK /);
      assert.equal(run('recover', tmp.dir).status, 0);
      assert.ok(statSync(seg('.index')).size < DEFAULT_LOG_CONFIG.segmentIndexBytes, 'recovery trimmed the index');
      assert.equal(statSync(seg('.log')).size, last.position + last.size, 'recovery cut the .log to its batches');
      const after = verifyJson(tmp.dir);
      assert.deepEqual(after.report.problems.filter((p) => p.severity !== 'warning'), []);
    } finally {
      tmp.cleanup();
    }
  });

  it('entries before a zero tail are still checked; the note starts where the zeros do', () => {
    const tmp = tempDir('verify-tail');
    try {
      writeDataDir(tmp.dir);
      const seg = (ext: string) => join(tmp.dir, 'events-0', `00000000000000000000${ext}`);
      const index = readFileSync(seg('.index'));
      const times = readFileSync(seg('.timeindex'));
      assert.ok(index.length >= 16 && times.length >= 24, 'the segment has index entries');
      // what a killed broker leaves: the entries, then the preallocated zeros
      writeFileSync(seg('.index'), Buffer.concat([index, Buffer.alloc(8 * 1000)]));
      writeFileSync(seg('.timeindex'), Buffer.concat([times, Buffer.alloc(12 * 1000)]));
      let found = verifyJson(tmp.dir);
      assert.equal(found.status, 0, JSON.stringify(found.report.problems));
      assert.deepEqual(notes(found.report).map((p) => [p.file, p.position]), [[seg('.index'), index.length], [seg('.timeindex'), times.length]]);
      const bad = Buffer.from(index);
      bad.writeInt32BE(bad.readInt32BE(4) + 5, 4); // entry 0 points inside its batch
      writeFileSync(seg('.index'), Buffer.concat([bad, Buffer.alloc(8 * 1000)]));
      found = verifyJson(tmp.dir);
      assert.equal(found.status, 1);
      assert.deepEqual(errors(found.report).map((p) => [p.file, p.position]), [[seg('.index'), 0]]);
      assert.equal(notes(found.report).length, 2);
    } finally {
      tmp.cleanup();
    }
  });

  it('after a SIGKILL: real damage is still an error (exit 1) beside the notes', async () => {
    const tmp = tempDir('verify-killed-bad');
    try {
      await killedDataDir(tmp.dir, 50);
      const log = join(tmp.dir, 'killed-0', '00000000000000000000.log');
      const bytes = readFileSync(log);
      const victim = frameLog(bytes)[10]!;
      bytes[victim.position + victim.size - 1] ^= 0xff;
      writeFileSync(log, bytes);
      const found = verifyJson(tmp.dir);
      assert.equal(found.status, 1);
      assert.equal(notes(found.report).length, 4); // both logs' index tails, the metadata log's included
      assert.deepEqual(errors(found.report).map((p) => [p.file, p.position]), [[log, victim.position]]);
    } finally {
      tmp.cleanup();
    }
  });
});
