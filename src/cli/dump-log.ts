/**
 * `kafkalite dump-log`: kafka-dump-log.sh's output for segment `.log` files, line for line
 * (storage spec §14; Kafka `DumpLogSegments.dumpLog` / `printBatchLevel`), plus `--json` (NDJSON,
 * one object per batch with the same field names, records under `records`).
 *
 * Kafka's text rules reproduced here: batch `position` is the running sum of valid batch sizes;
 * records are iterated without a CRC check (a corrupt batch still shows `isvalid: false` and its
 * records); keys and values print as UTF-8 strings (StringDecoder), only for non-control batches;
 * `Found N invalid bytes at the end of <name>` when the batches do not reach the file's end and
 * `--max-bytes` is not given; non-consecutive record offsets are listed on stderr at the end.
 */
import { basename, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { KafkaliteError } from '../errors.js';
import type { RecordBatch } from '../record/batch.js';
import type { AnyRecordBatch } from '../record/batches.js';
import type { LegacyRecord, LegacyRecordBatch } from '../record/legacy.js';
import { parseControlRecordKey, parseEndTransactionMarker } from '../record/control.js';
import type { Record } from '../record/record.js';
import { FileRecords } from '../storage/file-records.js';
import { describeBytes, toJson } from './json.js';
import { LineWriter } from './output.js';

export interface DumpLogOptions {
  files: string[];
  deepIteration: boolean;
  printDataLog: boolean;
  skipRecordMetadata: boolean;
  maxBytes: number;
  json: boolean;
}

const INT_MAX = 0x7fffffff;

export const DUMP_LOG_USAGE = `Usage: kafkalite dump-log --files <file1,file2,...> [options]

Parses Kafka log segment files and prints their contents as kafka-dump-log.sh does.

Options:
  --files <list>            comma-separated segment files (.log)            (required)
  --deep-iteration          print one line per record
  --print-data-log          print keys and values (implies --deep-iteration)
  --skip-record-metadata    omit per-record metadata (with --print-data-log)
  --max-bytes <n>           read at most n bytes of each .log file (default ${INT_MAX})
  --json                    one JSON object per batch (NDJSON), records under "records"
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
        json: { type: 'boolean', default: false },
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
  const printDataLog = v['print-data-log'];
  return {
    files: v.files.split(',').filter((f) => f.length > 0),
    printDataLog,
    deepIteration: v['deep-iteration'] || printDataLog,
    skipRecordMetadata: v['skip-record-metadata'],
    maxBytes,
    json: v.json,
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

/** The control-record suffix Kafka prints (` endTxnMarker: COMMIT coordinatorEpoch: 7`, ...). */
function controlSuffix(r: Record): string {
  const key = parseControlRecordKey(r.key);
  if (key.type === 'ABORT' || key.type === 'COMMIT') {
    const marker = parseEndTransactionMarker(r.key, r.value);
    return ` endTxnMarker: ${marker.type} coordinatorEpoch: ${marker.coordinatorEpoch}`;
  }
  // KRaft snapshot/voter records print as JSON in Kafka; their decoders come with the KRaft tooling.
  return ` controlType: ${key.type}(${key.typeId})`;
}

function recordLine(b: AnyRecordBatch, r: Record | LegacyRecord, opts: DumpLogOptions): string {
  let line = '';
  let prefix = '| ';
  if (!opts.skipRecordMetadata) {
    line += `${prefix}offset: ${r.offset} ${b.timestampType}: ${r.timestamp} keySize: ${r.keySize} valueSize: ${r.valueSize}`;
    prefix = ' ';
    if (b.kind === 'v2') {
      line += ` sequence: ${r.sequence} headerKeys: [${r.headers.map((h) => h.key).join(',')}]`;
      if (b.isControl) line += controlSuffix(r as Record);
    } else {
      // Kafka prints a stray '}' here (DumpLogSegments); kept for line-for-line compatibility
      line += ` isValid: ${(r as LegacyRecord).isValid()} crc: ${(r as LegacyRecord).crc}}`;
    }
  }
  if (opts.printDataLog && !b.isControl) {
    const key = r.key;
    if (key !== null) {
      line += `${prefix}key: ${key.toString('utf8')}`;
      prefix = ' ';
    }
    const value = r.value;
    if (value !== null) line += ` payload: ${value.toString('utf8')}`;
  }
  return line;
}

function legacyBatchJson(b: LegacyRecordBatch, position: number, opts: DumpLogOptions): object {
  const obj: { [k: string]: unknown } = {
    offset: b.lastOffset,
    position,
    timestampType: b.timestampType,
    maxTimestamp: b.maxTimestamp,
    size: b.sizeInBytes,
    magic: b.magic,
    compresscodec: b.compression,
    crc: b.crc,
    isvalid: b.isValid(),
  };
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
    position,
    timestampType: b.timestampType,
    maxTimestamp: b.maxTimestamp,
    size: b.sizeInBytes,
    magic: b.magic,
    compresscodec: b.compression,
    crc: b.crc,
    isvalid: b.isValid(),
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
function* batchRecords(batch: AnyRecordBatch): Generator<Record | LegacyRecord> {
  if (batch.kind === 'legacy') {
    yield* batch.records({ verifyCrc: false });
    return;
  }
  const it = batch.recordIterator({ verifyCrc: false });
  for (let r = it.readNext(); r !== null; r = it.readNext()) yield r;
}

/** Runs the dump; returns the process exit code. */
export function dumpLog(opts: DumpLogOptions, out = new LineWriter(1), err = new LineWriter(2)): number {
  const nonConsecutive = new Map<string, [bigint, bigint][]>();
  let status = 0;
  try {
    for (const file of opts.files) {
      if (!opts.json) out.line(`Dumping ${file}`);
      const name = basename(file);
      const suffix = name.lastIndexOf('.') >= 0 ? name.substring(name.lastIndexOf('.')) : '';
      if (suffix !== '.log') {
        out.flush();
        err.line(`Ignoring unknown file ${file}`);
        err.flush();
        continue;
      }
      if (!opts.json) out.line(`Log starting offset: ${BigInt(name.split('.')[0]!)}`);
      const records = FileRecords.open(file);
      try {
        let validBytes = 0;
        let lastOffset = -1n;
        for (const { batch } of records.batches(0, opts.maxBytes)) {
          if (opts.json) {
            out.line(toJson({ file, ...batchJson(batch, validBytes, opts) }));
          } else {
            out.line(batchLine(batch, validBytes));
            if (opts.deepIteration) {
              for (const r of batchRecords(batch)) {
                const offset = r.offset;
                if (lastOffset !== -1n && offset !== lastOffset + 1n) {
                  const abs = resolve(file);
                  const list = nonConsecutive.get(abs) ?? [];
                  list.push([lastOffset, offset]);
                  nonConsecutive.set(abs, list);
                }
                lastOffset = offset;
                out.line(recordLine(batch, r, opts));
              }
            }
          }
          validBytes += batch.sizeInBytes;
        }
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
    if (e instanceof KafkaliteError) {
      err.line(`Error: ${e.message} [${e.code}]`);
      status = 1;
    } else if ((e as NodeJS.ErrnoException).code === 'ENOENT' || (e as NodeJS.ErrnoException).code === 'EISDIR') {
      err.line(`Error: ${(e as Error).message}`);
      status = 1;
    } else {
      throw e;
    }
  }
  out.flush();
  for (const [file, pairs] of nonConsecutive) {
    err.line(`Non-consecutive offsets in ${file}`);
    for (const [a, b] of pairs) err.line(`  ${a} is followed by ${b}`);
  }
  err.flush();
  return status;
}
