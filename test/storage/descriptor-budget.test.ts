/**
 * The descriptor budget (src/storage/descriptor-budget.ts): under random use of many segment files
 * and indexes, the descriptors open on the directory (counted in /proc/self/fd, not asked of the
 * code under test) never exceed the budget; a file the budget closed reopens with its data intact;
 * held appends and unwritten index entries reach the file before its descriptor is closed.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, test } from 'node:test';
import { brokerConfigFromProperties } from '../../src/broker/config.js';
import { InvalidArgumentError, InvalidConfigError, StorageError } from '../../src/errors.js';
import { budgetForLimit, checkBudgetWithinLimit, DescriptorBudget, MIN_DESCRIPTOR_BUDGET, processOpenFileLimit } from '../../src/storage/descriptor-budget.js';
import { FileRecords } from '../../src/storage/file-records.js';
import { HeldAppends } from '../../src/storage/held-appends.js';
import { LogManager } from '../../src/storage/log-manager.js';
import { encodeRecordBatch } from '../../src/record/builder.js';
import { createLogResources } from '../../src/storage/log-resources.js';
import { OffsetIndex } from '../../src/storage/offset-index.js';
import { TransactionIndex } from '../../src/storage/transaction-index.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'kafkalite-fds-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/**
 * Descriptors this process has open on segment and index files under `path`, as the kernel lists
 * them (the directory's `.lock`, held open while a LogManager runs, is not under the budget).
 */
function openUnder(path: string): number {
  let n = 0;
  for (const fd of readdirSync('/proc/self/fd')) {
    try {
      const target = readlinkSync(`/proc/self/fd/${fd}`);
      if (target.startsWith(path + '/') && /\.(log|index|timeindex|txnindex)$/.test(target)) n++;
    } catch {
      // the descriptor readdir itself used, closed meanwhile
    }
  }
  return n;
}

