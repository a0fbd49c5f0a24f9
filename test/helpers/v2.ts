import assert from 'node:assert/strict';
import type { AnyRecordBatch, RecordBatch } from '../../src/index.js';

/** Narrows a batch from a mixed-magic reader to v2, failing the test if it is a legacy entry. */
export function v2(batch: AnyRecordBatch): RecordBatch {
  assert.equal(batch.kind, 'v2', `expected a v2 batch at byte ${batch.position}, found magic ${batch.magic}`);
  return batch as RecordBatch;
}
