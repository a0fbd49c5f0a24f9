/**
 * `kafkalite dump-log`: kafka-dump-log.sh's output for segment `.log` files, line for line
 * (Kafka `DumpLogSegments.dumpLog` / `printBatchLevel`), plus `--json` (NDJSON,
 * one object per batch with the same field names, records under `records`).
 *
 * Kafka's text rules reproduced here: batch `position` is the running sum of valid batch sizes;
 * records are iterated without a CRC check (a corrupt batch still shows `isvalid: false` and its
 * records); keys and values print as UTF-8 strings (StringDecoder), only for non-control batches;
 * `Found N invalid bytes at the end of <name>` when the batches do not reach the file's end and
 * `--max-bytes` is not given; non-consecutive record offsets are listed on stderr at the end.
 *
 * The other segment files follow Kafka's `DumpLogSegments.dumpIndex`, `dumpTimeIndex`,
 * `dumpProducerIdSnapshot` and `dumpTxnIndex`: `.index` and `.timeindex` entries are checked against
 * the segment's `.log` (mismatches reported on stderr after all files), `.snapshot` prints one line
 * per producer (a corrupt snapshot is reported on stderr and skipped), `.txnindex` one line per
 * aborted transaction. Indexes are opened read-only and nothing is ever created or modified.
 */
