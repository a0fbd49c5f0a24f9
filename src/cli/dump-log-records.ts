/**
 * `dump-log --deep-iteration` record lines (Kafka `DumpLogSegments.dumpLog`):
 *
 *   | offset: 5 CreateTime: 1700000000000 keySize: 3 valueSize: 5 sequence: -1 headerKeys: [a,b]
 *
 * followed by the control-record suffix, and by ` key: ... payload: ...` with `--print-data-log`.
 * A large segment prints millions of these, so the v2 line is written as bytes straight into the
 * output buffer: no `Record` object (records are scanned into one reused RecordLayout), no header
 * array, no string per number; the metadata is a LineTemplate, in which a record usually changes a
 * few digits of the previous line. Offsets and timestamps are plain numbers while they are safe
 * integers; anything else (int64 values past 2^53, control records, internal-topic decoders,
 * legacy messages) goes through a `Record` and strings, whose text is the same.
 *
 * Records are iterated without a CRC check (Kafka's dump lists the records of corrupt batches too).
 */
import { isUtf8 } from 'node:buffer';
import type { RecordBatch } from '../record/batch.js';
import type { AnyRecordBatch } from '../record/batches.js';
import { parseControlRecordKey, parseEndTransactionMarker } from '../record/control.js';
import type { LegacyRecord, LegacyRecordBatch } from '../record/legacy.js';
import type { Record } from '../record/record.js';
import { RecordLayout } from '../record/record-layout.js';
import { incrementSequence } from '../record/sequence.js';
import { ByteReader } from '../bytes/varint.js';
import { asciiFragment } from './ascii.js';
import { decodeInternalRecord, kraftControlJson, type InternalDecoder } from './internal-decoders.js';
import { toJson } from './json.js';
import { LineTemplate } from './line-template.js';
import type { LineWriter } from './output.js';

export interface RecordLineOptions {
  printDataLog: boolean;
  skipRecordMetadata: boolean;
  decoder?: InternalDecoder;
}

/** The record line's metadata up to its header keys: fragments and fields (these indexes). */
const metadataLine = (timestampType: string) =>
  new LineTemplate(['| offset: ', ` ${timestampType}: `, ' keySize: ', ' valueSize: ', ' sequence: ', ' headerKeys: [']);
const OFFSET = 0;
const TIMESTAMP = 1;
const KEY_SIZE = 2;
const VALUE_SIZE = 3;
const SEQUENCE = 4;
const HEADER_KEYS_END = asciiFragment(']');
const COMMA = asciiFragment(',');
const KEY_FIRST = asciiFragment('| key: ');
const KEY = asciiFragment(' key: ');
const PAYLOAD = asciiFragment(' payload: ');

/** Deltas are int32: a base this far inside the safe range keeps base + delta exact. */
const SAFE_BASE = Number.MAX_SAFE_INTEGER - 2 ** 32;

/**
 * Prints the record lines of one file's batches, and reports each place where a record's offset
 * does not follow the previous record's (Kafka lists them on stderr at the end).
 */
export class RecordLinePrinter {
  private readonly layout = new RecordLayout();
  private readonly headerReader = new ByteReader(Buffer.alloc(0), 0, 0);
  private lastOffset: number | bigint | undefined = undefined;
  private readonly createTimeLine = metadataLine('CreateTime');
  private readonly logAppendTimeLine = metadataLine('LogAppendTime');

  // facts of the current v2 batch
  private safeBase = false;
  private baseOffset = 0;
  private baseTimestamp = 0;
  private baseSequence = -1;
  /** LogAppendTime: every record reports the batch's maxTimestamp (DefaultRecordBatch's RecordIterator). */
  private logAppendTime = false;
  private maxTimestamp = 0;
  private isControl = false;
  /** What the record needs beyond the byte path: control suffix, decoder, int64 past 2^53. */
  private needsRecord = false;

  constructor(
    private readonly opts: RecordLineOptions,
    private readonly out: LineWriter,
    private readonly onGap: (previous: bigint, next: bigint) => void,
  ) {}