/** A small deterministic generator (mulberry32), so a failure replays. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe('the process limit and the default budget', () => {
  test('the soft limit is read from /proc/self/limits; unlimited or absent gives undefined', () => {
    const text = 'Limit                     Soft Limit           Hard Limit           Units     \nMax open files            4096                 524288               files     \n';
    assert.equal(processOpenFileLimit(text), 4096);
    assert.equal(processOpenFileLimit(text.replace('4096 ', 'unlimited ')), undefined);
    assert.equal(processOpenFileLimit('Max processes 10 10\n'), undefined);
    const own = processOpenFileLimit();
    assert.ok(own !== undefined && own > 0, 'this process has a limit on Linux');
  });

  test('the default is half the limit, kept between the minimum and the cap', () => {
    assert.equal(budgetForLimit(1024), 512);
    assert.equal(budgetForLimit(4), MIN_DESCRIPTOR_BUDGET);
    assert.equal(budgetForLimit(1_000_000), 12_288);
    assert.equal(budgetForLimit(undefined), 1024);
    assert.equal(createLogResources().descriptors.limitCount, budgetForLimit(processOpenFileLimit()));
  });

  test('a budget below the minimum is refused, as option and as broker property', () => {
    assert.throws(() => new DescriptorBudget(MIN_DESCRIPTOR_BUDGET - 1), InvalidArgumentError);
    assert.throws(() => createLogResources({ openFileBudget: 2.5 }), InvalidArgumentError);
    assert.equal(brokerConfigFromProperties({ 'kafkalite.open.files.budget': '64' }).openFileBudget, 64);
    assert.throws(
      () => brokerConfigFromProperties({ 'kafkalite.open.files.budget': '3' }),
      (e: unknown) => e instanceof InvalidConfigError && /kafkalite.open.files.budget.*at least 8/.test(e.message),
    );
  });

  test('a budget above the process limit is refused with the error of running out, before the directory is locked', () => {
    checkBudgetWithinLimit(4096, 4096);
    checkBudgetWithinLimit(1_000_000, undefined); // limit unknown: nothing to check against
    assert.throws(
      () => checkBudgetWithinLimit(4097, 4096),
      (e: unknown) => e instanceof StorageError && /^Out of file descriptors \(the process may open 4096 files, ulimit -n\): .*Raise the limit or lower kafkalite\.open\.files\.budget\.$/.test(e.message),
    );
    const limit = processOpenFileLimit();
    if (limit !== undefined) {
      assert.throws(() => LogManager.open(join(dir, 'over'), { openFileBudget: limit + 1 }), StorageError);
      LogManager.open(join(dir, 'over'), { openFileBudget: limit }).close(); // not locked by the refused open
    }
  });
});

describe('the least-recently-used order', () => {
  /** Holders named by number; `refuse` holds those that cannot let go now. */
  function setup(limit: number) {
    const budget = new DescriptorBudget(limit);
    const released: number[] = [];
    const refuse = new Set<number>();
    const holders = Array.from({ length: 40 }, (_, i) => ({ id: i, releaseDescriptor: () => (refuse.has(i) ? false : (released.push(i), true)) }));
    const order = () => [...budget.leastRecentlyUsed()].map((h) => holders.findIndex((x) => x === h));
    const open = (i: number) => {
      budget.reserve();
      budget.opened(holders[i]!);
    };
    return { budget, released, refuse, holders, order, open };
  }

  test('evicts the least recently used; touch and reopen make a holder the newest; a holder closed by itself leaves the list', () => {
    const { budget, released, holders, order, open } = setup(8);
    for (let i = 0; i < 8; i++) open(i);
    assert.deepEqual(order(), [0, 1, 2, 3, 4, 5, 6, 7]);
    budget.touch(holders[0]!);
    budget.touch(holders[3]!);
    budget.touch(holders[3]!);
    budget.opened(holders[5]!); // opened again without a close in between: counted once
    assert.deepEqual(order(), [1, 2, 4, 6, 7, 0, 3, 5]);
    assert.equal(budget.openCount, 8);
    budget.closed(holders[2]!);
    budget.closed(holders[2]!); // twice is harmless
    budget.touch(holders[2]!); // not open: not added
    assert.deepEqual(order(), [1, 4, 6, 7, 0, 3, 5]);
    open(8);
    assert.deepEqual(released, [], 'room was left by the close');
    open(9);
    open(10);
    assert.deepEqual(released, [1, 4]);
    assert.deepEqual(order(), [6, 7, 0, 3, 5, 8, 9, 10]);
    assert.equal(budget.evictions, 2);
  });

  test('a holder that cannot let go is passed over and moved to the newest end; when none can, nothing is closed', () => {
    const { budget, released, refuse, order, open } = setup(8);
    for (let i = 0; i < 8; i++) open(i);
    refuse.add(0);
    refuse.add(1);
    open(8);
    assert.deepEqual(released, [2]);
    assert.deepEqual(order(), [3, 4, 5, 6, 7, 0, 1, 8]);
    for (let i = 0; i < 40; i++) refuse.add(i);
    open(9);
    assert.deepEqual(released, [2], 'nobody could be closed');
    assert.equal(budget.openCount, 9, 'over the budget rather than a loop');
    refuse.clear();
    open(10);
    assert.deepEqual(released, [2, 3, 4], 'back within the budget, oldest first');
    assert.deepEqual(order(), [5, 6, 7, 0, 1, 8, 9, 10]);
    assert.equal(budget.openCount, 8);
  });

  test('under churn over many more holders than the budget, the order is that of a plain list kept by hand', () => {
    const { budget, released, holders, order, open } = setup(8);
    // the model: an array from least to most recently used, each step done the obvious O(n) way
    const model: number[] = [];
    const modelReleased: number[] = [];
    const use = (i: number) => {
      const at = model.indexOf(i);
      if (at >= 0) model.splice(at, 1);
      model.push(i);
    };
    let seed = 0x2545f491;
    const random = (n: number) => {
      // xorshift32: a fixed sequence, so a failure repeats
      seed ^= seed << 13;
      seed ^= seed >>> 17;
      seed ^= seed << 5;
      return (seed >>> 0) % n;
    };
    for (let step = 0; step < 5000; step++) {
      const i = random(40);
      const op = random(4);
      if (op === 0) {
        budget.closed(holders[i]!);
        const at = model.indexOf(i);
        if (at >= 0) model.splice(at, 1);
      } else if (op === 1) {
        budget.touch(holders[i]!);
        if (model.includes(i)) use(i);
      } else if (!model.includes(i)) {
        // a holder opens its file only while it has none open (file-records.ts, index-file.ts)
        open(i);
        while (model.length >= 8) modelReleased.push(model.shift()!);
        use(i);
      }
      assert.ok(budget.openCount <= 8);
    }
    assert.ok(modelReleased.length > 500, `the budget was under pressure (${modelReleased.length} evictions)`);
    assert.deepEqual(released, modelReleased);
    assert.deepEqual(order(), model);
    assert.equal(budget.evictions, modelReleased.length);
  });
});