import { existsSync, readFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { StorageError } from '../errors.js';
import type { AnyRecordBatch } from '../record/batches.js';
import type { LegacyRecord, LegacyRecordBatch } from '../record/legacy.js';
import { parseControlRecordKey, parseEndTransactionMarker } from '../record/control.js';
import { decrementSequence } from '../record/sequence.js';
import type { Record } from '../record/record.js';
import { FileRecords } from '../storage/file-records.js';
import { BOOTSTRAP_SNAPSHOT_FILE, offsetFromFileName, parseKraftSnapshotName } from '../storage/file-names.js';
import { OffsetIndex } from '../storage/offset-index.js';
import { decodeProducerSnapshot } from '../storage/producer-snapshot.js';
import { TimeIndex } from '../storage/time-index.js';
import { TransactionIndex } from '../storage/transaction-index.js';
import { cliErrorLine } from './errors.js';
import { RecordLinePrinter } from './dump-log-records.js';
import { decodeInternalRecord, kraftControlJson, type InternalDecoder } from './internal-decoders.js';
import { describeBytes, toJson } from './json.js';
import { LineWriter } from './output.js';
import { NO_PROGRESS, type ProgressSink } from './progress.js';

export interface DumpLogOptions {
  files: string[];
  deepIteration: boolean;
  printDataLog: boolean;
  skipRecordMetadata: boolean;
  maxBytes: number;
  json: boolean;
  /** `.index`/`.timeindex`: check the entries against the log without printing them. */
  verifyIndexOnly?: boolean;
  /** `.index`/`.timeindex`: run the index's sanityCheck() instead of dumping it. */
  indexSanityCheck?: boolean;
  /** `.index`: bytes read at an entry's position to find its batch (default 5242880). */
  maxMessageSize?: number;
  /** Decode keys and values as records of an internal topic (implies printDataLog). */
  decoder?: InternalDecoder;
  /** Where the dump of each `.log` reports its progress (a bar on a terminal's stderr). */
  progress?: ProgressSink;
}

const INT_MAX = 0x7fffffff;
/** kafka-dump-log.sh's `--max-message-size` default. */
const DEFAULT_MAX_MESSAGE_SIZE = 5 * 1024 * 1024;

export const DUMP_LOG_USAGE = `Usage: kafkalite dump-log --files <file1,file2,...> [options]

Parses Kafka log segment files and prints their contents as kafka-dump-log.sh does.

Options:
  --files <list>            comma-separated files: .log, .index, .timeindex,
                            .txnindex, .snapshot (producer state), .checkpoint
                            (KRaft snapshot)                                  (required)
  --deep-iteration          print one line per record
  --print-data-log          print keys and values (implies --deep-iteration)
  --skip-record-metadata    omit per-record metadata (with --print-data-log)
  --max-bytes <n>           read at most n bytes of each .log file (default ${INT_MAX})
  --verify-index-only       .index/.timeindex: check entries against the .log, print none
  --index-sanity-check      .index/.timeindex: run the broker's startup sanity check only
  --max-message-size <n>    .index: bytes read at an entry's position (default ${DEFAULT_MAX_MESSAGE_SIZE})
  --offsets-decoder         decode __consumer_offsets keys and values (JSON)
  --transaction-log-decoder decode __transaction_state keys and values
  --cluster-metadata-decoder
                            decode KRaft __cluster_metadata record values (JSON)
  --json                    one JSON object per batch or index/snapshot entry (NDJSON),
                            records under "records"
  -h, --help                this text`;

export function parseDumpLogArgs(argv: string[]): DumpLogOptions | { error: string } | { help: true } {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      options: {
        files: { type: 'string' },
        'deep-iteration': { type: 'boolean', default: false },
        'print-data-log': { type: 'boolean', default: false },
        'skip-record-metadata': { type: 'boolean', default: false },
        'max-bytes': { type: 'string' },
        'verify-index-only': { type: 'boolean', default: false },
        'index-sanity-check': { type: 'boolean', default: false },
        'max-message-size': { type: 'string' },
        json: { type: 'boolean', default: false },
        'offsets-decoder': { type: 'boolean', default: false },
        'transaction-log-decoder': { type: 'boolean', default: false },
        'cluster-metadata-decoder': { type: 'boolean', default: false },
        help: { type: 'boolean', short: 'h', default: false },
      },
      strict: true,
    });
  } catch (err) {
    return { error: (err as Error).message };
  }
  const v = parsed.values;
  if (v.help) return { help: true };
  if (!v.files) return { error: 'Missing required argument "[files]"' };
  const maxBytes = v['max-bytes'] === undefined ? INT_MAX : Number(v['max-bytes']);
  if (!Number.isInteger(maxBytes) || maxBytes < 0 || maxBytes > INT_MAX) {
    return { error: `--max-bytes must be an integer between 0 and ${INT_MAX}` };
  }
  const maxMessageSize = v['max-message-size'] === undefined ? DEFAULT_MAX_MESSAGE_SIZE : Number(v['max-message-size']);
  if (!Number.isInteger(maxMessageSize) || maxMessageSize < 0 || maxMessageSize > INT_MAX) {
    return { error: `--max-message-size must be an integer between 0 and ${INT_MAX}` };
  }
  const decoders = (['offsets', 'transaction-log', 'cluster-metadata'] as const).filter((d) => v[`${d}-decoder`]);
  if (decoders.length > 1) return { error: 'give at most one of --offsets-decoder, --transaction-log-decoder, --cluster-metadata-decoder' };
  // a decoder prints keys and values, as --print-data-log does (DumpLogSegments)
  const printDataLog = v['print-data-log'] || decoders.length > 0;
  return {
    files: v.files.split(',').filter((f) => f.length > 0),
    printDataLog,
    deepIteration: v['deep-iteration'] || printDataLog,
    skipRecordMetadata: v['skip-record-metadata'],
    maxBytes,
    json: v.json,
    verifyIndexOnly: v['verify-index-only'],
    indexSanityCheck: v['index-sanity-check'],
    maxMessageSize,
    ...(decoders[0] !== undefined ? { decoder: decoders[0] } : {}),
  };
}

function optionalLong(value: bigint | undefined): string {
  return value === undefined ? 'OptionalLong.empty' : `OptionalLong[${value}]`;
}

