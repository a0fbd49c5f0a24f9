/** .kafka_cleanshutdown (Kafka CleanShutdownFileHandler, CleanShutdownFileHandlerTest, LogManagerTest). */
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { InvalidArgumentError } from '../../src/errors.js';
import {
  cleanShutdownFilePath,
  consumeCleanShutdownFile,
  readCleanShutdownFile,
  writeCleanShutdownFile,
} from '../../src/storage/clean-shutdown.js';

const root = mkdtempSync(join(tmpdir(), 'kafkalite-clean-'));
after(() => rmSync(root, { recursive: true, force: true }));
let n = 0;
const freshDir = (content?: string) => {
  const dir = join(root, `logdir-${n++}`);
  mkdirSync(dir);
  if (content !== undefined) writeFileSync(join(dir, '.kafka_cleanshutdown'), content);
  return dir;
};

describe('.kafka_cleanshutdown', () => {
  test('write: Jackson\'s bytes; read gives the broker epoch back', () => {
    const dir = freshDir();
    writeCleanShutdownFile(dir, 10n);
    assert.equal(readFileSync(cleanShutdownFilePath(dir), 'utf8'), '{"version":0,"brokerEpoch":10}');
    assert.deepEqual(readCleanShutdownFile(dir), { brokerEpoch: 10n });
  });

  test('int64 epochs keep full precision', () => {
    const dir = freshDir();
    const max = (1n << 63n) - 1n;
    writeCleanShutdownFile(dir, max);
    assert.deepEqual(readCleanShutdownFile(dir), { brokerEpoch: max });
    writeCleanShutdownFile(dir, -1n);
    assert.deepEqual(readCleanShutdownFile(dir), { brokerEpoch: -1n });
    assert.throws(() => writeCleanShutdownFile(dir, 1n << 63n), InvalidArgumentError);
  });

  test('unknown fields are ignored, wherever they are and however deep', () => {
    const deep = '['.repeat(100000) + ']'.repeat(100000);
    const dir = freshDir(`{"extra":{"brokerEpoch":1,"x":[1,{"a":"}"}]},"brokerEpoch" : 9007199254740993 ,"version":0,"more":${deep}}`);
    assert.deepEqual(readCleanShutdownFile(dir), { brokerEpoch: 9007199254740993n });
  });

  test('Jackson coercions: integral float, numeric string; the last duplicate wins', () => {
    assert.deepEqual(readCleanShutdownFile(freshDir('{"brokerEpoch":5.0}')), { brokerEpoch: 5n });
    assert.deepEqual(readCleanShutdownFile(freshDir('{"brokerEpoch":"12"}')), { brokerEpoch: 12n });
    assert.deepEqual(readCleanShutdownFile(freshDir('{"brokerEpoch":1,"brokerEpoch":2}')), { brokerEpoch: 2n });
  });

  test('anything unreadable reads as undefined (Kafka returns an empty OptionalLong)', () => {
    for (const content of [
      '',
      '{',
      'null',
      '[1]',
      '7',
      '{"version":0}',
      '{"version":0,"brokerEpoch":null}',
      '{"brokerEpoch":true}',
      '{"brokerEpoch":1.5}',
      '{"brokerEpoch":9223372036854775808}',
      '{"brokerEpoch":1,"version":"x"}',
      '{"brokerEpoch":1} trailing',
    ]) {
      assert.equal(readCleanShutdownFile(freshDir(content)), undefined, content);
    }
    assert.equal(readCleanShutdownFile(freshDir()), undefined);
    const dirAsFile = freshDir();
    mkdirSync(cleanShutdownFilePath(dirAsFile));
    assert.equal(readCleanShutdownFile(dirAsFile), undefined);
  });

  test('consume: present → deleted and true; absent → false', () => {
    const dir = freshDir();
    writeCleanShutdownFile(dir, 3n);
    assert.equal(consumeCleanShutdownFile(dir), true);
    assert.equal(existsSync(cleanShutdownFilePath(dir)), false);
    assert.equal(consumeCleanShutdownFile(dir), false);
    // Presence, not content, means clean.
    assert.equal(consumeCleanShutdownFile(freshDir('garbage')), true);
  });
});
