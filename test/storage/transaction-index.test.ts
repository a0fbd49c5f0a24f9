/**
 * TransactionIndex against Kafka's TransactionIndexTest scenarios:
 * position when reopened, sanity check, strictly increasing lastOffset, collectAbortedTxns ranges
 * and completeness, truncate, entry serde, rename / delete / flush / lazy creation / reopen after
 * close — plus the file quirks of `TransactionIndex`/`AbortedTxn` (version from the first byte only, partial trailing entry
 * ignored, version > 0 rejected), with the file bytes checked against the layout directly.
 */
import assert from 'node:assert/strict';
import { appendFileSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { InvalidArgumentError, StorageError } from '../../src/errors.js';
import {
  ABORTED_TXN_SIZE,
  decodeAbortedTxn,
  encodeAbortedTxn,
  TransactionIndex,
  type AbortedTxn,
} from '../../src/storage/transaction-index.js';

/** Kafka's `new AbortedTxn(producerId, firstOffset, lastOffset, lastStableOffset)`: version 0. */
function txn(producerId: number, firstOffset: number, lastOffset: number, lastStableOffset: number): AbortedTxn {
  return {
    version: 0,
    producerId: BigInt(producerId),
    firstOffset: BigInt(firstOffset),
    lastOffset: BigInt(lastOffset),
    lastStableOffset: BigInt(lastStableOffset),
  };
}

/** Independent decoding of the AbortedTxn layout. */
function rawEntries(bytes: Buffer): AbortedTxn[] {
  const out: AbortedTxn[] = [];
  for (let at = 0; bytes.length - at >= 34; at += 34) {
    out.push({
      version: bytes.readInt16BE(at) >> 8,
      producerId: bytes.readBigInt64BE(at + 2),
      firstOffset: bytes.readBigInt64BE(at + 10),
      lastOffset: bytes.readBigInt64BE(at + 18),
      lastStableOffset: bytes.readBigInt64BE(at + 26),
    });
  }
  return out;
}

const FOUR = [txn(0, 0, 10, 11), txn(1, 5, 15, 13), txn(2, 18, 35, 25), txn(3, 32, 50, 40)];

let dir: string;
let file: string;
let index: TransactionIndex;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'kafkalite-txnindex-'));
  file = join(dir, '00000000000000000000.txnindex');
  writeFileSync(file, Buffer.alloc(0)); // Kafka's test starts from an existing empty temp file
  index = TransactionIndex.open(file, 0n);
});
afterEach(() => {
  index.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('TransactionIndex (Kafka TransactionIndexTest)', () => {
  it('testPositionSetCorrectlyWhenOpened: a reopened index appends after the existing entries', () => {
    const txns = [...FOUR];
    for (const t of txns) index.append(t);
    index.close();
    const reopened = TransactionIndex.open(file, 0n);
    try {
      const another = txn(3, 50, 60, 55);
      reopened.append(another);
      txns.push(another);
      assert.deepEqual(reopened.allAbortedTxns(), txns);
      assert.deepEqual(rawEntries(readFileSync(file)), txns);
    } finally {
      reopened.close();
    }
  });

  it('testSanityCheck: an entry with lastOffset below the start offset is corrupt', () => {
    for (const t of FOUR) index.append(t);
    index.sanityCheck();
    index.close();
    const reopened = TransactionIndex.open(file, 100n);
    try {
      assert.throws(
        () => reopened.sanityCheck(),
        (e: unknown) =>
          e instanceof StorageError &&
          /Last offset of aborted transaction AbortedTxn\(version=0, producerId=0, firstOffset=0, lastOffset=10, lastStableOffset=11\) in index .* is less than start offset 100/.test(
            e.message,
          ) &&
          e.position === 0,
      );
    } finally {
      reopened.close();
    }
    const atBoundary = TransactionIndex.open(file, 10n);
    atBoundary.sanityCheck(); // lastOffset == startOffset is fine
    atBoundary.close();
  });

  it('testLastOffsetMustIncrease: an equal lastOffset is refused', () => {
    index.append(txn(1, 5, 15, 13));
    assert.throws(() => index.append(txn(0, 0, 15, 11)), InvalidArgumentError);
    assert.throws(
      () => index.append(txn(0, 0, 15, 11)),
      /The last offset of appended transactions must increase sequentially, but 15 is not greater than current last offset 15 of index /,
    );
  });

  it('testLastOffsetCannotDecrease: a smaller lastOffset is refused, and nothing is written', () => {
    index.append(txn(1, 5, 15, 13));
    assert.throws(() => index.append(txn(0, 0, 10, 11)), InvalidArgumentError);
    assert.equal(statSync(file).size, ABORTED_TXN_SIZE);
    index.append(txn(0, 0, 16, 17));
    assert.equal(index.allAbortedTxns().length, 2);
  });

  it('testCollectAbortedTransactions: ranges and completeness', () => {
    for (const t of FOUR) index.append(t);
    let r = index.collectAbortedTxns(0n, 100n);
    assert.deepEqual(r.abortedTransactions, FOUR);
    assert.equal(r.isComplete, false);

    r = index.collectAbortedTxns(0n, 32n);
    assert.deepEqual(r.abortedTransactions, FOUR.slice(0, 3));
    assert.equal(r.isComplete, true);

    r = index.collectAbortedTxns(0n, 35n);
    assert.deepEqual(r.abortedTransactions, FOUR);
    assert.equal(r.isComplete, true);

    r = index.collectAbortedTxns(10n, 35n);
    assert.deepEqual(r.abortedTransactions, FOUR);
    assert.equal(r.isComplete, true);

    r = index.collectAbortedTxns(11n, 35n);
    assert.deepEqual(r.abortedTransactions, FOUR.slice(1, 4));
    assert.equal(r.isComplete, true);

    r = index.collectAbortedTxns(20n, 41n);
    assert.deepEqual(r.abortedTransactions, FOUR.slice(2, 4));
    assert.equal(r.isComplete, false);
  });

  it('collectAbortedTxns stops at the first entry whose lastStableOffset reaches the upper bound', () => {
    for (const t of FOUR) index.append(t);
    // upper bound 12: entry 0 (LSO 11) overlaps; entry 1 (LSO 13 >= 12) overlaps and completes
    const r = index.collectAbortedTxns(0n, 12n);
    assert.deepEqual(r.abortedTransactions, FOUR.slice(0, 2));
    assert.equal(r.isComplete, true);
    // nothing overlaps a range past every lastOffset, and nothing completes it
    const none = index.collectAbortedTxns(51n, 1000n);
    assert.deepEqual(none, { abortedTransactions: [], isComplete: false });
  });

  it('testTruncate: keeps the entries whose lastOffset is below the offset', () => {
    const txns = [txn(0, 0, 10, 2), txn(1, 5, 15, 16), txn(2, 18, 35, 25), txn(3, 32, 50, 40)];
    for (const t of txns) index.append(t);
    index.truncateTo(51n);
    assert.deepEqual(index.collectAbortedTxns(0n, 100n).abortedTransactions, txns);
    index.truncateTo(50n);
    assert.deepEqual(index.collectAbortedTxns(0n, 100n).abortedTransactions, txns.slice(0, 3));
    assert.equal(statSync(file).size, 3 * ABORTED_TXN_SIZE);
    // the last kept entry's lastOffset becomes the bound for the next append
    assert.throws(() => index.append(txn(9, 30, 35, 36)), InvalidArgumentError);
    index.append(txn(9, 30, 36, 37));
    index.reset();
    assert.deepEqual(index.collectAbortedTxns(0n, 100n).abortedTransactions, []);
    assert.equal(statSync(file).size, 0);
    index.append(txn(0, 0, 1, 2)); // reset clears the lastOffset bound
    assert.deepEqual(index.allAbortedTxns(), [txn(0, 0, 1, 2)]);
  });

  it('testAbortedTxnSerde: the 34-byte entry layout', () => {
    const t: AbortedTxn = { producerId: 983493n, firstOffset: 137n, lastOffset: 299n, lastStableOffset: 200n };
    const bytes = encodeAbortedTxn(t);
    assert.equal(bytes.length, 34);
    assert.deepEqual(bytes.subarray(0, 2), Buffer.from([0, 0]), 'version int16 0');
    assert.deepEqual(rawEntries(bytes), [{ version: 0, ...t }]);
    assert.deepEqual(decodeAbortedTxn(bytes), { version: 0, ...t });
    assert.throws(() => encodeAbortedTxn({ ...t, version: 1 }), InvalidArgumentError);
    assert.throws(() => encodeAbortedTxn({ ...t, lastOffset: 1n << 63n }), InvalidArgumentError);
  });

  it('testRenameIndex: appends and reads follow the file to its new path', () => {
    const renamed = join(dir, 'renamed.txnindex');
    index.append(txn(0, 0, 10, 2));
    index.renameTo(renamed);
    assert.equal(index.path, renamed);
    assert.equal(existsSync(file), false);
    index.append(txn(1, 5, 15, 16));
    const got = index.collectAbortedTxns(0n, 100n).abortedTransactions;
    assert.deepEqual(got.map((t) => t.firstOffset), [0n, 5n]);
    assert.equal(rawEntries(readFileSync(renamed)).length, 2);
  });

  it('renameTo of an index whose file does not exist only changes the path', () => {
    rmSync(file);
    const lazy = TransactionIndex.open(file, 0n);
    const other = join(dir, 'other.txnindex');
    lazy.renameTo(other);
    assert.equal(lazy.path, other);
    assert.equal(existsSync(other), false);
    lazy.append(txn(0, 0, 1, 2));
    assert.equal(existsSync(other), true);
    assert.equal(existsSync(file), false);
    lazy.close();
  });

  it('testFlush: flushing a missing file is a no-op, then it flushes appended bytes', () => {
    const missing = join(dir, '00000000000000000100.txnindex');
    const t = TransactionIndex.open(missing, 100n);
    try {
      t.flush();
      assert.equal(existsSync(missing), false);
      t.append(txn(0, 100, 110, 102));
      t.flush();
      assert.notEqual(statSync(missing).size, 0);
    } finally {
      t.close();
    }
  });

  it('testDeleteIfExists', () => {
    assert.equal(existsSync(file), true);
    assert.equal(index.deleteIfExists(), true);
    assert.equal(existsSync(file), false);
    assert.equal(index.deleteIfExists(), false);
    assert.deepEqual(index.allAbortedTxns(), []);
  });

  it('testIsEmptyWhenFileDoesNotExist / WhenFileIsEmpty / WhenFileIsNotEmpty', () => {
    const missing = TransactionIndex.open(join(dir, 'none.txnindex'), 0n);
    assert.equal(missing.isEmpty, true);
    assert.equal(existsSync(join(dir, 'none.txnindex')), false);
    missing.close();
    assert.equal(index.isEmpty, true);
    index.append(txn(0, 0, 10, 2));
    assert.equal(index.isEmpty, false);
  });

  it('testDoNotCreateFileUntilNeeded: open, reset and flush never create the file', () => {
    rmSync(file);
    const lazy = TransactionIndex.open(file, 0n);
    assert.equal(existsSync(file), false);
    lazy.reset();
    assert.equal(existsSync(file), false);
    lazy.flush();
    assert.equal(existsSync(file), false);
    lazy.sanityCheck();
    assert.deepEqual(lazy.allAbortedTxns(), []);
    lazy.truncateTo(0n);
    assert.equal(existsSync(file), false);
    lazy.append(txn(0, 0, 10, 2));
    assert.equal(existsSync(file), true);
    lazy.close();
  });

  it('testAppendAndCollectAfterClose: a closed index reopens its file', () => {
    index.close();
    index.append(txn(0, 0, 10, 2));
    index.close();
    index.append(txn(1, 5, 15, 16));
    index.close();
    index.close(); // idempotent
    const got = index.collectAbortedTxns(0n, 100n).abortedTransactions;
    assert.deepEqual(got.map((t) => t.firstOffset), [0n, 5n]);
    index.close();
    assert.equal(index.allAbortedTxns().length, 2);
  });

  it('startOffset is kept', () => {
    assert.equal(TransactionIndex.open(join(dir, 'x.txnindex'), 42n).startOffset, 42n);
  });
});

describe('TransactionIndex file quirks', () => {
  it('a partial trailing entry is ignored; like Kafka, a later append lands after it', () => {
    index.append(txn(0, 0, 10, 2));
    index.close();
    appendFileSync(file, Buffer.alloc(20, 0xab));
    const t = TransactionIndex.open(file, 0n);
    try {
      assert.deepEqual(t.allAbortedTxns(), [txn(0, 0, 10, 2)]);
      assert.equal(t.isEmpty, false);
      t.sanityCheck();
      // Kafka appends at the channel position, the end of the file: the new entry is misaligned
      // and readers see the torn bytes as an entry (first byte 0xab = version -85, accepted)
      t.append(txn(1, 11, 12, 13));
      assert.equal(statSync(file).size, 34 + 20 + 34);
      const got = t.allAbortedTxns();
      assert.equal(got.length, 2);
      assert.equal(got[1]!.version, -85);
      assert.deepEqual(got, rawEntries(readFileSync(file)));
    } finally {
      t.close();
    }
  });

  it('a file holding only a partial entry is empty', () => {
    writeFileSync(file, Buffer.alloc(33));
    const t = TransactionIndex.open(file, 0n);
    assert.equal(t.isEmpty, true);
    assert.deepEqual(t.allAbortedTxns(), []);
    t.close();
  });

  it('the version is read from the first byte only', () => {
    const bytes = encodeAbortedTxn(txn(7, 1, 2, 3));
    bytes.writeInt16BE(0x00ff, 0); // int16 255, but byte 0 is 0
    writeFileSync(file, bytes);
    const t = TransactionIndex.open(file, 0n);
    assert.deepEqual(t.allAbortedTxns(), [txn(7, 1, 2, 3)]);
    t.close();
    bytes.writeInt16BE(-1, 0); // byte 0 = 0xff = -1: not above the current version, accepted
    writeFileSync(file, bytes);
    const u = TransactionIndex.open(file, 0n);
    assert.equal(u.allAbortedTxns()[0]!.version, -1);
    u.close();
  });

  it('a version above 0 makes reading fail with a StorageError at that entry', () => {
    const bytes = Buffer.concat([encodeAbortedTxn(txn(7, 1, 2, 3)), encodeAbortedTxn(txn(8, 4, 5, 6))]);
    bytes.writeInt16BE(0x0100, 34); // byte 34 = 1
    writeFileSync(file, bytes);
    const t = TransactionIndex.open(file, 0n);
    try {
      for (const read of [() => t.allAbortedTxns(), () => t.collectAbortedTxns(0n, 100n), () => t.sanityCheck()]) {
        assert.throws(read, (e: unknown) => {
          assert.ok(e instanceof StorageError);
          assert.match(e.message, /Unexpected aborted transaction version 1 in transaction index .*, current version is 0/);
          assert.equal(e.position, 34);
          return true;
        });
      }
      // collect stops before the bad entry when the first one completes the search
      assert.equal(t.collectAbortedTxns(0n, 3n).isComplete, true);
    } finally {
      t.close();
    }
  });

  it('writes exactly the AbortedTxn bytes', () => {
    index.append({ producerId: 0x0102030405060708n, firstOffset: 9n, lastOffset: 10n, lastStableOffset: 11n });
    assert.deepEqual(
      readFileSync(file),
      Buffer.from('0000' + '0102030405060708' + '0000000000000009' + '000000000000000a' + '000000000000000b', 'hex'),
    );
  });
});