function batchLine(b: AnyRecordBatch, position: number): string {
  if (b.kind === 'legacy') {
    return (
      `offset: ${b.lastOffset} position: ${position} ${b.timestampType}: ${b.maxTimestamp} size: ${b.sizeInBytes} ` +
      `magic: ${b.magic} compresscodec: ${b.compression} crc: ${b.crc} isvalid: ${b.isValid()}`
    );
  }
  return (
    `baseOffset: ${b.baseOffset} lastOffset: ${b.lastOffset} count: ${b.recordsCount} ` +
    `baseSequence: ${b.baseSequence} lastSequence: ${b.lastSequence} producerId: ${b.producerId} ` +
    `producerEpoch: ${b.producerEpoch} partitionLeaderEpoch: ${b.partitionLeaderEpoch} ` +
    `isTransactional: ${b.isTransactional} isControl: ${b.isControl} deleteHorizonMs: ${optionalLong(b.deleteHorizonMs)} ` +
    `position: ${position} ${b.timestampType}: ${b.maxTimestamp} size: ${b.sizeInBytes} magic: ${b.magic} ` +
    `compresscodec: ${b.compression} crc: ${b.crc} isvalid: ${b.isValid()}`
  );
}

/** The fields every batch line ends with, whatever its magic (Kafka `printBatchLevel`). */
function batchTailJson(b: AnyRecordBatch, position: number): { [k: string]: unknown } {
  return {
    position,
    timestampType: b.timestampType,
    maxTimestamp: b.maxTimestamp,
    size: b.sizeInBytes,
    magic: b.magic,
    compresscodec: b.compression,
    crc: b.crc,
    isvalid: b.isValid(),
  };
}

function legacyBatchJson(b: LegacyRecordBatch, position: number, opts: DumpLogOptions): object {
  const obj: { [k: string]: unknown } = { offset: b.lastOffset, ...batchTailJson(b, position) };
  if (opts.deepIteration) {
    obj.records = b.records({ verifyCrc: false }).map((r) => {
      const rec: { [k: string]: unknown } = {
        offset: r.offset,
        timestamp: r.timestamp,
        keySize: r.keySize,
        valueSize: r.valueSize,
        isValid: r.isValid(),
        crc: r.crc,
      };
      if (opts.printDataLog) Object.assign(rec, payloadJson(r.key, r.value));
      return rec;
    });
  }
  return obj;
}

function payloadJson(key: Buffer | null, value: Buffer | null): object {
  const k = describeBytes(key);
  const v = describeBytes(value);
  return { key: k.text, keyEncoding: k.encoding, payload: v.text, payloadEncoding: v.encoding };
}

function batchJson(b: AnyRecordBatch, position: number, opts: DumpLogOptions): object {
  if (b.kind === 'legacy') return legacyBatchJson(b, position, opts);
  const obj: { [k: string]: unknown } = {
    baseOffset: b.baseOffset,
    lastOffset: b.lastOffset,
    count: b.recordsCount,
    baseSequence: b.baseSequence,
    lastSequence: b.lastSequence,
    producerId: b.producerId,
    producerEpoch: b.producerEpoch,
    partitionLeaderEpoch: b.partitionLeaderEpoch,
    isTransactional: b.isTransactional,
    isControl: b.isControl,
    deleteHorizonMs: b.deleteHorizonMs ?? null,
    ...batchTailJson(b, position),
  };
  if (opts.deepIteration) {
    obj.records = b.records({ verifyCrc: false }).map((r) => {
      const rec: { [k: string]: unknown } = {
        offset: r.offset,
        timestamp: r.timestamp,
        keySize: r.keySize,
        valueSize: r.valueSize,
        sequence: r.sequence,
        headerKeys: r.headers.map((h) => h.key),
      };
      if (b.isControl) {
        const key = parseControlRecordKey(r.key);
        rec.controlType = key.type;
        rec.controlTypeId = key.typeId;
        if (key.type === 'ABORT' || key.type === 'COMMIT') {
          rec.coordinatorEpoch = parseEndTransactionMarker(r.key, r.value).coordinatorEpoch;
        }
        const kraft = kraftControlJson(key.type, r.value);
        if (kraft !== undefined) rec[kraft.label] = kraft.json;
      } else if (opts.printDataLog && opts.decoder !== undefined) {
        const decoded = decodeInternalRecord(opts.decoder, r.key, r.value);
        if (decoded.keyJson !== undefined) rec.key = decoded.keyJson;
        rec.payload = decoded.payloadJson ?? null;
      } else if (opts.printDataLog) {
        Object.assign(rec, payloadJson(r.key, r.value));
        rec.headers = r.headers.map((h) => {
          const hv = describeBytes(h.value);
          return { key: h.key, value: hv.text, valueEncoding: hv.encoding };
        });
      }
      return rec;
    });
  }
  return obj;
}

