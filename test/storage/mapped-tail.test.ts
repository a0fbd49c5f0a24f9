/**
 * The mapped tail (src/storage/mapped-tail.ts): small held appends copied through a mapped window
 * of the segment file read back exactly as written ones do, the file is trimmed to its records,
 * anything the mapping cannot take is written, and the windows stay bounded.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { closeSync, fstatSync, ftruncateSync, openSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { FileRecords } from '../../src/storage/file-records.js';
import { HeldAppends } from '../../src/storage/held-appends.js';
import { createLogResources, type LogResources } from '../../src/storage/log-resources.js';
import { MAP_AFTER_WRITES, MAX_MAPPED_APPEND, MappedTails, REMAP_AFTER_WRITES, nativeMappingCalls, type MappingCalls } from '../../src/storage/mapped-tail.js';
import { LogManager } from '../../src/storage/log-manager.js';
import { DEFAULT_LOG_CONFIG } from '../../src/storage/log-config.js';
import { encodeRecordBatch } from '../../src/record/builder.js';
import { tempDir } from '../helpers/storage.js';

const WINDOW = 64 * 1024;

function realCalls(): MappingCalls {
  const calls = nativeMappingCalls();
  // the native addon is part of the build CI tests (Linux): its absence is a failure, not a skip
  assert.ok(process.platform !== 'linux' || calls, 'kafkalite-native with its mapping calls is built');
  return calls!;
}

/** Resources whose mapped windows are `window` bytes, at most `max` at once, mapped from a file's first small append unless `mapAfter` says. */
function resourcesWith(calls: MappingCalls, window = WINDOW, max = 64, mapAfter = 0): LogResources & { mappedTails: MappedTails } {
  return { ...createLogResources(), mappedTails: new MappedTails(calls, window, max, mapAfter) };
}

/** A new segment file on `resources` in a scratch directory (removed afterwards), and the HeldAppends its appends use. */
function withSegment(resources: LogResources, body: (s: { file: FileRecords; path: string; held: HeldAppends }) => void): void {
  const tmp = tempDir('mapped-tail');
  try {
    const path = join(tmp.dir, '00000000000000000000.log');
    body({ file: FileRecords.openWritable(path, { create: true, resources }), path, held: new HeldAppends() });
  } finally {
    tmp.cleanup();
  }
}

function fileSize(path: string): number {
  return statSync(path).size;
}

const linuxOnly = { skip: process.platform !== 'linux' ? 'the mapped tail is Linux only' : false };

test('small held appends go through the mapping: nothing is held, the file reads back as written, and is trimmed to its records', linuxOnly, () => {
  const resources = resourcesWith(realCalls());
  withSegment(resources, ({ file, path, held }) => {
    const written: Buffer[] = [];
    for (let i = 0; i < 200; i++) {
      const bytes = randomBytes(50 + ((i * 37) % 250));
      file.append(bytes, held);
      written.push(bytes);
      assert.equal(held.holding, false, `append ${i} was copied, not held`);
    }
    const expected = Buffer.concat(written);
    assert.equal(file.sizeInBytes, expected.length);
    assert.equal(resources.mappedTails.windows, 1);
    assert.equal(fileSize(path), WINDOW, 'the file reaches the end of its allocated window');
    assert.deepEqual(file.readBytes(0, expected.length), expected, 'reads through the descriptor see the copies');
    assert.deepEqual(readFileSync(path).subarray(0, expected.length), expected);
    assert.ok(readFileSync(path).subarray(expected.length).every((b) => b === 0), 'zeros past the records');
    file.trimToSize();
    assert.equal(resources.mappedTails.windows, 0, 'the trim unmapped the window');
    assert.equal(fileSize(path), expected.length);
    file.close();
    assert.deepEqual(readFileSync(path), expected);
  });
});

test('a file writes its first MAP_AFTER_WRITES small appends, then maps: a partition given a few records allocates nothing ahead', linuxOnly, () => {
  const resources = resourcesWith(realCalls(), WINDOW, 64, MAP_AFTER_WRITES);
  withSegment(resources, ({ file, path, held }) => {
    const written: Buffer[] = [];
    for (let i = 0; i <= MAP_AFTER_WRITES; i++) {
      const bytes = randomBytes(100);
      file.append(bytes, held);
      written.push(bytes);
      assert.equal(held.holding, i < MAP_AFTER_WRITES, i < MAP_AFTER_WRITES ? `append ${i + 1} written` : 'then copied');
      if (i < MAP_AFTER_WRITES) {
        assert.equal(resources.mappedTails.windows, 0);
        held.writeAll();
        assert.equal(fileSize(path), file.sizeInBytes, 'nothing allocated ahead');
      }
    }
    assert.equal(resources.mappedTails.windows, 1);
    assert.equal(fileSize(path), WINDOW);
    file.trimToSize();
    file.close();
    assert.deepEqual(readFileSync(path), Buffer.concat(written));
  });
});