describe('running out of descriptors anyway', () => {
  const emfile = () => Object.assign(new Error('EMFILE: too many open files, open'), { code: 'EMFILE' });

  test('EMFILE closes the least recently used quarter and the open is tried again', () => {
    const budget = new DescriptorBudget(100);
    const released: number[] = [];
    const holders = Array.from({ length: 8 }, (_, i) => ({ releaseDescriptor: () => (released.push(i), true) }));
    for (const h of holders) budget.opened(h);
    budget.touch(holders[0]!);
    let calls = 0;
    const fd = budget.open(() => {
      if (calls++ === 0) throw emfile();
      return 42;
    });
    assert.equal(fd, 42);
    assert.deepEqual(released, [1, 2], 'the two least recently used of eight');
    assert.equal(budget.openCount, 6);
  });

  test('with nothing to close, or EMFILE again, the error names the limit; other errors pass through', () => {
    const budget = new DescriptorBudget(100);
    assert.throws(
      () => budget.open(() => { throw emfile(); }),
      (e: unknown) => e instanceof StorageError && /ulimit -n/.test(e.message) && /kafkalite.open.files.budget/.test(e.message),
    );
    budget.opened({ releaseDescriptor: () => true });
    assert.throws(() => budget.open(() => { throw emfile(); }), (e: unknown) => e instanceof StorageError && /Out of file descriptors/.test(e.message));
    const enoent = Object.assign(new Error('ENOENT'), { code: 'ENOENT' });
    assert.throws(() => budget.open(() => { throw enoent; }), (e: unknown) => e === enoent);
  });
});