/** Records without a CRC check (Kafka's dump lists the records of corrupt batches too). */
function forEachRecord(batch: AnyRecordBatch, visit: (r: Record | LegacyRecord) => void): void {
  if (batch.kind === 'legacy') {
    for (const r of batch.records({ verifyCrc: false })) visit(r);
    return;
  }
  // the iterator itself, not a generator around it: dumps visit millions of records
  const it = batch.recordIterator({ verifyCrc: false });
  for (let r = it.readNext(); r !== null; r = it.readNext()) visit(r);
}

/** Diagnostics kafka-dump-log.sh collects while dumping `.index`/`.timeindex` files, printed at the end. */
interface IndexDumpErrors {
  /** `.index`: absolute path → (index offset, offset found in the log), newest first as Kafka lists them. */
  indexMismatches: Map<string, [bigint, bigint][]>;
  /** `.timeindex`: (index timestamp, max record timestamp of the batch). */
  timestampMismatches: Map<string, [bigint, bigint][]>;
  /** `.timeindex`: (index timestamp, previously indexed timestamp). */
  outOfOrderTimestamps: Map<string, [bigint, bigint][]>;
  /** `.timeindex`: (indexed offset, lastOffset of the batch found, or -1). */
  offsetsNotFound: Map<string, [bigint, bigint][]>;
}

function recordError(map: Map<string, [bigint, bigint][]>, file: string, pair: [bigint, bigint], newestFirst = false): void {
  const key = resolve(file);
  const list = map.get(key) ?? [];
  if (newestFirst) list.unshift(pair);
  else list.push(pair);
  map.set(key, list);
}

/** The segment prefix of `file` (text before the first '.') and its directory. */
function segmentSibling(file: string, extension: string): string {
  const name = basename(file);
  return join(dirname(resolve(file)), name.split('.')[0]! + extension);
}

function printLine(out: LineWriter, opts: DumpLogOptions, file: string, text: string, json: object): void {
  out.line(opts.json ? toJson({ file, ...json }) : text);
}

/**
 * `.index` (Kafka `DumpLogSegments.dumpIndex`): every entry up to the zero padding, each checked
 * against the lastOffset of the first batch at its position in the matching `.log`.
 */
function dumpOffsetIndex(file: string, opts: DumpLogOptions, out: LineWriter, errors: IndexDumpErrors): void {
  const baseOffset = offsetFromFileName(basename(file));
  const records = FileRecords.open(segmentSibling(file, '.log'));
  try {
    const index = OffsetIndex.open(file, baseOffset, { writable: false });
    try {
      if (index.entries === 0) {
        printLine(out, opts, file, `${file} is empty.`, { isEmpty: true });
        return;
      }
      if (opts.indexSanityCheck) {
        index.sanityCheck();
        printLine(out, opts, file, `${file} passed sanity check.`, { passedSanityCheck: true });
        return;
      }
      const maxMessageSize = opts.maxMessageSize ?? DEFAULT_MAX_MESSAGE_SIZE;
      for (let i = 0; i < index.entries; i++) {
        const entry = index.entry(i);
        // a sparse, preallocated file left by a crash: stop at the first zero entry
        if (entry.offset === index.baseOffset && i > 0) return;
        let logOffset = -1n; // no batch at that position (Kafka's tool dies here; we report it)
        if (entry.position >= 0) {
          const first = records.headers(entry.position, entry.position + maxMessageSize).next();
          if (!first.done) logOffset = first.value.lastOffset;
        }
        if (logOffset !== entry.offset) recordError(errors.indexMismatches, file, [entry.offset, logOffset], true);
        if (!opts.verifyIndexOnly) {
          printLine(out, opts, file, `offset: ${entry.offset} position: ${entry.position}`, {
            offset: entry.offset,
            position: entry.position,
          });
        }
      }
    } finally {
      index.close();
    }
  } finally {
    records.close();
  }
}

