/**
 * Crash safety (25 kills per mode, 75 in all, by default; 3 per mode in the unit tier): a child process appends continuously and is SIGKILLed at random moments; after each
 * kill the data directory must reopen (recovering), hold a valid prefix of the appended batches with
 * every batch whose append returned before the kill (with and without a flush per append: a process
 * kill does not lose the page cache; and held as the broker's Produce appends are, which copies
 * small batches through the mapped tail and leaves the active segment's file longer than its
 * records until recovery), and have indexes consistent with the log.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { readRecordBatches } from '../../src/record/index.js';
import { DEFAULT_LOG_CONFIG } from '../../src/storage/log-config.js';
import { LogManager } from '../../src/storage/log-manager.js';
import { REPO_ROOT } from '../helpers/paths.js';
import { tierCount } from '../helpers/tier.js';

const CHILD = join(REPO_ROOT, 'dist', 'test', 'crash', 'crash-child.js');
const KILLS = Number(process.env.KAFKALITE_CRASH_KILLS ?? tierCount(25, 3));

function valueFor(offset: bigint): string {
  return `record-${offset}-`.padEnd(40 + Number(offset % 200n), 'x');
}

/** Runs the child until a random moment after it is ready; returns the last acknowledged offset. */
function runAndKill(dir: string, mode: string, delayMs: number): Promise<{ lastAck: bigint; readyAt: bigint }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CHILD, dir, mode], { stdio: ['ignore', 'pipe', 'pipe'] });
    let buffered = '';
    let lastAck = -1n;
    let readyAt = -1n;
    let stderr = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      buffered += chunk;
      const lines = buffered.split('\n');
      buffered = lines.pop()!;
      for (const line of lines) {
        if (line.startsWith('ack ')) lastAck = BigInt(line.slice(4));
        else if (line.startsWith('ready ')) {
          readyAt = BigInt(line.slice(6));
          setTimeout(() => child.kill('SIGKILL'), delayMs);
        }
      }
    });
    child.stderr.on('data', (d) => (stderr += d));
    child.on('exit', (code, signal) => {
      if (signal !== 'SIGKILL') reject(new Error(`child exited with ${code}: ${stderr}`));
      else resolve({ lastAck, readyAt });
    });
  });
}

function verify(dir: string, mustContainUpTo: bigint): bigint {
  const manager = LogManager.open(dir, {
    defaultConfig: { ...DEFAULT_LOG_CONFIG, segmentBytes: 64 * 1024, indexIntervalBytes: 512, segmentIndexBytes: 4096 },
  });
  try {
    const log = manager.getLog('crash', 0)!;
    assert.ok(log, 'the partition survives');
    assert.ok(log.logEndOffset > mustContainUpTo, `LEO ${log.logEndOffset} must cover the acknowledged offset ${mustContainUpTo}`);
    // read everything back: a valid prefix, offsets contiguous, contents as written
    let expected = log.logStartOffset;
    while (expected < log.logEndOffset) {
      const { records } = log.read(expected, { maxBytes: 1 << 20 });
      assert.ok(records.length > 0);
      for (const batch of readRecordBatches(records)) {
        for (const r of batch.records()) {
          if (r.offset < expected) continue;
          assert.equal(r.offset, expected);
          assert.equal(r.value?.toString(), valueFor(r.offset));
          expected++;
        }
      }
    }
    // every offset index entry points at the start of a batch ending at that offset
    for (const segment of log.segmentList()) {
      for (let i = 0; i < segment.offsetIndex.entries; i++) {
        const e = segment.offsetIndex.entry(i);
        const h = segment.translateOffset(e.offset, e.position);
        assert.ok(h && h.position === e.position && h.lastOffset === e.offset, `index entry ${i} of segment ${segment.baseOffset} matches the log`);
      }
    }
    return log.logEndOffset;
  } finally {
    manager.closeUnclean();
  }
}

describe('crash safety (SIGKILL during appends)', () => {
  for (const mode of ['flush', 'noflush', 'held']) {
    it(`${KILLS} kills while appending (${mode} per append): every acknowledged batch survives, indexes consistent`, async () => {
      const dir = mkdtempSync(join(tmpdir(), `kafkalite-crash-${mode}-`));
      try {
        let seed = 12345;
        const rand = () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff);
        for (let i = 0; i < KILLS; i++) {
          const { lastAck } = await runAndKill(dir, mode, Math.floor(rand() * 150));
          verify(dir, lastAck);
        }
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });
  }
});