describe('segment files and indexes under a budget', () => {
  test('random appends, reads and lookups over 40 segments never hold more than 8 descriptors, and read back what was written', () => {
    const budget = 8;
    const resources = createLogResources({ openFileBudget: budget });
    const next = random(21);
    const files: FileRecords[] = [];
    const indexes: OffsetIndex[] = [];
    const written: Buffer[][] = [];
    const entries: { offset: bigint; position: number }[][] = [];
    for (let i = 0; i < 40; i++) {
      files.push(FileRecords.openWritable(join(dir, `${i}.log`), { create: true, resources }));
      indexes.push(OffsetIndex.open(join(dir, `${i}.index`), 0n, { maxIndexSize: 4096, resources }));
      written.push([]);
      entries.push([]);
      assert.ok(openUnder(dir) <= budget, `after opening segment ${i}: ${openUnder(dir)} open`);
    }
    for (let step = 0; step < 3000; step++) {
      const i = Math.floor(next() * files.length);
      const file = files[i]!;
      const op = next();
      if (op < 0.4) {
        const bytes = Buffer.alloc(1 + Math.floor(next() * 64), step & 0xff);
        const position = file.append(bytes);
        assert.equal(position, Buffer.concat(written[i]!).length);
        written[i]!.push(bytes);
        const e = entries[i]!;
        if (e.length < 500) {
          e.push({ offset: BigInt(e.length * 3), position });
          indexes[i]!.append(BigInt((e.length - 1) * 3), position);
        }
      } else if (op < 0.7) {
        const all = Buffer.concat(written[i]!);
        const from = Math.floor(next() * (all.length + 1));
        assert.deepEqual(file.readBytes(from, 100), all.subarray(from, from + 100), `segment ${i} from ${from}`);
      } else {
        const e = entries[i]!;
        if (e.length > 0) {
          const k = Math.floor(next() * e.length);
          assert.deepEqual(indexes[i]!.lookup(e[k]!.offset + 1n), e[k], `index ${i} entry ${k}`);
        }
      }
      assert.ok(resources.descriptors.openCount <= budget);
      if (step % 100 === 0) assert.ok(openUnder(dir) <= budget, `step ${step}: ${openUnder(dir)} open`);
    }
    assert.ok(resources.descriptors.evictions > 100, 'the budget closed files along the way');
    for (let i = 0; i < files.length; i++) {
      files[i]!.flush();
      indexes[i]!.flush();
      // what the kernel holds matches, read without the code under test
      assert.deepEqual(readFileSync(join(dir, `${i}.log`)), Buffer.concat(written[i]!), `segment ${i} on disk`);
      files[i]!.close();
      indexes[i]!.close();
    }
    assert.equal(openUnder(dir), 0);
    assert.equal(resources.descriptors.openCount, 0);
    // the indexes' entries reached their files before each close by the budget
    for (let i = 0; i < indexes.length; i++) {
      const reopened = OffsetIndex.open(join(dir, `${i}.index`), 0n, { writable: false });
      for (const e of entries[i]!) assert.deepEqual(reopened.lookup(e.offset), e);
      reopened.close();
    }
  });

  test('held appends are written before the budget closes their file, and writeAll afterwards still succeeds', () => {
    const resources = createLogResources({ openFileBudget: MIN_DESCRIPTOR_BUDGET });
    const held = new HeldAppends(1 << 30, resources.logDirFailure);
    const path = join(dir, 'held.log');
    const file = FileRecords.openWritable(path, { create: true, resources });
    const a = Buffer.alloc(100, 1);
    const b = Buffer.alloc(50, 2);
    file.append(a, held);
    file.append(b, held);
    assert.equal(readFileSync(path).length, 0, 'held, not yet written');
    const others = Array.from({ length: MIN_DESCRIPTOR_BUDGET }, (_, i) =>
      FileRecords.openWritable(join(dir, `other-${i}.log`), { create: true, resources }),
    );
    assert.equal(file.descriptorOpen, false, 'the least recently used file was closed');
    assert.deepEqual(readFileSync(path), Buffer.concat([a, b]), 'its held appends were written first');
    held.writeAll();
    const c = Buffer.alloc(10, 3);
    assert.equal(file.append(c, held), 150);
    held.writeAll();
    assert.deepEqual(readFileSync(path), Buffer.concat([a, b, c]));
    assert.deepEqual(file.readBytes(0, 1000), Buffer.concat([a, b, c]));
    for (const f of [file, ...others]) f.close();
    assert.equal(openUnder(dir), 0);
  });

  test('a transaction index closed by the budget reopens for reads, appends and flush', () => {
    const resources = createLogResources({ openFileBudget: MIN_DESCRIPTOR_BUDGET });
    const path = join(dir, '0.txnindex');
    const txn = TransactionIndex.open(path, 0n, resources);
    txn.append({ producerId: 1n, firstOffset: 0n, lastOffset: 5n, lastStableOffset: 6n });
    const others = Array.from({ length: MIN_DESCRIPTOR_BUDGET }, (_, i) =>
      FileRecords.openWritable(join(dir, `o-${i}.log`), { create: true, resources }),
    );
    assert.ok(openUnder(dir) <= MIN_DESCRIPTOR_BUDGET);
    txn.append({ producerId: 2n, firstOffset: 7n, lastOffset: 9n, lastStableOffset: 10n });
    txn.flush();
    assert.equal(readFileSync(path).length, 2 * 34);
    assert.deepEqual(
      txn.allAbortedTxns().map((t) => t.producerId),
      [1n, 2n],
    );
    txn.close();
    for (const f of others) f.close();
    assert.equal(openUnder(dir), 0);
  });
});

describe('one budget per data directory', () => {
  test('two LogManagers in one process keep their own budgets, each bounding its own directory', () => {
    const a = LogManager.open(join(dir, 'a'), { openFileBudget: 8 });
    const b = LogManager.open(join(dir, 'b'), { openFileBudget: 16 });
    try {
      assert.notEqual(a.resources.descriptors, b.resources.descriptors);
      for (let p = 0; p < 10; p++) {
        a.getOrCreateLog('t', p).append(encodeRecordBatch([{ value: Buffer.from(`a${p}`) }]));
        b.getOrCreateLog('t', p).append(encodeRecordBatch([{ value: Buffer.from(`b${p}`) }]));
      }
      assert.ok(openUnder(join(dir, 'a')) <= 8, `a: ${openUnder(join(dir, 'a'))}`);
      assert.ok(openUnder(join(dir, 'b')) <= 16, `b: ${openUnder(join(dir, 'b'))}`);
      assert.ok(openUnder(join(dir, 'b')) > 8, 'b is not held to a\'s budget');
      assert.equal(a.resources.descriptors.limitCount, 8);
      assert.equal(b.resources.descriptors.limitCount, 16);
    } finally {
      a.close();
      b.close();
    }
  });
});
