/**
 * `dump-log` record lines written as bytes (src/cli/dump-log-records.ts) and batches read in
 * windows by `FileRecords.scan` (src/storage/file-records.ts, Kafka's `FileLogInputStream` rules):
 * the printed text must be what the batch contents say, written here by hand from the values the
 * segments were built with (the line format of Kafka's `DumpLogSegments.dumpLog`), on the cases
 * those paths treat apart: timestamps past 2^53, int64 offsets, LogAppendTime, digit-width changes
 * between consecutive offsets, header keys and payloads that are not ASCII or not UTF-8, a batch
 * larger than the read window, a batch whose magic is out of range (read as v2, as
 * `FileLogInputStream` does), and --max-bytes. The command runs in this process through the CLI's
 * `main()`, once as the built binary.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { crc32c, encodeRecordBatch } from '../../src/record/index.js';
import { runCli, spawnCli } from '../helpers/cli.js';

const TS = 1_700_000_000_000;

let dir: string;
before(() => {
  dir = mkdtempSync(join(tmpdir(), 'kafkalite-dump-lines-'));
});
after(() => rmSync(dir, { recursive: true, force: true }));

function segment(name: string, batches: Buffer[]): string {
  mkdirSync(join(dir, name));
  const file = join(dir, name, '00000000000000000000.log');
  writeFileSync(file, Buffer.concat(batches));
  return file;
}

/** `kafkalite dump-log <args>` in this process (`spawned`: as the built binary, once in this file). */
function dump(args: string[], spawned = false): { lines: string[]; stderr: string; status: number | null } {
  const res = spawned ? spawnCli('dump-log', ...args) : runCli('dump-log', ...args);
  return { lines: res.stdout.trimEnd().split('\n'), stderr: res.stderr, status: res.status };
}

const recordLines = (lines: string[]) => lines.filter((l) => l.startsWith('| '));
const batchLines = (lines: string[]) => lines.filter((l) => l.startsWith('baseOffset: '));

/** The batch's CRC recomputed after its bytes were edited (so only the edit differs). */
function recrc(batch: Buffer): Buffer {
  batch.writeUInt32BE(crc32c(batch, 21, batch.length), 17);
  return batch;
}

describe('dump-log record lines', () => {
  it('prints exact timestamps past 2^53 and int64 offsets', () => {
    const file = segment('int64', [
      encodeRecordBatch(
        [
          { key: 'a', value: 'v', timestamp: 1_000_000_000_000_000n },
          { key: 'a', value: 'v', timestamp: 9_007_199_254_740_993n },
        ],
        { baseOffset: 0 },
      ),
      encodeRecordBatch([{ key: 'b', value: 'v', timestamp: TS }, { key: 'b', value: 'v', timestamp: TS }], { baseOffset: 9_223_372_036_854_775_806n }),
    ]);
    assert.deepEqual(recordLines(dump(['--deep-iteration', '--files', file], true).lines), [
      '| offset: 0 CreateTime: 1000000000000000 keySize: 1 valueSize: 1 sequence: -1 headerKeys: []',
      '| offset: 1 CreateTime: 9007199254740993 keySize: 1 valueSize: 1 sequence: -1 headerKeys: []',
      '| offset: 9223372036854775806 CreateTime: 1700000000000 keySize: 1 valueSize: 1 sequence: -1 headerKeys: []',
      '| offset: 9223372036854775807 CreateTime: 1700000000000 keySize: 1 valueSize: 1 sequence: -1 headerKeys: []',
    ]);
  });

  it('prints consecutive offsets across digit widths, LogAppendTime and sequences', () => {
    const file = segment('widths', [
      encodeRecordBatch(
        Array.from({ length: 12 }, (_, i) => ({ key: null, value: i % 2 ? null : 'x'.repeat(i * 10), timestamp: TS + i })),
        { baseOffset: 94, producerId: 5, producerEpoch: 0, baseSequence: 2_147_483_640 },
      ),
      encodeRecordBatch([{ key: 'k', value: 'v', timestamp: TS }, { key: 'k', value: 'v', timestamp: TS + 5 }], {
        baseOffset: 106,
        timestampType: 'LogAppendTime',
        logAppendTime: 1_700_000_123_456,
      }),
    ]);
    const expected = Array.from({ length: 12 }, (_, i) => {
      const sequence = i <= 7 ? 2_147_483_640 + i : i - 8; // Kafka's sequence wraps to 0 after Int.MAX
      const valueSize = i % 2 ? -1 : i * 10;
      return `| offset: ${94 + i} CreateTime: ${TS + i} keySize: -1 valueSize: ${valueSize} sequence: ${sequence} headerKeys: []`;
    });
    expected.push('| offset: 106 LogAppendTime: 1700000123456 keySize: 1 valueSize: 1 sequence: -1 headerKeys: []');
    expected.push('| offset: 107 LogAppendTime: 1700000123456 keySize: 1 valueSize: 1 sequence: -1 headerKeys: []');
    const res = dump(['--deep-iteration', '--files', file]);
    assert.deepEqual(recordLines(res.lines), expected);
    assert.equal(res.stderr, '', 'consecutive offsets: nothing on stderr');
  });

  it('prints header keys and payloads as their UTF-8 text, bad bytes as U+FFFD', () => {
    const batch = encodeRecordBatch(
      [
        {
          key: 'clé',
          value: 'значение '.repeat(8),
          timestamp: TS,
          headers: [{ key: 'a', value: 'x' }, { key: 'ключ' }, { key: 'XY', value: null }],
        },
        { key: null, value: 'AB-tail', timestamp: TS },
      ],
      { baseOffset: 0 },
    );
    // header key "XY" becomes the bytes ff fe, and value "AB" of the second record e0 80: not UTF-8
    const xy = batch.indexOf('XY');
    batch[xy] = 0xff;
    batch[xy + 1] = 0xfe;
    const ab = batch.indexOf('AB-tail');
    batch[ab] = 0xe0;
    batch[ab + 1] = 0x80;
    const file = segment('utf8', [recrc(batch)]);
    const value = 'значение '.repeat(8);
    assert.deepEqual(recordLines(dump(['--print-data-log', '--files', file]).lines), [
      `| offset: 0 CreateTime: 1700000000000 keySize: 4 valueSize: ${Buffer.byteLength(value)} sequence: -1 headerKeys: [a,ключ,\ufffd\ufffd] key: clé payload: ${value}`,
      '| offset: 1 CreateTime: 1700000000000 keySize: -1 valueSize: 7 sequence: -1 headerKeys: [] payload: \ufffd\ufffd-tail',
    ]);
    assert.deepEqual(recordLines(dump(['--print-data-log', '--skip-record-metadata', '--files', file]).lines), [
      `| key: clé payload: ${value}`,
    ]);
    // the second record's line has no key and no metadata: Kafka's ' payload: ' with no '| '
    assert.ok(dump(['--print-data-log', '--skip-record-metadata', '--files', file]).lines.includes(' payload: \ufffd\ufffd-tail'));
  });
});