  printRecords(batch: AnyRecordBatch): void {
    if (batch.kind === 'legacy') this.printLegacy(batch);
    else this.printV2(batch);
  }

  private printLegacy(batch: LegacyRecordBatch): void {
    for (const r of batch.records({ verifyCrc: false })) {
      this.follow(r.offset);
      let line = '';
      if (!this.opts.skipRecordMetadata) {
        // Kafka prints a stray '}' here (DumpLogSegments); kept for line-for-line compatibility
        line = `| offset: ${r.offset} ${batch.timestampType}: ${r.timestamp} keySize: ${r.keySize} valueSize: ${r.valueSize} isValid: ${r.isValid()} crc: ${r.crc}}`;
      }
      this.out.line(line + dataSuffix(r, this.opts, line.length > 0));
    }
  }

  private startBatch(b: RecordBatch): void {
    const base = Number(b.baseOffset);
    const baseTs = Number(b.baseTimestamp);
    const maxTs = Number(b.maxTimestamp);
    this.logAppendTime = b.timestampType === 'LogAppendTime';
    this.safeBase =
      Math.abs(base) < SAFE_BASE && Number.isSafeInteger(baseTs) && (!this.logAppendTime || Number.isSafeInteger(maxTs));
    this.baseOffset = base;
    this.baseTimestamp = baseTs;
    this.maxTimestamp = maxTs;
    this.baseSequence = b.baseSequence;
    this.isControl = b.isControl;
    const opts = this.opts;
    this.needsRecord = this.isControl ? !opts.skipRecordMetadata : opts.printDataLog && opts.decoder !== undefined;
  }

  private printV2(b: RecordBatch): void {
    this.startBatch(b);
    const { layout, out, opts, safeBase, baseOffset } = this;
    const needsRecord = this.needsRecord || !safeBase;
    const it = b.recordIterator({ verifyCrc: false });
    while (it.scanNext(layout)) {
      const record = needsRecord ? layout.toRecord(b) : undefined;
      const offset = safeBase ? baseOffset + layout.offsetDelta : record!.offset;
      this.follow(offset);
      let started = false;
      if (!opts.skipRecordMetadata) {
        this.writeMetadata(b, offset, record);
        if (this.isControl) out.write(controlSuffix(record!));
        started = true;
      }
      if (opts.printDataLog && !this.isControl) {
        if (opts.decoder !== undefined) out.write(dataSuffix(record!, opts, started));
        else this.writeKeyValue(started);
      }
      out.newline();
    }
  }

  /** `| offset: ... headerKeys: [...]`, from the layout's bytes. */
  private writeMetadata(b: RecordBatch, offset: number | bigint, record: Record | undefined): void {
    const { layout, out } = this;
    const delta = layout.timestampDelta;
    const sum = this.logAppendTime ? this.maxTimestamp : typeof delta === 'number' ? this.baseTimestamp + delta : NaN;
    // past 2^53 the sum is inexact: Kafka's long arithmetic (with its wrap-around) is Record's
    const timestamp = this.safeBase && Number.isSafeInteger(sum) ? sum : (record ?? layout.toRecord(b)).timestamp;
    const line = this.logAppendTime ? this.logAppendTimeLine : this.createTimeLine;
    line.set(OFFSET, offset);
    line.set(TIMESTAMP, timestamp);
    line.set(KEY_SIZE, layout.keySize);
    line.set(VALUE_SIZE, layout.valueSize);
    line.set(SEQUENCE, this.baseSequence < 0 ? -1 : incrementSequence(this.baseSequence, layout.offsetDelta));
    line.writeTo(out);
    this.writeHeaderKeys();
    out.bytes(HEADER_KEYS_END);
  }