/**
 * `.timeindex` (Kafka `DumpLogSegments.dumpTimeIndex`): every entry up to the zero padding; the
 * batch holding the entry's offset (found from the `.index` position) must end exactly at that
 * offset, its max record timestamp must equal the entry's, and timestamps must increase.
 */
function dumpTimeIndex(file: string, opts: DumpLogOptions, out: LineWriter, errors: IndexDumpErrors): void {
  const baseOffset = offsetFromFileName(basename(file));
  const records = FileRecords.open(segmentSibling(file, '.log'));
  let offsetIndex: OffsetIndex | undefined;
  let timeIndex: TimeIndex | undefined;
  try {
    // Kafka creates a missing .index here; a missing one just means "scan from position 0"
    const indexFile = segmentSibling(file, '.index');
    if (existsSync(indexFile)) offsetIndex = OffsetIndex.open(indexFile, baseOffset, { writable: false });
    timeIndex = TimeIndex.open(file, baseOffset, { writable: false });
    if (opts.indexSanityCheck) {
      timeIndex.sanityCheck();
      printLine(out, opts, file, `${file} passed sanity check.`, { passedSanityCheck: true });
      return;
    }
    let prevTimestamp = -1n;
    for (let i = 0; i < timeIndex.entries; i++) {
      const entry = timeIndex.entry(i);
      if (entry.offset === timeIndex.baseOffset && i > 0) return;
      // a damaged .index can hold a negative position: no batch is found there
      const position = offsetIndex ? offsetIndex.lookup(entry.offset).position : 0;
      let found: { position: number; sizeInBytes: number; lastOffset: bigint } | undefined;
      for (const h of position < 0 ? [] : records.headers(position)) {
        if (h.lastOffset >= entry.offset) {
          found = h;
          break;
        }
      }
      if (found === undefined) {
        recordError(errors.offsetsNotFound, file, [entry.offset, -1n]);
      } else if (found.lastOffset !== entry.offset) {
        recordError(errors.offsetsNotFound, file, [entry.offset, found.lastOffset]);
      } else {
        let maxTimestamp = -1n;
        for (const { batch } of records.batches(found.position, found.position + found.sizeInBytes)) {
          forEachRecord(batch, (r) => {
            if (r.timestamp > maxTimestamp) maxTimestamp = r.timestamp;
          });
        }
        if (maxTimestamp !== entry.timestamp) {
          recordError(errors.timestampMismatches, file, [entry.timestamp, maxTimestamp]);
        }
        if (prevTimestamp >= entry.timestamp) {
          recordError(errors.outOfOrderTimestamps, file, [entry.timestamp, prevTimestamp]);
        }
      }
      if (!opts.verifyIndexOnly) {
        printLine(out, opts, file, `timestamp: ${entry.timestamp} offset: ${entry.offset}`, {
          timestamp: entry.timestamp,
          offset: entry.offset,
        });
      }
      prevTimestamp = entry.timestamp;
    }
  } finally {
    timeIndex?.close();
    offsetIndex?.close();
    records.close();
  }
}

/**
 * `.snapshot` (Kafka `DumpLogSegments.dumpProducerIdSnapshot`): one line per producer; the batch
 * part only when the entry has batch metadata (lastOffset ≥ 0), with firstSequence derived as
 * `BatchMetadata.firstSeq` does. A corrupt snapshot is reported on stderr and the dump goes on.
 */