describe('dump-log batch reading', () => {
  const small = (base: number) => encodeRecordBatch([{ key: 'k', value: 'v', timestamp: TS }], { baseOffset: base });

  it('reads a batch larger than the 1 MiB read window and the batches around it', () => {
    const big = encodeRecordBatch(
      Array.from({ length: 3 }, (_, i) => ({ key: 'big', value: Buffer.alloc(700_000, 0x61 + i), timestamp: TS + i })),
      { baseOffset: 1 },
    );
    const batches = [small(0), big, small(4)];
    const file = segment('big', batches);
    const res = dump(['--deep-iteration', '--files', file]);
    const positions = [0, batches[0]!.length, batches[0]!.length + big.length];
    assert.deepEqual(
      batchLines(res.lines).map((l) => [/^baseOffset: (\d+)/.exec(l)![1], /position: (\d+)/.exec(l)![1], /size: (\d+)/.exec(l)![1]]),
      batches.map((b, i) => [String([0, 1, 4][i]), String(positions[i]), String(b.length)]),
    );
    assert.deepEqual(
      recordLines(res.lines).map((l) => /^\| offset: (\d+)/.exec(l)![1]),
      ['0', '1', '2', '3', '4'],
    );
  });

  it('prints, after the windowed batches, what FileRecords reads: a magic 5 batch, then the rest', () => {
    const odd = Buffer.from(small(1));
    odd[16] = 5; // FileLogInputStream does not range-check the magic: the batch is read as v2
    const file = segment('magic5', [small(0), odd, small(2)]);
    const res = dump(['--deep-iteration', '--files', file]);
    assert.equal(res.status, 0, res.stderr);
    const lines = batchLines(res.lines);
    assert.equal(lines.length, 3);
    assert.match(lines[1]!, /^baseOffset: 1 .* magic: 5 compresscodec: none crc: \d+ isvalid: true$/); // magic is outside the CRC (DefaultRecordBatch: the CRC covers attributes to the end)
    assert.ok(lines[2]!.startsWith('baseOffset: 2 ') && lines[2]!.includes(` position: ${2 * odd.length} `), lines[2]);
    assert.deepEqual(recordLines(res.lines).map((l) => /^\| offset: (\d+)/.exec(l)![1]), ['0', '1', '2']);
  });

  it('stops at --max-bytes on a batch boundary, and reports a torn tail otherwise', () => {
    const batches = [small(0), small(1), small(2)];
    const size = batches[0]!.length;
    const file = segment('limit', [...batches, batches[0]!.subarray(0, 30)]);
    const cut = dump(['--deep-iteration', '--max-bytes', String(2 * size + 10), '--files', file]);
    assert.deepEqual(recordLines(cut.lines).map((l) => /^\| offset: (\d+)/.exec(l)![1]), ['0', '1']);
    assert.ok(!cut.lines.some((l) => l.startsWith('Found ')), '--max-bytes suppresses the invalid-bytes line');
    const whole = dump(['--deep-iteration', '--files', file]);
    assert.equal(recordLines(whole.lines).length, 3);
    assert.equal(whole.lines.at(-1), 'Found 30 invalid bytes at the end of 00000000000000000000.log');
  });
});
