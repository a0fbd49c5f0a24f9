/**
 * `kafkalite verify` for one segment: its `.log` batch by batch (size, CRC, record structure,
 * offsets inside the segment and increasing across segments, no torn tail) and its `.index`,
 * `.timeindex` and `.txnindex` against that log.
 *
 * One pass over the log, memory independent of its size: the index checks walk the index entries
 * alongside the batches (both are ordered by position/offset), so no batch list is kept. The rules
 * are the ones Kafka's recovery and dump tool apply (Kafka `LogSegment.recover`,
 * `DefaultRecordBatch.ensureValid`, `AbstractIndex.sanityCheck`, and the index checks of
 * `DumpLogSegments.dumpIndex`/`dumpTimeIndex`).
 */
import { closeSync, existsSync, fstatSync, openSync, readSync, statSync } from 'node:fs';
import { KafkaliteError } from '../errors.js';
import type { AnyRecordBatch } from '../record/batches.js';
import { FileRecords } from '../storage/file-records.js';
import { OFFSET_INDEX_ENTRY_SIZE, OffsetIndex } from '../storage/offset-index.js';
import { TIME_INDEX_ENTRY_SIZE, TimeIndex } from '../storage/time-index.js';
import { ABORTED_TXN_SIZE, TransactionIndex } from '../storage/transaction-index.js';
import type { ProgressSink } from './progress.js';

export interface Problem {
  file: string;
  /** Byte position in `file`, when the problem has one. */
  position?: number;
  reason: string;
  /**
   * 'error' fails verification (damage); 'warning' is reported only (e.g. files Kafka deletes at
   * load); 'note' is the normal state of a log after a crash that recovery tidies (a preallocated
   * index tail), never damage.
   */
  severity: 'error' | 'warning' | 'note';
}

export interface Problems {
  add(problem: Problem): void;
}

/** What the scan of a log learnt, for the next segment and the totals. */
export interface LogScan {
  /** Last offset of the last whole batch, or the previous value when the log has none. */
  lastOffset: bigint;
  batches: number;
  records: number;
  bytes: number;
}

const INT32_MAX = 0x7fffffff;

/** Walks `.index` entries alongside the batches: each must name a batch start and that batch's lastOffset. */
class OffsetIndexWalk {
  private next = 0;
  private prevOffset = -1n;
  private prevPosition = -1;
  private readonly count: number;

  constructor(
    private readonly index: OffsetIndex,
    private readonly problems: Problems,
  ) {
    const isZero = (i: number) => {
      const e = index.entry(i);
      return e.offset === index.baseOffset && e.position === 0;
    };
    this.count = usedEntries(index.entries, isZero, index.path, OFFSET_INDEX_ENTRY_SIZE, problems);
  }

  private report(i: number, reason: string): void {
    this.problems.add({ file: this.index.path, position: i * OFFSET_INDEX_ENTRY_SIZE, reason, severity: 'error' });
  }

  /** Entries before or at this batch start are settled. */
  onBatch(position: number, sizeInBytes: number, lastOffset: bigint): void {
    while (this.next < this.count) {
      const i = this.next;
      const e = this.index.entry(i);
      if (e.position >= position + sizeInBytes) return;
      this.next++;
      if (e.offset <= this.prevOffset || e.position <= this.prevPosition) {
        this.report(i, `entry ${i} (offset ${e.offset}, position ${e.position}) does not increase on entry ${i - 1} (offset ${this.prevOffset}, position ${this.prevPosition})`);
        continue;
      }
      this.prevOffset = e.offset;
      this.prevPosition = e.position;
      if (e.position !== position) {
        this.report(i, `entry ${i} (offset ${e.offset}) points at log position ${e.position}, inside the batch at ${position}: expected a batch start`);
      } else if (e.offset !== lastOffset) {
        this.report(i, `entry ${i} says offset ${e.offset} at log position ${position}, the batch there ends at offset ${lastOffset}`);
      }
    }
  }

  /** Entries left after the last whole batch point past the valid data. */
  finish(validBytes: number): void {
    for (; this.next < this.count; this.next++) {
      const e = this.index.entry(this.next);
      this.report(this.next, `entry ${this.next} (offset ${e.offset}) points at log position ${e.position}, past the last whole batch (log holds ${validBytes} valid bytes)`);
    }
  }
}

/**
 * Walks `.timeindex` entries alongside the batches: timestamps strictly increase, and each entry
 * names the lastOffset of a batch whose max timestamp is the entry's (Kafka indexes the max
 * timestamp so far with the last offset of the batch holding it).
 */
class TimeIndexWalk {
  private next = 0;
  private prevTimestamp: bigint | undefined;
  private readonly count: number;

