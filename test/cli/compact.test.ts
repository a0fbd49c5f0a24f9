/**
 * `kafkalite compact <dir>`: run as a process (and in this process through the CLI's `main()`) against a data directory written by the storage
 * layer; the partition ends with one record per key and the checkpoint holds the round's end.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { encodeRecordBatch } from '../../src/record/index.js';
import { readOffsetCheckpoint } from '../../src/storage/checkpoint.js';
import { DEFAULT_LOG_CONFIG } from '../../src/storage/log-config.js';
import { LogManager } from '../../src/storage/log-manager.js';
import { runCli, spawnCli } from '../helpers/cli.js';
import { tempDir } from '../helpers/storage.js';
import { diskRecords } from '../storage/cleaner/harness.js';

describe('kafkalite compact', () => {
  it('compacts every partition of a data directory and reports what it did', () => {
    const tmp = tempDir('cli-compact');
    try {
      const manager = LogManager.open(tmp.dir, { defaultConfig: { ...DEFAULT_LOG_CONFIG, cleanupPolicy: 'compact' } });
      const log = manager.getOrCreateLog('users', 0);
      for (let round = 0; round < 4; round++) {
        log.append(encodeRecordBatch(Array.from({ length: 5 }, (_, i) => ({ key: `u${i}`, value: `r${round}`, timestamp: Date.now() }))));
        log.roll();
      }
      manager.close();
      // the one child of this file: the built binary
      const r = spawnCli('compact', tmp.dir, '--topic', 'users');
      assert.equal(r.status, 0, r.stderr);
      assert.match(r.stdout, /^users-0: cleaned 4 segments in 1 groups up to offset 20; 5 of 20 records kept/m);
      assert.deepEqual(
        diskRecords(join(tmp.dir, 'users-0')).map((x) => [x.key, x.value]),
        Array.from({ length: 5 }, (_, i) => [`u${i}`, 'r3']),
      );
      assert.deepEqual(readOffsetCheckpoint(join(tmp.dir, 'cleaner-offset-checkpoint')), [{ topic: 'users', partition: 0, offset: 20n }]);
      const again = runCli('compact', tmp.dir);
      assert.equal(again.status, 0, again.stderr);
      assert.match(again.stdout, /users-0: nothing to clean/);
      const bad = runCli('compact', tmp.dir, '--config', 'nonsense=1');
      assert.equal(bad.status, 1);
      assert.match(bad.stderr, /Unknown topic config name: nonsense/);
    } finally {
      tmp.cleanup();
    }
  });
});
