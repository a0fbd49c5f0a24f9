/** partition.metadata (Kafka PartitionMetadataFile, PartitionMetadataFileTest): exact bytes, read rules. */
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { InvalidArgumentError, StorageError } from '../../src/errors.js';
import { readPartitionMetadata, writePartitionMetadata } from '../../src/storage/partition-metadata.js';
import { ZERO_UUID, randomUuid } from '../../src/storage/uuid.js';

const dir = mkdtempSync(join(tmpdir(), 'kafkalite-pm-'));
after(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;
const fresh = (content?: string | Buffer) => {
  const path = join(dir, `partition.metadata.${n++}`);
  if (content !== undefined) writeFileSync(path, content);
  return path;
};

function assertStorageError(fn: () => unknown, text: string, position?: number): void {
  assert.throws(fn, (e: unknown) => {
    assert.ok(e instanceof StorageError, String(e));
    assert.ok(e.detail.includes(text), `"${e.detail}" should contain "${text}"`);
    if (position !== undefined) assert.equal(e.position, position);
    return true;
  });
}

describe('partition.metadata', () => {
  test('write: exact bytes, no trailing newline, no temp file left', () => {
    const path = fresh();
    writePartitionMetadata(path, 'v9meXjI1RVKB-NSvF0GXDA');
    assert.equal(readFileSync(path, 'utf8'), 'version: 0\ntopic_id: v9meXjI1RVKB-NSvF0GXDA');
    assert.equal(readdirSync(dir).some((f) => f.endsWith('.tmp')), false);
  });

  test('record, flush, read back (and overwrite)', () => {
    const path = fresh();
    const id = randomUuid();
    writePartitionMetadata(path, id);
    assert.deepEqual(readPartitionMetadata(path), { version: 0, topicId: id });
    const id2 = randomUuid();
    writePartitionMetadata(path, id2);
    assert.deepEqual(readPartitionMetadata(path), { version: 0, topicId: id2 });
  });

  test('write refuses the zero uuid and invalid ids', () => {
    assert.throws(() => writePartitionMetadata(fresh(), ZERO_UUID), InvalidArgumentError);
    assert.throws(() => writePartitionMetadata(fresh(), 'nope'), InvalidArgumentError);
  });

  test('reading accepts what Kafka accepts', () => {
    const id = 'fZi4qEpCTsik-rzkyV0Ypg';
    assert.deepEqual(readPartitionMetadata(fresh(`version: 0\ntopic_id: ${id}\n`)), { version: 0, topicId: id });
    // Newer versions are accepted (downgrade compatibility); keys are not checked; \s+ after ':'.
    assert.deepEqual(readPartitionMetadata(fresh(`version:\t 3\r\nanything:  ${id}\nextra line`)), { version: 3, topicId: id });
  });

  test('malformed files are StorageErrors with the line position', () => {
    assertStorageError(() => readPartitionMetadata(fresh('')), 'Malformed line', 0);
    assertStorageError(() => readPartitionMetadata(fresh('version:0\ntopic_id: fZi4qEpCTsik-rzkyV0Ypg')), 'version:0 (line 1)', 0);
    assertStorageError(() => readPartitionMetadata(fresh('version: x\ntopic_id: fZi4qEpCTsik-rzkyV0Ypg')), 'Malformed line', 0);
    assertStorageError(() => readPartitionMetadata(fresh('version: 0: 1\n')), 'Malformed line', 0);
    assertStorageError(() => readPartitionMetadata(fresh('version: 0')), 'Malformed line', 10);
    assertStorageError(() => readPartitionMetadata(fresh('version: 0\ntopic_id fZi4qEpCTsik-rzkyV0Ypg')), '(line 2)', 11);
    assertStorageError(() => readPartitionMetadata(fresh('version: -1\ntopic_id: fZi4qEpCTsik-rzkyV0Ypg')), 'Unrecognized version of partition metadata file', 0);
    assertStorageError(() => readPartitionMetadata(fresh(`version: 0\ntopic_id: ${ZERO_UUID}`)), 'Invalid topic ID in partition metadata file', 11);
    assertStorageError(() => readPartitionMetadata(fresh('version: 0\ntopic_id: AAAA')), 'Invalid topic ID', 11);
    assertStorageError(() => readPartitionMetadata(fresh(Buffer.from([0xff]))), 'not UTF-8', 0);
    assertStorageError(() => readPartitionMetadata(join(dir, 'missing')), 'does not exist');
  });
});