  constructor(
    private readonly index: TimeIndex,
    private readonly problems: Problems,
  ) {
    const isZero = (i: number) => {
      const e = index.entry(i);
      return e.offset === index.baseOffset && e.timestamp === 0n;
    };
    this.count = usedEntries(index.entries, isZero, index.path, TIME_INDEX_ENTRY_SIZE, problems);
  }

  private report(i: number, reason: string): void {
    this.problems.add({ file: this.index.path, position: i * TIME_INDEX_ENTRY_SIZE, reason, severity: 'error' });
  }

  onBatch(lastOffset: bigint, maxTimestamp: bigint): void {
    while (this.next < this.count) {
      const i = this.next;
      const e = this.index.entry(i);
      if (e.offset > lastOffset) return;
      this.next++;
      if (this.prevTimestamp !== undefined && e.timestamp <= this.prevTimestamp) {
        this.report(i, `entry ${i} timestamp ${e.timestamp} is out of order: not above the previous entry's ${this.prevTimestamp}`);
      }
      this.prevTimestamp = e.timestamp;
      if (e.offset !== lastOffset) {
        this.report(i, `entry ${i} (timestamp ${e.timestamp}) names offset ${e.offset}, which is not the last offset of a batch`);
      } else if (e.timestamp !== maxTimestamp) {
        this.report(i, `entry ${i} says timestamp ${e.timestamp} for offset ${e.offset}, the batch's max timestamp is ${maxTimestamp}`);
      }
    }
  }

  finish(): void {
    for (; this.next < this.count; this.next++) {
      const e = this.index.entry(this.next);
      this.report(this.next, `entry ${this.next} names offset ${e.offset}, past the last whole batch of the log`);
    }
  }
}

/**
 * Entries in use. Kafka preallocates the active segment's indexes to `segment.index.bytes` of zeros
 * and trims them only when the segment is closed (`AbstractIndex.trimToValidSize`); a process killed
 * before that leaves the zero tail, and Kafka's loader rebuilds such a segment's indexes in
 * recovery. So an all-zero run at the end of the file is reported once as a note (the state a
 * crash leaves, which `recover` trims), not as entries that disagree with the log. Entry 0 of
 * zeros is padding too: Kafka never indexes a segment's first batch (the interval starts at 0).
 * Before that tail, Kafka's dump stops at the first entry i > 0 that reads as the base offset
 * (`DumpLogSegments.dumpIndex`).
 */
function usedEntries(entries: number, isZero: (i: number) => boolean, path: string, entrySize: number, problems: Problems): number {
  const tail = Math.min(entries, zeroTailStart(path, entrySize));
  if (tail < entries) {
    problems.add({
      file: path,
      position: tail * entrySize,
      reason: `${(entries - tail) * entrySize} bytes of preallocated zero entries: the segment was never closed (the broker stopped without a clean shutdown); recovery (\`kafkalite recover\`, or \`--full\` when the recovery point is past this segment) rebuilds this index without them`,
      severity: 'note',
    });
  }
  for (let i = 1; i < tail; i++) if (isZero(i)) return i;
  return tail;
}

const TAIL_CHUNK = 1 << 20;
const ZEROS = Buffer.alloc(TAIL_CHUNK);

/**
 * The first entry of the all-zero run that ends the file (the entry count when the last entry has
 * a non-zero byte): read backwards in 1 MiB chunks compared against zeros, so the 10 MiB tail of a
 * preallocated index costs a read and a memcmp, not a decoded entry per slot.
 */
function zeroTailStart(path: string, entrySize: number): number {
  const fd = openSync(path, 'r');
  try {
    const size = fstatSync(fd).size;
    const whole = size - (size % entrySize);
    const buf = Buffer.allocUnsafe(TAIL_CHUNK);
    for (let end = whole; end > 0; ) {
      const start = Math.max(0, end - TAIL_CHUNK);
      const n = readSync(fd, buf, 0, end - start, start);
      if (buf.subarray(0, n).equals(ZEROS.subarray(0, n))) {
        end = start;
        continue;
      }
      let last = n - 1;
      while (buf[last] === 0) last--;
      return Math.floor((start + last) / entrySize) + 1;
    }
    return 0;
  } finally {
    closeSync(fd);
  }
}

/**
 * True (with a note) when [position, size) of a log file is all zeros: the tail of a segment that
 * was never closed, grown ahead of its records (Kafka's `preallocate=true`; kafkalite's mapped tail,
 * storage/mapped-tail.ts) and trimmed only at roll or close. Recovery cuts it as it cuts a torn
 * write (Kafka's `LogSegment.recover` stops at the first size below the minimum), but it is the
 * state every crash of such a broker leaves, not damage: reported like the indexes' zero tails.
 */
