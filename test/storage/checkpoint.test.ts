/**
 * CheckpointFile text format (Kafka `CheckpointFile`), after Kafka's OffsetCheckpointFileTest,
 * LeaderEpochCheckpointFileTest and CheckpointFileTest: write/overwrite/reload, multiple lines,
 * empty file, unknown version, malformed lines and count mismatches, each with its line position.
 */
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { InvalidArgumentError, StorageError } from '../../src/errors.js';
import {
  javaSplit,
  JAVA_WHITESPACE,
  parseJavaInt,
  parseJavaLong,
  readLeaderEpochCheckpoint,
  readOffsetCheckpoint,
  readTextLines,
  writeLeaderEpochCheckpoint,
  writeOffsetCheckpoint,
} from '../../src/storage/checkpoint.js';

const dir = mkdtempSync(join(tmpdir(), 'kafkalite-checkpoint-'));
after(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;
const fresh = (content?: string | Buffer): string => {
  const path = join(dir, `cp-${n++}`);
  if (content !== undefined) writeFileSync(path, content);
  return path;
};

const LONG_MAX = (1n << 63n) - 1n;

/** Asserts a StorageError whose message contains `text` and whose position is `position`. */
function assertStorageError(fn: () => unknown, text: string, position?: number): void {
  assert.throws(fn, (e: unknown) => {
    assert.ok(e instanceof StorageError, `expected StorageError, got ${String(e)}`);
    assert.equal(e.code, 'STORAGE_ERROR');
    assert.ok(e.detail.includes(text), `"${e.detail}" should contain "${text}"`);
    if (position !== undefined) assert.equal(e.position, position);
    return true;
  });
}

describe('offset checkpoint', () => {
  test('write then read, multiple lines, exact bytes', () => {
    const path = fresh();
    const entries = [
      { topic: 'foo', partition: 0, offset: 1n },
      { topic: 'foo', partition: 1, offset: 2n },
      { topic: '__consumer_offsets', partition: 49, offset: LONG_MAX },
    ];
    writeOffsetCheckpoint(path, entries);
    assert.equal(readFileSync(path, 'utf8'), `0\n3\nfoo 0 1\nfoo 1 2\n__consumer_offsets 49 ${LONG_MAX}\n`);
    assert.deepEqual(readOffsetCheckpoint(path), entries);
    assert.deepEqual(readdirSync(dir).filter((f) => f.endsWith('.tmp')), []);
  });

  test('overwrite replaces the content, reload sees the latest', () => {
    const path = fresh();
    writeOffsetCheckpoint(path, [{ topic: 'a', partition: 0, offset: 10n }]);
    writeOffsetCheckpoint(path, [{ topic: 'b', partition: 3, offset: 20n }]);
    assert.deepEqual(readOffsetCheckpoint(path), [{ topic: 'b', partition: 3, offset: 20n }]);
    writeOffsetCheckpoint(path, []);
    assert.equal(readFileSync(path, 'utf8'), '0\n0\n');
    assert.deepEqual(readOffsetCheckpoint(path), []);
  });

  test('missing file, empty file and version-only file read as empty', () => {
    assert.deepEqual(readOffsetCheckpoint(join(dir, 'does-not-exist')), []);
    assert.deepEqual(readOffsetCheckpoint(fresh('')), []);
    assert.deepEqual(readOffsetCheckpoint(fresh('0\n')), []);
    assert.deepEqual(readOffsetCheckpoint(fresh('0')), []);
  });

  test('unknown version', () => {
    const path = fresh('1\n0\n');
    assertStorageError(() => readOffsetCheckpoint(path), `Unrecognised version:1, expected version: 0 in checkpoint file at: ${path}`, 0);
  });

  test('malformed version or count line', () => {
    assertStorageError(() => readOffsetCheckpoint(fresh('x\n0\n')), 'Malformed line in checkpoint file', 0);
    assertStorageError(() => readOffsetCheckpoint(fresh('0 \n0\n')), 'Malformed line', 0);
    assertStorageError(() => readOffsetCheckpoint(fresh('\n')), 'Malformed line', 0);
    assertStorageError(() => readOffsetCheckpoint(fresh('0\nabc\n')), 'abc (line 2)', 2);
    assertStorageError(() => readOffsetCheckpoint(fresh('0\n-1\n')), '-1 (line 2)', 2);
    assertStorageError(() => readOffsetCheckpoint(fresh('0\n2147483648\n')), '(line 2)', 2);
  });

  test('malformed entry lines carry the line number and byte position', () => {
    const cases: [string, string][] = [
      ['0\n1\nfoo 0\n', 'foo 0 (line 3)'], // 2 fields
      ['0\n1\nfoo 0 1 2\n', 'foo 0 1 2 (line 3)'], // 4 fields
      ['0\n1\n foo 0 1\n', ' foo 0 1 (line 3)'], // leading space → empty first field
      ['0\n1\nfoo x 1\n', 'foo x 1'],
      ['0\n1\nfoo 0 1x\n', 'foo 0 1x'],
      ['0\n1\nfoo 2147483648 1\n', 'foo 2147483648 1'],
      ['0\n1\nfoo 0 9223372036854775808\n', '9223372036854775808'],
      ['0\n1\n\n', '(line 3)'], // a blank line is an entry, and malformed
    ];
    for (const [content, text] of cases) assertStorageError(() => readOffsetCheckpoint(fresh(content)), text, 4);
    assertStorageError(() => readOffsetCheckpoint(fresh('0\n2\nfoo 0 1\nbar\n')), 'bar (line 4)', 12);
  });

  test('entry count mismatch', () => {
    const path = fresh('0\n2\nfoo 0 1\n');
    assertStorageError(() => readOffsetCheckpoint(path), `Expected [2] entries in checkpoint file [${path}], but found only [1]`, 2);
    assertStorageError(() => readOffsetCheckpoint(fresh('0\n1\nfoo 0 1\nbar 1 2\n')), 'Expected [1] entries', 2);
    assertStorageError(() => readOffsetCheckpoint(fresh('0\n1\n')), 'but found only [0]', 2);
  });

  test('Java parsing rules: \\s+ separators, trailing whitespace, signs, CR/CRLF, no final newline', () => {
    assert.deepEqual(readOffsetCheckpoint(fresh('0\n1\nfoo\t 0  \x0B7 \t\n')), [{ topic: 'foo', partition: 0, offset: 7n }]);
    assert.deepEqual(readOffsetCheckpoint(fresh('0\r\n1\r\nfoo +1 -5\r\n')), [{ topic: 'foo', partition: 1, offset: -5n }]);
    assert.deepEqual(readOffsetCheckpoint(fresh('0\r1\rfoo 0 007')), [{ topic: 'foo', partition: 0, offset: 7n }]);
  });

  test('a BOM or invalid UTF-8 is refused, not decoded leniently', () => {
    assertStorageError(() => readOffsetCheckpoint(fresh(Buffer.from('\ufeff0\n0\n'))), 'Malformed line', 0);
    assertStorageError(() => readOffsetCheckpoint(fresh(Buffer.from([0x30, 0x0a, 0x31, 0x0a, 0xff, 0x20, 0x30, 0x20, 0x31, 0x0a]))), 'not UTF-8', 4);
  });

  test('a directory in place of the file is a StorageError', () => {
    assertStorageError(() => readOffsetCheckpoint(dir), 'failed to read');
  });

  test('write refuses entries that would corrupt the format', () => {
    const path = fresh();
    assert.throws(() => writeOffsetCheckpoint(path, [{ topic: 'a b', partition: 0, offset: 0n }]), InvalidArgumentError);
    assert.throws(() => writeOffsetCheckpoint(path, [{ topic: 'a\nb', partition: 0, offset: 0n }]), InvalidArgumentError);
    assert.throws(() => writeOffsetCheckpoint(path, [{ topic: '', partition: 0, offset: 0n }]), InvalidArgumentError);
    assert.throws(() => writeOffsetCheckpoint(path, [{ topic: 'a', partition: 1.5, offset: 0n }]), InvalidArgumentError);
    assert.throws(() => writeOffsetCheckpoint(path, [{ topic: 'a', partition: 0, offset: 1n << 63n }]), InvalidArgumentError);
  });
});

describe('leader-epoch checkpoint', () => {
  test('write then read, exact bytes', () => {
    const path = fresh();
    const entries = [
      { epoch: 0, startOffset: 0n },
      { epoch: 2, startOffset: 3n },
      { epoch: 2147483647, startOffset: LONG_MAX },
    ];
    writeLeaderEpochCheckpoint(path, entries);
    assert.equal(readFileSync(path, 'utf8'), `0\n3\n0 0\n2 3\n2147483647 ${LONG_MAX}\n`);
    assert.deepEqual(readLeaderEpochCheckpoint(path), entries);
  });

  test('empty (0-byte, as Kafka creates it) and missing files read as empty', () => {
    assert.deepEqual(readLeaderEpochCheckpoint(fresh('')), []);
    assert.deepEqual(readLeaderEpochCheckpoint(join(dir, 'nope')), []);
  });

  test('malformed lines', () => {
    assertStorageError(() => readLeaderEpochCheckpoint(fresh('0\n1\n1 2 3\n')), '1 2 3 (line 3)', 4);
    assertStorageError(() => readLeaderEpochCheckpoint(fresh('0\n1\n1\n')), '1 (line 3)', 4);
    assertStorageError(() => readLeaderEpochCheckpoint(fresh('0\n1\nx 2\n')), 'x 2', 4);
    assertStorageError(() => readLeaderEpochCheckpoint(fresh('1\n1\n1 2\n')), 'Unrecognised version:1', 0);
  });

  test('write refuses non-int32 epochs', () => {
    assert.throws(() => writeLeaderEpochCheckpoint(fresh(), [{ epoch: 2 ** 31, startOffset: 0n }]), InvalidArgumentError);
  });
});

describe('Java text helpers', () => {
  test('parseJavaInt / parseJavaLong', () => {
    assert.equal(parseJavaInt('0'), 0);
    assert.equal(parseJavaInt('-2147483648'), -2147483648);
    assert.equal(parseJavaInt('+2147483647'), 2147483647);
    assert.equal(parseJavaInt('0000000000000000000001'), 1);
    for (const bad of ['', '+', '-', ' 1', '1 ', '2147483648', '1e3', '0x1', '1.0', '١']) assert.equal(parseJavaInt(bad), undefined, bad);
    assert.equal(parseJavaLong('-9223372036854775808'), -(1n << 63n));
    assert.equal(parseJavaLong('9223372036854775807'), LONG_MAX);
    assert.equal(parseJavaLong('9223372036854775808'), undefined);
    assert.equal(parseJavaLong('1'.repeat(10000)), undefined);
  });

  test('javaSplit follows String.split', () => {
    assert.deepEqual(javaSplit('', JAVA_WHITESPACE), ['']);
    assert.deepEqual(javaSplit('a b', JAVA_WHITESPACE), ['a', 'b']);
    assert.deepEqual(javaSplit(' a b', JAVA_WHITESPACE), ['', 'a', 'b']);
    assert.deepEqual(javaSplit('a b  ', JAVA_WHITESPACE), ['a', 'b']);
    assert.deepEqual(javaSplit('   ', JAVA_WHITESPACE), []);
    assert.deepEqual(javaSplit('a\u00a0b', JAVA_WHITESPACE), ['a\u00a0b']); // Java \s is ASCII only
  });

  test('readTextLines follows BufferedReader.readLine', () => {
    const lines = readTextLines(Buffer.from('a\nb\r\nc\rd'), 'x');
    assert.deepEqual(lines.map((l) => [l.text, l.line, l.position]), [['a', 1, 0], ['b', 2, 2], ['c', 3, 5], ['d', 4, 7]]);
    assert.deepEqual(readTextLines(Buffer.from('a\n\n'), 'x').map((l) => l.text), ['a', '']);
    assert.deepEqual(readTextLines(Buffer.alloc(0), 'x'), []);
  });
});