  /** Header keys joined by ',' (keys are UTF-8 like Kafka's `Header.key()`; values are skipped). */
  private writeHeaderKeys(): void {
    const { layout, out } = this;
    const data = layout.data;
    const reader = this.headerReader;
    reader.buf = data;
    reader.pos = layout.headersStart;
    reader.end = layout.recordEnd;
    // the record's structure was validated by scanNext: these reads stay inside it
    for (let i = 0; i < layout.headerCount; i++) {
      if (i > 0) out.bytes(COMMA);
      const keySize = reader.readVarint();
      this.writeUtf8(data, reader.pos, reader.pos + keySize);
      reader.pos += keySize;
      const valueSize = reader.readVarint();
      if (valueSize > 0) reader.pos += valueSize;
    }
  }

  /** ` key: ... payload: ...` of `--print-data-log` (null ones are left out, as Kafka does). */
  private writeKeyValue(started: boolean): void {
    const { layout, out } = this;
    if (layout.keySize >= 0) {
      out.bytes(started ? KEY : KEY_FIRST);
      this.writeUtf8(layout.data, layout.keyStart, layout.keyStart + layout.keySize);
    }
    if (layout.valueSize >= 0) {
      out.bytes(PAYLOAD);
      this.writeUtf8(layout.data, layout.valueStart, layout.valueStart + layout.valueSize);
    }
  }

  /**
   * Bytes printed as their UTF-8 decoding: valid UTF-8 is its own text, copied as it is; anything
   * else goes through the decoder, which replaces bad sequences with U+FFFD (StringDecoder's text).
   */
  private writeUtf8(data: Buffer, start: number, end: number): void {
    const out = this.out;
    if (end - start <= 32 && out.ascii(data, start, end)) return; // header keys: short and ASCII
    if (isUtf8(data.subarray(start, end))) out.bytes(data, start, end);
    else out.write(data.toString('utf8', start, end));
  }

  /** Notes `offset` as the next record's, reporting a gap after the previous one. */
  private follow(offset: number | bigint): void {
    const last = this.lastOffset;
    if (last !== undefined) {
      const consecutive = typeof last === 'number' && typeof offset === 'number' ? offset === last + 1 : BigInt(offset) === BigInt(last) + 1n;
      if (!consecutive) this.onGap(BigInt(last), BigInt(offset));
    }
    this.lastOffset = offset;
  }
}

/**
 * The control-record suffix Kafka prints: ` endTxnMarker: COMMIT coordinatorEpoch: 7`, the KRaft
 * records as ` SnapshotHeader {"version":0,...}` (their JsonConverter form), others as
 * ` controlType: LEADER_CHANGE(2)`.
 */
function controlSuffix(r: Record): string {
  const key = parseControlRecordKey(r.key);
  if (key.type === 'ABORT' || key.type === 'COMMIT') {
    const marker = parseEndTransactionMarker(r.key, r.value);
    return ` endTxnMarker: ${marker.type} coordinatorEpoch: ${marker.coordinatorEpoch}`;
  }
  const kraft = kraftControlJson(key.type, r.value);
  if (kraft !== undefined) return ` ${kraft.label} ${toJson(kraft.json)}`;
  return ` controlType: ${key.type}(${key.typeId})`;
}

/** The `--print-data-log` part as text (legacy messages, internal-topic decoders). */
function dataSuffix(r: Record | LegacyRecord, opts: RecordLineOptions, started: boolean): string {
  if (!opts.printDataLog) return '';
  let prefix = started ? ' ' : '| ';
  let text = '';
  if (opts.decoder !== undefined) {
    const decoded = decodeInternalRecord(opts.decoder, r.key, r.value);
    if (decoded.key !== undefined) {
      text += `${prefix}key: ${decoded.key}`;
      prefix = ' ';
    }
    if (decoded.payload !== undefined) text += ` payload: ${decoded.payload}`;
    return text;
  }
  const key = r.key;
  if (key !== null) {
    text += `${prefix}key: ${key.toString('utf8')}`;
    prefix = ' ';
  }
  const value = r.value;
  if (value !== null) text += ` payload: ${value.toString('utf8')}`;
  return text;
}