function dumpProducerSnapshot(file: string, opts: DumpLogOptions, out: LineWriter, err: LineWriter): void {
  const bytes = readFileSync(file);
  let entries;
  try {
    entries = decodeProducerSnapshot(bytes);
  } catch (e) {
    if (!(e instanceof StorageError)) throw e;
    out.flush();
    err.line(e.message);
    err.flush();
    return;
  }
  for (const e of entries) {
    const txn = e.currentTxnFirstOffset >= 0n ? e.currentTxnFirstOffset : undefined;
    let text =
      `producerId: ${e.producerId} producerEpoch: ${e.producerEpoch} coordinatorEpoch: ${e.coordinatorEpoch} ` +
      `currentTxnFirstOffset: ${optionalLong(txn)} lastTimestamp: ${e.timestamp} `;
    const json: { [k: string]: unknown } = {
      producerId: e.producerId,
      producerEpoch: e.producerEpoch,
      coordinatorEpoch: e.coordinatorEpoch,
      currentTxnFirstOffset: txn ?? null,
      lastTimestamp: e.timestamp,
    };
    if (e.lastOffset >= 0n) {
      const firstSequence = decrementSequence(e.lastSequence, e.offsetDelta) | 0;
      text +=
        `firstSequence: ${firstSequence} lastSequence: ${e.lastSequence} lastOffset: ${e.lastOffset} ` +
        `offsetDelta: ${e.offsetDelta} timestamp: ${e.timestamp}`;
      Object.assign(json, {
        firstSequence,
        lastSequence: e.lastSequence,
        lastOffset: e.lastOffset,
        offsetDelta: e.offsetDelta,
        timestamp: e.timestamp,
      });
    }
    printLine(out, opts, file, text, json);
  }
}

/** `.txnindex` (Kafka `DumpLogSegments.dumpTxnIndex`): one line per aborted transaction. */
function dumpTxnIndex(file: string, opts: DumpLogOptions, out: LineWriter): void {
  const index = TransactionIndex.open(file, offsetFromFileName(basename(file)));
  try {
    for (const t of index.allAbortedTxns()) {
      printLine(
        out,
        opts,
        file,
        `version: ${t.version} producerId: ${t.producerId} firstOffset: ${t.firstOffset} lastOffset: ${t.lastOffset} lastStableOffset: ${t.lastStableOffset}`,
        {
          version: t.version,
          producerId: t.producerId,
          firstOffset: t.firstOffset,
          lastOffset: t.lastOffset,
          lastStableOffset: t.lastStableOffset,
        },
      );
    }
  } finally {
    index.close();
  }
}

/** The stderr sections Kafka prints after all files: index mismatches, then the time-index errors. */
function printIndexErrors(errors: IndexDumpErrors, err: LineWriter): void {
  for (const [file, pairs] of errors.indexMismatches) {
    err.line(`Mismatches in :${file}`);
    for (const [i, l] of pairs) err.line(`  Index offset: ${i}, log offset: ${l}`);
  }
  for (const [file, pairs] of errors.timestampMismatches) {
    err.line(`Found timestamp mismatch in :${file}`);
    for (const [i, l] of pairs) err.line(`  Index timestamp: ${i}, log timestamp: ${l}`);
  }
  for (const [file, pairs] of errors.outOfOrderTimestamps) {
    err.line(`Found out of order timestamp in :${file}`);
    for (const [i, p] of pairs) err.line(`  Index timestamp: ${i}, Previously indexed timestamp: ${p}`);
  }
  for (const pairs of errors.offsetsNotFound.values()) {
    err.line('The following indexed offsets are not found in the log.');
    for (const [i, l] of pairs) err.line(`Indexed offset: ${i}, found log offset: ${l}`);
  }
}