function zeroTail(path: string, position: number, size: number, problems: Problems): boolean {
  if (position >= size || zeroTailStart(path, 1) > position) return false;
  problems.add({
    file: path,
    position,
    reason: `${size - position} bytes of zeros after the last batch: the preallocated or mapped tail of a segment that was never closed (the broker stopped without a clean shutdown); recovery truncates them`,
    severity: 'note',
  });
  return true;
}

function reasonOf(e: unknown): string {
  return e instanceof KafkaliteError ? e.detail : (e as Error).message;
}

/**
 * Checks a batch's CRC and, when it holds, its records (decompressing them): Kafka's
 * `ensureValid` plus the record-structure checks of `DefaultRecordBatch` / legacy wrappers.
 * Returns the number of records, or a reason when the batch is bad.
 */
function checkBatch(batch: AnyRecordBatch): number | string {
  if (batch.kind === 'v2') {
    if (batch.magic !== 2) return `unknown magic ${batch.magic}`;
    const stored = batch.crc;
    const computed = batch.computeChecksum();
    if (stored !== computed) return `CRC mismatch: stored ${stored}, computed ${computed}`;
    let n = 0;
    const it = batch.recordIterator({ verifyCrc: false });
    while (it.readNext() !== null) n++;
    return n;
  }
  if (!batch.isValid()) return `CRC mismatch: stored ${batch.crc}, computed ${batch.computeChecksum()}`;
  return batch.records({ verifyCrc: true }).length;
}

export interface SegmentFiles {
  log: string;
  baseOffset: bigint;
  index?: string;
  timeIndex?: string;
  txnIndex?: string;
  /** A KRaft snapshot or a `.swap`: batches only, no offset range rule from the name. */
  batchesOnly?: boolean;
  /** The records' content, once a batch's CRC holds (the metadata log's: verify-metadata-records.ts): a reason when bad. */
  contentProblem?: (batch: AnyRecordBatch) => string | undefined;
}

/**
 * Verifies one segment. `prevLastOffset` is the last offset of the previous segment (-1 for the
 * first): every batch must start after it. Returns what the scan learnt.
 */
export function verifySegment(seg: SegmentFiles, prevLastOffset: bigint, problems: Problems, progress: ProgressSink, progressBase: number, progressTotal: number): LogScan {
  const scan: LogScan = { lastOffset: prevLastOffset, batches: 0, records: 0, bytes: 0 };
  const error = (file: string, position: number | undefined, reason: string) =>
    problems.add({ file, ...(position !== undefined ? { position } : {}), reason, severity: 'error' });
  let records: FileRecords;
  try {
    records = FileRecords.open(seg.log);
  } catch (e) {
    error(seg.log, undefined, reasonOf(e));
    return scan;
  }
  const opened: { close(): void }[] = [records];
  try {
    const offsetWalk = seg.index ? openIndex(() => OffsetIndex.open(seg.index!, seg.baseOffset, { writable: false }), seg.index, OFFSET_INDEX_ENTRY_SIZE, problems, opened) : undefined;
    const timeWalk = seg.timeIndex ? openIndex(() => TimeIndex.open(seg.timeIndex!, seg.baseOffset, { writable: false }), seg.timeIndex, TIME_INDEX_ENTRY_SIZE, problems, opened) : undefined;
    const offsets = offsetWalk ? new OffsetIndexWalk(offsetWalk, problems) : undefined;
    const times = timeWalk ? new TimeIndexWalk(timeWalk, problems) : undefined;

    let validBytes = 0;
    let lastOffset = prevLastOffset;
    let stopped = false;
    try {
      for (const { position, sizeInBytes, batch } of records.scan()) {
        let checked: number | string;
        try {
          checked = checkBatch(batch);
        } catch (e) {
          checked = reasonOf(e);
        }
        if (typeof checked === 'string') {
          // recovery truncates here (LogSegment.recover): nothing after a corrupt batch is trusted
          error(seg.log, position, `batch at ${position}: ${checked}; the ${records.sizeInBytes - position} bytes from here would be truncated by recovery`);
          stopped = true;
          break;
        }
        const first = batch.kind === 'v2' ? batch.baseOffset : batch.lastOffset;
        if (first <= lastOffset) {
          error(seg.log, position, `batch at ${position} starts at offset ${first}, not after the previous batch's last offset ${lastOffset}`);
        }
        if (!seg.batchesOnly && (batch.lastOffset < seg.baseOffset || batch.lastOffset - seg.baseOffset > BigInt(INT32_MAX))) {
          error(seg.log, position, `batch at ${position} ends at offset ${batch.lastOffset}, outside the segment's range [${seg.baseOffset}, ${seg.baseOffset + BigInt(INT32_MAX)}]`);
        }
        if (batch.kind === 'v2' && batch.baseOffset < seg.baseOffset && !seg.batchesOnly) {
          error(seg.log, position, `batch at ${position} starts at offset ${batch.baseOffset}, below the segment's base offset ${seg.baseOffset}`);
        }
        const content = seg.contentProblem?.(batch);
        // not truncated by recovery (the batch is whole): the reader of the records faults on it
        if (content !== undefined) error(seg.log, position, `batch at ${position}: ${content}`);
        offsets?.onBatch(position, sizeInBytes, batch.lastOffset);
        times?.onBatch(batch.lastOffset, batch.maxTimestamp);
        lastOffset = batch.lastOffset;
        validBytes = position + sizeInBytes;
        scan.batches++;
        scan.records += checked;
        progress.update(progressBase + validBytes, progressTotal, seg.log);
      }
    } catch (e) {
      // the size field itself is corrupt (below 14, or a v2 batch below 61 bytes)
      const position = e instanceof KafkaliteError && e.position !== undefined ? e.position : validBytes;
      if (!zeroTail(seg.log, position, records.sizeInBytes, problems)) {
        error(seg.log, position, `${reasonOf(e)}; the ${records.sizeInBytes - position} bytes from here would be truncated by recovery`);
      }
      stopped = true;
    }
    if (!stopped && validBytes < records.sizeInBytes && !zeroTail(seg.log, validBytes, records.sizeInBytes, problems)) {
      error(seg.log, validBytes, `${records.sizeInBytes - validBytes} bytes at the end do not form a whole batch (a torn write; recovery truncates them)`);
    }
    offsets?.finish(validBytes);
    times?.finish();
    if (seg.txnIndex) verifyTxnIndex(seg.txnIndex, seg.baseOffset, lastOffset, problems);
    scan.lastOffset = lastOffset;
    scan.bytes = records.sizeInBytes;
    return scan;
  } finally {
    for (const f of opened) f.close();
  }
}

