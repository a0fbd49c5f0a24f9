/**
 * LineTemplate (src/cli/line-template.ts): after any sequence of field updates, the line must be
 * the plain concatenation of its fragments and `String(value)` of each field, whether an update
 * kept the width (digits rewritten in place), carried into a new digit (99 -> 100), shrank, or
 * switched between numbers and bigints.
 */
import assert from 'node:assert/strict';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { LineTemplate } from '../../src/cli/line-template.js';
import { LineWriter } from '../../src/cli/output.js';

const FRAGMENTS = ['| offset: ', ' CreateTime: ', ' keySize: ', ' headerKeys: ['];

function expected(values: (number | bigint)[]): string {
  return FRAGMENTS.map((f, i) => (i < values.length ? f + String(values[i]) : f)).join('');
}

describe('LineTemplate', () => {
  it('starts with every field at 0', () => {
    assert.equal(new LineTemplate(FRAGMENTS).toString(), '| offset: 0 CreateTime: 0 keySize: 0 headerKeys: [');
  });

  it('equals the concatenated text after every update', () => {
    const line = new LineTemplate(FRAGMENTS);
    const values: (number | bigint)[] = [0, 0, 0];
    const updates: [number, number | bigint][] = [
      [0, 8], [0, 9], [0, 10], [0, 11], [0, 99], [0, 100], [0, 999], [0, 1000], // increments with carries
      [1, 1_700_000_000_000], [1, 1_700_000_000_001], [1, 1_700_000_000_009], [1, 1_700_000_000_010],
      [2, -1], [2, 0], [2, 1], [2, -1], [2, 1024], [2, 16], // signs and shrinking widths
      [0, 9_223_372_036_854_775_807n], [0, 5], [0, 6], [1, -9_223_372_036_854_775_808n], [1, 1_700_000_000_000],
      [0, 9_007_199_254_740_990], [0, 9_007_199_254_740_991], [2, 2_147_483_647], [2, 0],
    ];
    for (const [i, v] of updates) {
      line.set(i, v);
      values[i] = v;
      assert.equal(line.toString(), expected(values), `after field ${i} = ${v}`);
    }
  });

  it('agrees with the concatenation over a long run of mixed updates', () => {
    const line = new LineTemplate(FRAGMENTS);
    const values: (number | bigint)[] = [0, 0, 0];
    let s = 12345;
    for (let step = 0; step < 20_000; step++) {
      s = (s * 1103515245 + 12345) % 2 ** 31;
      const i = s % 3;
      const old = values[i]!;
      // mostly what a dump does (next offset, same or close timestamp), sometimes a jump
      const v = s % 5 === 0 ? Math.floor(s / 7) * (s % 2 ? 1 : -1) * 10 ** (s % 7) : typeof old === 'number' ? old + (s % 4 === 0 ? 0 : 1) : 1;
      line.set(i, v);
      values[i] = v;
      assert.equal(line.toString(), expected(values));
    }
  });

  it('writes its current line to a LineWriter', () => {
    const dir = mkdtempSync(join(tmpdir(), 'kafkalite-template-'));
    try {
      const file = join(dir, 'out.txt');
      const fd = openSync(file, 'w');
      const out = new LineWriter(fd);
      const line = new LineTemplate(FRAGMENTS);
      line.set(0, 41);
      line.writeTo(out);
      out.newline();
      line.set(0, 42);
      line.set(2, 7);
      line.writeTo(out);
      out.bytes(Buffer.from('x]'));
      out.newline();
      out.flush();
      closeSync(fd);
      assert.equal(
        readFileSync(file, 'latin1'),
        '| offset: 41 CreateTime: 0 keySize: 0 headerKeys: [\n| offset: 42 CreateTime: 0 keySize: 7 headerKeys: [x]\n',
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
