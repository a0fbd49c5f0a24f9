/**
 * Logs opened at first use (issue 21, LogManagerOptions.openLogsAtFirstUse): after a clean shutdown a
 * start reads the checkpoints and the listing only; the checkpoints keep what they said of logs not
 * opened since; an unclean start opens and recovers every log before returning, as Kafka does.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { readOffsetCheckpoint } from '../../src/storage/checkpoint.js';
import { DEFAULT_LOG_CONFIG } from '../../src/storage/log-config.js';
import { LogManager } from '../../src/storage/log-manager.js';
import { clientBatch, tempDir } from '../helpers/storage.js';

const T0 = Date.now(); // within the default 7-day retention
let dir: string;
let cleanup: () => void;
const open: LogManager[] = [];

function openManager(lazy = true): LogManager {
  const m = LogManager.open(dir, { defaultConfig: { ...DEFAULT_LOG_CONFIG, segmentBytes: 1000 }, openLogsAtFirstUse: lazy });
  open.push(m);
  return m;
}
function closeManager(m: LogManager, clean = true): void {
  if (clean) m.close();
  else m.closeUnclean();
  open.splice(open.indexOf(m), 1);
}
const checkpoint = (name: string) => new Map(readOffsetCheckpoint(join(dir, name)).map((e) => [`${e.topic}-${e.partition}`, e.offset]));

/** Three partitions of `t`, 10 batches of 3 records each; records before offset 6 of t-1 deleted. */
function populate(): void {
  const m = openManager();
  for (let p = 0; p < 3; p++) {
    const log = m.getOrCreateLog('t', p);
    for (let i = 0; i < 10; i++) log.append(clientBatch(3, T0 + i, 40, `p${p}-${i}-`));
  }
  m.getLog('t', 1)!.deleteRecordsBefore(6n);
  closeManager(m);
}

beforeEach(() => ({ dir, cleanup } = tempDir('lazy-open')));
afterEach(() => {
  for (const m of open.splice(0)) m.closeUnclean();
  cleanup();
});