/** Opens an index read-only; a ragged length is reported (Kafka's sanity check refuses it). */
function openIndex<T extends OffsetIndex | TimeIndex>(open: () => T, path: string, entrySize: number, problems: Problems, opened: { close(): void }[]): T | undefined {
  let index: T;
  try {
    index = open();
  } catch (e) {
    problems.add({ file: path, reason: reasonOf(e), severity: 'error' });
    return undefined;
  }
  opened.push(index);
  if (index.length % entrySize !== 0) {
    problems.add({
      file: path,
      position: index.length - (index.length % entrySize),
      reason: `index file length ${index.length} is not a multiple of the entry size ${entrySize}`,
      severity: 'error',
    });
  }
  return index;
}

/**
 * `.txnindex`: whole entries of a known version (TransactionIndex), lastOffset within the
 * segment (Kafka's sanityCheck) and increasing, firstOffset ≤ lastOffset.
 */
function verifyTxnIndex(path: string, baseOffset: bigint, logLastOffset: bigint, problems: Problems): void {
  const index = TransactionIndex.open(path, baseOffset);
  const error = (position: number | undefined, reason: string) =>
    problems.add({ file: path, ...(position !== undefined ? { position } : {}), reason, severity: 'error' });
  try {
    let txns;
    try {
      txns = index.allAbortedTxns();
    } catch (e) {
      error(e instanceof KafkaliteError ? e.position : undefined, reasonOf(e));
      return;
    }
    const size = statSync(path).size;
    if (size % ABORTED_TXN_SIZE !== 0) {
      error(size - (size % ABORTED_TXN_SIZE), `${size % ABORTED_TXN_SIZE} bytes at the end do not form a whole ${ABORTED_TXN_SIZE}-byte entry`);
    }
    let prev = -1n;
    for (const [i, t] of txns.entries()) {
      const at = i * ABORTED_TXN_SIZE;
      if (t.lastOffset < baseOffset) error(at, `entry ${i} lastOffset ${t.lastOffset} is below the segment's base offset ${baseOffset}`);
      else if (t.lastOffset > logLastOffset) error(at, `entry ${i} lastOffset ${t.lastOffset} is past the log's last offset ${logLastOffset}`);
      if (t.firstOffset > t.lastOffset) error(at, `entry ${i} firstOffset ${t.firstOffset} is above its lastOffset ${t.lastOffset}`);
      if (t.lastOffset <= prev) error(at, `entry ${i} lastOffset ${t.lastOffset} does not increase on the previous entry's ${prev}`);
      prev = t.lastOffset;
    }
  } finally {
    index.close();
  }
}

/** True when `path` exists (index files are optional except `.index`). */
export function present(path: string): string | undefined {
  return existsSync(path) ? path : undefined;
}