test("appends larger than MAX_MAPPED_APPEND or across a window's end are written; once one is held, the rest wait with it", linuxOnly, () => {
  const resources = resourcesWith(realCalls());
  withSegment(resources, ({ file, path, held }) => {
    const written: Buffer[] = [];
    const append = (bytes: Buffer, expectHeld: boolean, what: string) => {
      file.append(bytes, held);
      written.push(bytes);
      assert.equal(held.holding, expectHeld, what);
    };
    append(randomBytes(1000), false, 'small: copied');
    append(randomBytes(MAX_MAPPED_APPEND + 1), true, 'larger than MAX_MAPPED_APPEND: held');
    // held bytes go out as one run from the first held position: nothing may land between them
    append(randomBytes(100), true, 'small after a held one: held too');
    held.writeAll();
    // fill up to 10 bytes before the window's end, then one that crosses it
    let size = file.sizeInBytes;
    while (size + 3000 < WINDOW - 10) {
      append(randomBytes(3000), false, 'small: copied');
      size = file.sizeInBytes;
    }
    append(randomBytes(WINDOW - 10 - size), false, 'up to 10 bytes before the end: copied');
    append(randomBytes(20), true, "across the window's end: held");
    held.writeAll();
    append(randomBytes(20), false, 'inside the next window: copied');
    assert.equal(resources.mappedTails.windows, 1, 'one window at a time per file');
    assert.equal(fileSize(path), 2 * WINDOW);
    const expected = Buffer.concat(written);
    assert.deepEqual(file.readBytes(0, expected.length), expected);
    file.trimToSize();
    file.close();
    assert.deepEqual(readFileSync(path), expected);
  });
});

test('a truncation unmaps the window; later appends map again and the file holds what was kept and appended', linuxOnly, () => {
  const resources = resourcesWith(realCalls());
  withSegment(resources, ({ file, path, held }) => {
    const a = randomBytes(3000);
    const b = randomBytes(2000);
    const c = randomBytes(500);
    file.append(a, held);
    file.append(b, held);
    assert.equal(file.truncateTo(a.length), b.length);
    assert.equal(resources.mappedTails.windows, 0);
    assert.equal(fileSize(path), a.length);
    file.append(c, held);
    assert.equal(held.holding, false, 'copied again');
    assert.equal(resources.mappedTails.windows, 1);
    file.trimToSize();
    file.close();
    assert.deepEqual(readFileSync(path), Buffer.concat([a, c]));
  });
});

test('at most maxWindows are mapped: mapping another takes the oldest, whose file is trimmed to its records and writes REMAP_AFTER_WRITES appends before it maps again', linuxOnly, () => {
  const tmp = tempDir('mapped-tail');
  try {
    const resources = resourcesWith(realCalls(), WINDOW, 2);
    const held = new HeldAppends();
    const paths = [0, 1, 2].map((i) => join(tmp.dir, `f${i}.log`));
    const files = paths.map((path) => FileRecords.openWritable(path, { create: true, resources }));
    const written: Buffer[][] = [[], [], []];
    const append = (i: number, expectHeld: boolean, what: string) => {
      const bytes = randomBytes(200);
      files[i]!.append(bytes, held);
      written[i]!.push(bytes);
      assert.equal(held.holding, expectHeld, what);
      held.writeAll();
    };
    append(0, false, 'f0 maps');
    append(1, false, 'f1 maps');
    assert.equal(resources.mappedTails.windows, 2);
    assert.equal(fileSize(paths[0]!), WINDOW, 'a mapped file runs to its window end');
    append(2, false, "f2 maps and takes the oldest window, f0's");
    assert.equal(resources.mappedTails.windows, 2, 'the bound holds');
    assert.equal(fileSize(paths[0]!), 200, 'the taken file was trimmed to its records: its allocation given back');
    assert.equal(fileSize(paths[1]!), WINDOW);
    for (let n = 0; n < REMAP_AFTER_WRITES; n++) append(0, true, `f0 writes (${n + 1} of ${REMAP_AFTER_WRITES}) before it maps again`);
    append(1, false, 'f1 still mapped');
    append(0, false, "f0 maps again and takes the window mapped longest ago, f1's: using a window does not renew it");
    assert.equal(fileSize(paths[1]!), 400, 'f1 trimmed in turn');
    assert.equal(fileSize(paths[2]!), WINDOW);
    assert.equal(resources.mappedTails.windows, 2);
    for (let i = 0; i < 3; i++) {
      files[i]!.trimToSize();
      files[i]!.close();
      assert.deepEqual(readFileSync(paths[i]!), Buffer.concat(written[i]!));
    }
    assert.equal(resources.mappedTails.windows, 0);
  } finally {
    tmp.cleanup();
  }
});

