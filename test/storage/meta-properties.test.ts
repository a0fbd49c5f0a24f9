/** meta.properties (Kafka MetaProperties, MetaPropertiesTest, java.util.Properties load/store rules). */
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { InvalidArgumentError, StorageError } from '../../src/errors.js';
import {
  encodeMetaProperties,
  parseJavaProperties,
  readMetaProperties,
  writeMetaProperties,
} from '../../src/storage/meta-properties.js';

const dir = mkdtempSync(join(tmpdir(), 'kafkalite-meta-'));
after(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;
const fresh = (content?: string | Buffer) => {
  const path = join(dir, `meta.properties.${n++}`);
  if (content !== undefined) writeFileSync(path, content);
  return path;
};
const props = (text: string) => Object.fromEntries(parseJavaProperties(Buffer.from(text, 'latin1'), 'test'));

function assertStorageError(fn: () => unknown, text: string, position?: number): void {
  assert.throws(fn, (e: unknown) => {
    assert.ok(e instanceof StorageError, String(e));
    assert.ok(e.detail.includes(text), `"${e.detail}" should contain "${text}"`);
    if (position !== undefined) assert.equal(e.position, position);
    return true;
  });
}

describe('meta.properties', () => {
  test('write: Properties.store layout, version 1, then read back', () => {
    const path = fresh();
    const when = new Date(Date.UTC(2024, 8, 2, 10, 13, 32));
    writeMetaProperties(path, { clusterId: 'rwd2jqiwRaCycLq7mKVHXA', nodeId: 1, directoryId: 'AiSXPLrdRM-HREWplhnaNA' }, when);
    assert.equal(
      readFileSync(path, 'utf8'),
      '#\n#Mon Sep 02 10:13:32 UTC 2024\ncluster.id=rwd2jqiwRaCycLq7mKVHXA\ndirectory.id=AiSXPLrdRM-HREWplhnaNA\nnode.id=1\nversion=1\n',
    );
    const meta = readMetaProperties(path);
    assert.equal(meta.version, 1);
    assert.equal(meta.clusterId, 'rwd2jqiwRaCycLq7mKVHXA');
    assert.equal(meta.nodeId, 1);
    assert.equal(meta.directoryId, 'AiSXPLrdRM-HREWplhnaNA');
    assert.deepEqual(meta.properties, {
      'cluster.id': 'rwd2jqiwRaCycLq7mKVHXA',
      'directory.id': 'AiSXPLrdRM-HREWplhnaNA',
      'node.id': '1',
      version: '1',
    });
  });

  test('directory.id is optional', () => {
    const path = fresh();
    writeMetaProperties(path, { clusterId: 'c', nodeId: 7 });
    const meta = readMetaProperties(path);
    assert.equal(meta.directoryId, undefined);
    assert.equal(meta.nodeId, 7);
    assert.match(readFileSync(path, 'utf8'), /^#\n#\w{3} \w{3} \d\d \d\d:\d\d:\d\d UTC \d{4}\ncluster\.id=c\nnode\.id=7\nversion=1\n$/);
  });

  test('values needing escapes round-trip', () => {
    const clusterId = ' lead=a:b#c!d\\e\tf\ng é€';
    const path = fresh();
    writeMetaProperties(path, { clusterId, nodeId: 0 });
    const text = readFileSync(path, 'latin1');
    assert.ok(text.includes('cluster.id=\\ lead\\=a\\:b\\#c\\!d\\\\e\\tf\\ng \\u00E9\\u20AC\n'), text);
    assert.equal(readMetaProperties(path).clusterId, clusterId);
  });

  test('write refuses bad input', () => {
    assert.throws(() => encodeMetaProperties({ clusterId: '', nodeId: 1 }), InvalidArgumentError);
    assert.throws(() => encodeMetaProperties({ clusterId: 'c', nodeId: 1.5 }), InvalidArgumentError);
    assert.throws(() => encodeMetaProperties({ clusterId: 'c', nodeId: 1, directoryId: 'bad' }), InvalidArgumentError);
  });

  test('version 0 uses broker.id', () => {
    const meta = readMetaProperties(fresh('version=0\nbroker.id=3\ncluster.id=abc\n'));
    assert.deepEqual([meta.version, meta.nodeId, meta.clusterId], [0, 3, 'abc']);
    // A missing version means 0.
    assert.equal(readMetaProperties(fresh('broker.id=3\ncluster.id=abc\n')).version, 0);
  });

  test('invalid files are StorageErrors with Kafka\'s messages', () => {
    assertStorageError(() => readMetaProperties(fresh('version=2\nnode.id=1\ncluster.id=c\n')), 'Unknown meta.properties version number 2');
    assertStorageError(() => readMetaProperties(fresh('version=x\n')), "Invalid meta.properties version string 'x'");
    assertStorageError(() => readMetaProperties(fresh('version=1\ncluster.id=c\n')), 'Failed to find node.id');
    assertStorageError(() => readMetaProperties(fresh('version=1\nnode.id=one\ncluster.id=c\n')), 'Unable to read node.id as a base-10 number.');
    assertStorageError(() => readMetaProperties(fresh('version=1\nnode.id=1\n')), 'cluster.id was not found.');
    assertStorageError(() => readMetaProperties(fresh('version=1\nnode.id=1\ncluster.id=c\ndirectory.id=zz\n')), 'Unable to read directory.id as a Uuid');
    assertStorageError(() => readMetaProperties(fresh('version=0\ncluster.id=c\n')), 'broker.id was not found.');
    assertStorageError(() => readMetaProperties(join(dir, 'missing')), 'failed to read');
    assertStorageError(() => readMetaProperties(fresh('version=1\nnode.id=1\ncluster.id=\\u12\n')), 'Malformed \\uxxxx encoding', 31);
  });

  test('version is trimmed like MetaPropertiesVersion.fromNumberString', () => {
    assert.equal(readMetaProperties(fresh('version=1 \nnode.id=1\ncluster.id=c\n')).version, 1);
  });

  test('a hostile __proto__ key is just a key', () => {
    const meta = readMetaProperties(fresh('__proto__=x\nversion=1\nnode.id=1\ncluster.id=c\n'));
    assert.equal(Object.getPrototypeOf(meta.properties), Object.prototype);
    assert.equal(Object.getOwnPropertyDescriptor(meta.properties, '__proto__')?.value, 'x');
  });
});

describe('java.util.Properties load rules', () => {
  test('comments, blank lines, leading whitespace', () => {
    assert.deepEqual(props('# c\n! c\n\n   \n  \t a=1\n\f#b=2\n'), { a: '1' });
  });
  test('separators: =, :, whitespace, and whitespace around them', () => {
    assert.deepEqual(props('a=1\nb:2\nc 3\nd = 4\ne  :  5\nf\ng=\nh = = 6\n'), {
      a: '1',
      b: '2',
      c: '3',
      d: '4',
      e: '5',
      f: '',
      g: '',
      h: '= 6',
    });
  });
  test('escapes in keys and values', () => {
    assert.deepEqual(props('a\\=b=c\\:d\nk\\ ey=\\t\\n\\r\\f\\u0041\\q\\\\\n'), { 'a=b': 'c:d', 'k ey': '\t\n\r\fAq\\' });
  });
  test('line continuations, CR and CRLF', () => {
    assert.deepEqual(props('a=1\\\n   2\\\r\n\t3\rb=x\\\\\r\nc=#not a comment\\\n#nor this\n'), {
      a: '123',
      b: 'x\\',
      c: '#not a comment#nor this',
    });
  });
  test('a comment line does not continue; a trailing backslash at EOF is dropped', () => {
    assert.deepEqual(props('#a=1\\\nb=2\nc=3\\'), { b: '2', c: '3' });
  });
  test('later duplicates win; bytes are ISO-8859-1', () => {
    assert.deepEqual(props('a=1\na=2\nb=\xe9\n'), { a: '2', b: 'é' });
  });
});