describe('logs opened at first use', () => {
  it('after close, a late getLog opens nothing (the clean-shutdown marker is written and the lock released)', () => {
    populate();
    const m = openManager();
    closeManager(m);
    assert.equal(m.getLog('t', 0), undefined);
    const again = openManager();
    assert.equal(again.getLog('t', 0)!.logEndOffset, 30n, 'the next start still finds the log');
  });

  it('a directory named other than partitionDirName (t-01, which Kafka reads as partition 1) is deleted and found by its real name, opened or not', () => {
    populate();
    renameSync(join(dir, 't-1'), join(dir, 't-01'));
    for (const openIt of [false, true]) {
      const m = openManager();
      if (openIt) assert.equal(m.getLog('t', 1)!.logEndOffset, 3n);
      assert.equal(m.deleteLog('t', 1), true);
      assert.equal(m.hasLog('t', 1), false);
      assert.equal(existsSync(join(dir, 't-01')), false, 'the real directory was left behind');
      closeManager(m);
      // the next round deletes it again from a fresh copy of its name
      if (!openIt) {
        const again = openManager();
        const log = again.getOrCreateLog('t', 1);
        log.append(clientBatch(3, T0, 40, 'again-'));
        closeManager(again);
        renameSync(join(dir, 't-1'), join(dir, 't-01'));
      }
    }
  });

  it('a clean start opens no log; getLog opens one with its records, log start and log end', () => {
    populate();
    const m = openManager();
    assert.equal(m.allLogs().length, 0);
    assert.equal(m.unopenedCount, 3);
    assert.deepEqual(m.logPartitions().map((p) => `${p.topic}-${p.partition}`).sort(), ['t-0', 't-1', 't-2']);
    assert.equal(m.hasLog('t', 2), true);
    assert.equal(m.openedLog('t', 1), undefined);
    const log = m.getLog('t', 1)!;
    assert.equal(log.logStartOffset, 6n);
    assert.equal(log.logEndOffset, 30n);
    assert.equal(log.highWatermark, 30n);
    assert.equal(m.unopenedCount, 2);
    assert.equal(m.allLogs().length, 1);
    assert.equal(m.getLog('t', 1), log);
    assert.equal(m.getLog('t', 3), undefined);
  });

  it('logSize of an unopened log is the size the opened log reports', () => {
    populate();
    const m = openManager();
    const size = m.logSize('t', 0);
    assert.ok(size !== undefined && size > 0);
    assert.equal(m.unopenedCount, 3);
    assert.equal(m.getLog('t', 0)!.size, size);
    assert.equal(m.logSize('t', 9), undefined);
  });

  it('a checkpoint written with logs unopened keeps their recovery points, log starts and high watermarks', () => {
    populate();
    const before = [checkpoint('recovery-point-offset-checkpoint'), checkpoint('log-start-offset-checkpoint'), checkpoint('replication-offset-checkpoint')];
    assert.equal(before[1]!.get('t-1'), 6n);
    const m = openManager();
    m.getLog('t', 0)!.append(clientBatch(2, T0 + 50));
    m.checkpoint();
    const rp = checkpoint('recovery-point-offset-checkpoint');
    assert.equal(rp.get('t-1'), 30n);
    assert.equal(rp.get('t-2'), 30n);
    assert.equal(rp.size, 3);
    assert.equal(checkpoint('log-start-offset-checkpoint').get('t-1'), 6n);
    const hw = checkpoint('replication-offset-checkpoint');
    assert.deepEqual([hw.get('t-0'), hw.get('t-1'), hw.get('t-2')], [32n, 30n, 30n]);
    // a crash now: the next start is unclean, opens every log and keeps t-1's start
    closeManager(m, false);
    const again = openManager();
    assert.equal(again.hadCleanShutdown, false);
    assert.equal(again.unopenedCount, 0);
    assert.equal(again.allLogs().length, 3);
    assert.equal(again.getLog('t', 1)!.logStartOffset, 6n);
    assert.equal(again.getLog('t', 0)!.logEndOffset, 32n);
  });

  it('a clean close with logs unopened leaves a clean directory with every checkpoint entry', () => {
    populate();
    closeManager(openManager());
    assert.equal(checkpoint('recovery-point-offset-checkpoint').size, 3);
    assert.equal(checkpoint('log-start-offset-checkpoint').get('t-1'), 6n);
    const m = openManager();
    assert.equal(m.hadCleanShutdown, true);
    assert.equal(m.getLog('t', 1)!.logStartOffset, 6n);
  });

  it('deleting an unopened log removes its directory without opening it', () => {
    populate();
    const m = openManager();
    assert.equal(m.deleteLog('t', 2), true);
    assert.equal(m.hasLog('t', 2), false);
    assert.equal(existsSync(join(dir, 't-2')), false);
    assert.equal(m.allLogs().length, 0);
    assert.equal(m.deleteLog('t', 2), false);
    m.checkpoint();
    assert.equal(checkpoint('recovery-point-offset-checkpoint').has('t-2'), false);
  });

  it('openNext opens logs within a time budget until none is left; ensureLog opens nothing', () => {
    populate();
    const m = openManager();
    m.ensureLog('t', 0);
    assert.equal(m.unopenedCount, 3);
    m.ensureLog('t', 3);
    assert.ok(readdirSync(dir).includes('t-3'));
    assert.equal(m.openNext(0), 2); // at least one log per call
    assert.equal(m.openNext(10_000), 0);
    assert.equal(m.allLogs().length, 4);
  });

  it('without openLogsAtFirstUse (offline tools) a clean start opens every log', () => {
    populate();
    const m = openManager(false);
    assert.equal(m.allLogs().length, 3);
    assert.equal(m.unopenedCount, 0);
  });
});