test("a taken window's file whose descriptor the budget closed is trimmed through its path, without reopening it", linuxOnly, () => {
  const tmp = tempDir('mapped-tail');
  try {
    const resources = resourcesWith(realCalls(), WINDOW, 1);
    const held = new HeldAppends();
    const paths = [0, 1].map((i) => join(tmp.dir, `f${i}.log`));
    const files = paths.map((path) => FileRecords.openWritable(path, { create: true, resources }));
    const a = randomBytes(300);
    files[0]!.append(a, held);
    assert.equal(held.holding, false);
    assert.equal(files[0]!.releaseDescriptor(), true);
    assert.equal(files[0]!.descriptorOpen, false);
    files[1]!.append(randomBytes(100), held);
    assert.equal(held.holding, false);
    assert.equal(files[0]!.descriptorOpen, false, 'not reopened by the trim');
    assert.equal(fileSize(paths[0]!), a.length);
    for (const file of files) file.close();
    assert.deepEqual(readFileSync(paths[0]!), a);
  } finally {
    tmp.cleanup();
  }
});

test('a page fault the kernel refuses fails the copy, not the process: that append and the later ones are written', linuxOnly, () => {
  const resources = resourcesWith(realCalls());
  withSegment(resources, ({ file, path, held }) => {
    const first = randomBytes(1000);
    file.append(first, held);
    assert.equal(held.holding, false, 'copied');
    // the file cut under the mapping, as nothing in the broker does: a store into a page past the
    // end of a mapped file is refused with SIGBUS, as a store into an immutable file is
    const fd = openSync(path, 'r+');
    try {
      ftruncateSync(fd, 4096);
    } finally {
      closeSync(fd);
    }
    const within = randomBytes(500);
    file.append(within, held);
    assert.equal(held.holding, false, 'a store into the first page still succeeds');
    const pastEnd = randomBytes(4000);
    file.append(pastEnd, held);
    assert.equal(held.holding, true, 'the faulting copy failed over to a write');
    assert.equal(resources.mappedTails.windows, 0, 'and unmapped its window');
    held.writeAll();
    const later = randomBytes(100);
    file.append(later, held);
    assert.equal(held.holding, true, 'the file writes from then on');
    held.writeAll();
    file.trimToSize();
    file.close();
    assert.deepEqual(readFileSync(path), Buffer.concat([first, within, pastEnd, later]));
  });
});

test("a failed allocation (a full disk) writes that file's appends from then on", linuxOnly, () => {
  const real = realCalls();
  let allocations = 0;
  const ENOSPC = 28;
  const calls: MappingCalls = { allocate: () => (allocations++, ENOSPC), map: real.map, copy: real.copy, unmap: real.unmap };
  const resources = resourcesWith(calls);
  withSegment(resources, ({ file, path, held }) => {
    const written = [randomBytes(100), randomBytes(100), randomBytes(100)];
    for (const bytes of written) {
      file.append(bytes, held);
      assert.equal(held.holding, true, 'written (held), not copied');
      held.writeAll();
    }
    assert.equal(allocations, 1, 'tried once, then the file writes');
    assert.equal(resources.mappedTails.windows, 0);
    file.close();
    assert.deepEqual(readFileSync(path), Buffer.concat(written));
  });
});

