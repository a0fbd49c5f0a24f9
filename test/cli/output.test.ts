/**
 * LineWriter's byte appenders (src/cli/output.ts) used by the dump's hot path: what reaches the
 * file must be exactly the pieces in order, across buffer flushes (the buffer is 256 KiB, so the
 * pieces here are written well past it), and `ascii` must refuse a non-ASCII run without writing
 * any of it.
 */
import assert from 'node:assert/strict';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { LineWriter } from '../../src/cli/output.js';

let dir: string;
before(() => {
  dir = mkdtempSync(join(tmpdir(), 'kafkalite-output-'));
});
after(() => rmSync(dir, { recursive: true, force: true }));

/** Runs `fill` on a LineWriter over a fresh file and returns the file's bytes. */
function written(name: string, fill: (out: LineWriter) => void): Buffer {
  const file = join(dir, name);
  const fd = openSync(file, 'w');
  try {
    const out = new LineWriter(fd);
    fill(out);
    out.flush();
  } finally {
    closeSync(fd);
  }
  return readFileSync(file);
}

describe('LineWriter byte appenders', () => {
  it('appends bytes, ASCII runs, template prefixes and strings in order across flushes', () => {
    const template = Buffer.from('| offset: 7 junk-after-the-length');
    const big = Buffer.alloc(300 * 1024, 0x62); // larger than the buffer: written through
    let expected = '';
    const got = written('mixed', (out) => {
      for (let i = 0; i < 20_000; i++) {
        out.prefix(template, 11);
        out.bytes(Buffer.from(` #${i} `), 1);
        assert.equal(out.ascii(Buffer.from('xkeyx'), 1, 4), true);
        out.write('é');
        out.newline();
        expected += `| offset: 7#${i} keyé\n`;
        if (i === 10_000) {
          out.bytes(big, 0, big.length);
          out.bytes(big, 0, 40); // long but inside the buffer: the native copy
          expected += 'b'.repeat(big.length + 40);
        }
      }
    });
    assert.equal(got.toString('utf8'), expected);
  });

  it('ascii refuses a run holding a byte >= 0x80 and writes none of it', () => {
    const key = Buffer.from('ab\u00e9c', 'utf8');
    let results: boolean[] = [];
    const got = written('ascii', (out) => {
      results = [out.ascii(key, 0, key.length), out.ascii(key, 0, 2), out.ascii(key, 4, 5), out.ascii(key, 2, 2)];
    });
    assert.deepEqual(results, [false, true, true, true]);
    assert.equal(got.toString('latin1'), 'abc');
  });
});