/**
 * The line after "Dumping": `Log starting offset: <o>` for a segment, and for KRaft snapshots
 * (`DumpLogSegments.dumpLog`) `KRaft bootstrap snapshot` or `Snapshot end offset: <o>, epoch: <e>`.
 */
function logStartLine(name: string, suffix: string): string {
  if (suffix === '.log') return `Log starting offset: ${offsetFromFileName(name)}`;
  if (name === BOOTSTRAP_SNAPSHOT_FILE) return 'KRaft bootstrap snapshot';
  const id = parseKraftSnapshotName(name);
  if (id === undefined) {
    throw new StorageError(`${name} is not a KRaft snapshot name (<20-digit end offset>-<10-digit epoch>.checkpoint)`);
  }
  return `Snapshot end offset: ${id.endOffset}, epoch: ${id.epoch}`;
}

/** Runs the dump; returns the process exit code. */
export function dumpLog(opts: DumpLogOptions, out = new LineWriter(1), err = new LineWriter(2)): number {
  const nonConsecutive = new Map<string, [bigint, bigint][]>();
  const indexErrors: IndexDumpErrors = {
    indexMismatches: new Map(),
    timestampMismatches: new Map(),
    outOfOrderTimestamps: new Map(),
    offsetsNotFound: new Map(),
  };
  let status = 0;
  let currentFile: string | undefined;
  try {
    for (const file of opts.files) {
      currentFile = file;
      if (!opts.json) out.line(`Dumping ${file}`);
      const name = basename(file);
      const suffix = name.lastIndexOf('.') >= 0 ? name.substring(name.lastIndexOf('.')) : '';
      if (suffix === '.index') {
        dumpOffsetIndex(file, opts, out, indexErrors);
        continue;
      }
      if (suffix === '.timeindex') {
        dumpTimeIndex(file, opts, out, indexErrors);
        continue;
      }
      if (suffix === '.snapshot') {
        dumpProducerSnapshot(file, opts, out, err);
        continue;
      }
      if (suffix === '.txnindex') {
        dumpTxnIndex(file, opts, out);
        continue;
      }
      if (suffix !== '.log' && suffix !== '.checkpoint') {
        out.flush();
        err.line(`Ignoring unknown file ${file}`);
        err.flush();
        continue;
      }
      const startLine = logStartLine(name, suffix);
      if (!opts.json) out.line(startLine);
      const records = FileRecords.open(file);
      const progress = opts.progress ?? NO_PROGRESS;
      try {
        let validBytes = 0;
        const printer = new RecordLinePrinter(opts, out, (previous, next) => recordError(nonConsecutive, file, [previous, next]));
        for (const { batch } of records.scan(0, opts.maxBytes)) {
          if (opts.json) {
            out.line(toJson({ file, ...batchJson(batch, validBytes, opts) }));
          } else {
            out.line(batchLine(batch, validBytes));
            if (opts.deepIteration) printer.printRecords(batch);
          }
          validBytes += batch.sizeInBytes;
          progress.update(validBytes, records.sizeInBytes, name);
        }
        progress.clear();
        const trailing = Math.min(records.sizeInBytes, opts.maxBytes) - validBytes;
        if (trailing > 0 && opts.maxBytes === INT_MAX) {
          if (opts.json) out.line(toJson({ file, invalidBytesAtEnd: trailing }));
          else out.line(`Found ${trailing} invalid bytes at the end of ${name}`);
        }
      } finally {
        records.close();
      }
    }
  } catch (e) {
    out.flush();
    opts.progress?.clear();
    const line = cliErrorLine(e, currentFile);
    if (line === undefined) throw e;
    err.line(line);
    status = 1;
  }
  out.flush();
  printIndexErrors(indexErrors, err);
  for (const [file, pairs] of nonConsecutive) {
    err.line(`Non-consecutive offsets in ${file}`);
    for (const [a, b] of pairs) err.line(`  ${a} is followed by ${b}`);
  }
  err.flush();
  return status;
}