test('the native calls: allocate grows the file, map refuses an unaligned offset, copy checks its range and catches a refused fault, unmap ends copies', linuxOnly, () => {
  const tmp = tempDir('mapped-tail');
  const calls = realCalls();
  const path = join(tmp.dir, 'f');
  const fd = openSync(path, 'w+');
  const EFAULT = 14;
  const EBADF = 9;
  const ERANGE = 34;
  try {
    assert.equal(calls.allocate(fd, 0, WINDOW), 0);
    assert.equal(fstatSync(fd).size, WINDOW);
    assert.throws(() => calls.map(fd, 100, 4096), /page-aligned/);
    // a number an int or an offset cannot hold exactly is refused, not cut to another descriptor or offset
    assert.throws(() => calls.allocate(fd + 2 ** 32, 0, WINDOW), TypeError, 'a descriptor beyond INT_MAX');
    assert.throws(() => calls.map(fd, 0.5, 4096), TypeError, 'a fractional offset');
    const mapping = calls.map(fd, 0, WINDOW);
    assert.equal(calls.copy(mapping, 10, Uint8Array.of(1, 2, 3)), 0);
    assert.equal(calls.copy(mapping, WINDOW - 2, Uint8Array.of(1, 2, 3)), ERANGE, 'past the mapping');
    assert.throws(() => calls.copy({}, 0, Uint8Array.of(1)), /copy\(mapping/, 'not a mapping');
    assert.throws(() => calls.copy(mapping, 0, [1] as unknown as Uint8Array), /copy\(mapping/, 'not a Uint8Array');
    assert.throws(() => calls.copy(mapping, 10.5, Uint8Array.of(1)), TypeError, 'a fractional offset');
    assert.deepEqual([...readFileSync(path).subarray(10, 13)], [1, 2, 3], 'a read through the file sees the copy');
    ftruncateSync(fd, 8192);
    assert.equal(calls.copy(mapping, 8190, Uint8Array.of(7, 7, 7, 7)), EFAULT, 'a store past the end of the file: SIGBUS, caught');
    assert.equal(calls.copy(mapping, 20000, Uint8Array.of(1)), EFAULT, 'caught again: the guard is back in place');
    assert.equal(calls.copy(mapping, 100, Uint8Array.of(9)), 0, 'the pages the file still has take stores');
    assert.equal(calls.unmap(mapping), 0);
    assert.equal(calls.copy(mapping, 10, Uint8Array.of(1)), EBADF, 'unmapped');
    assert.equal(calls.unmap(mapping), 0, 'a second unmap does nothing');
    assert.equal(readFileSync(path)[100], 9);
  } finally {
    closeSync(fd);
    tmp.cleanup();
  }
});

test("a log's segments are byte for byte the same with and without the mapped tail (held appends, rolls, close)", linuxOnly, () => {
  const tmp = tempDir('mapped-tail');
  try {
    realCalls();
    const config = { ...DEFAULT_LOG_CONFIG, segmentBytes: 48 * 1024, indexIntervalBytes: 1024 };
    const dirs = { mapped: join(tmp.dir, 'mapped'), written: join(tmp.dir, 'written') };
    for (const [name, dir] of Object.entries(dirs)) {
      const manager = LogManager.open(dir, { defaultConfig: config, mappedTail: name === 'mapped', time: () => 1_700_000_000_000 });
      const log = manager.getOrCreateLog('t', 0);
      const held = new HeldAppends();
      for (let i = 0; i < 600; i++) {
        // mostly small batches, every 50th above MAX_MAPPED_APPEND
        const size = i % 50 === 49 ? MAX_MAPPED_APPEND + 100 : 40 + ((i * 53) % 400);
        const records = [{ key: `k${i}`, value: Buffer.alloc(size, i % 251), timestamp: 1_700_000_000_000 + i }];
        log.append(encodeRecordBatch(records), { mutateInput: true, heldAppends: held });
        if (i % 3 === 0) held.writeAll();
      }
      held.writeAll();
      const active = log.activeSegment;
      const activeFile = join(dir, 't-0', `${String(active.baseOffset).padStart(20, '0')}.log`);
      if (name === 'mapped') assert.ok(statSync(activeFile).size > active.size, 'the mapped tail was in use (the active file runs past its records)');
      else assert.equal(statSync(activeFile).size, active.size);
      manager.close();
    }
    const segments = (dir: string) => readdirLogs(join(dir, 't-0'));
    const mapped = segments(dirs.mapped);
    assert.ok(mapped.length >= 3, 'several rolls');
    assert.deepEqual(mapped, segments(dirs.written));
    for (const name of mapped) assert.deepEqual(readFileSync(join(dirs.mapped, 't-0', name)), readFileSync(join(dirs.written, 't-0', name)), name);
  } finally {
    tmp.cleanup();
  }
});

function readdirLogs(dir: string): string[] {
  return readdirSync(dir).filter((n) => /\.(log|index|timeindex)$/.test(n)).sort();
}
