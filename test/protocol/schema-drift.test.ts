/**
 * The committed schema modules agree with Kafka's JSON definitions in the corpora: the generator
 * (scripts/gen-protocol-schemas.mjs) re-run over the JSON produces exactly the committed files, and,
 * independently of the generator, every API's version ranges and every top-level field's versions
 * match the JSON, and so do the optionality, nullability and type of each top-level field of the
 * generated request/response interfaces.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import { CORPORA, REPO_ROOT } from '../helpers/paths.js';
import { API_SCHEMAS } from '../../src/protocol/schemas/index.js';
import { METADATA_RECORD_SCHEMAS } from '../../src/protocol/schemas/internal/metadata.js';

const SCHEMAS_DIR = join(REPO_ROOT, 'src', 'protocol', 'schemas');
const MESSAGES = join(CORPORA, 'apache-kafka-message-schemas/clients/src/main/resources/common/message');

function listTs(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    if (statSync(p).isDirectory()) return listTs(p);
    return n.endsWith('.ts') ? [relative(SCHEMAS_DIR, p)] : [];
  });
}

test('re-generating from the corpora JSON gives the committed schema modules byte for byte', async () => {
  const gen = (await import(pathToFileURL(join(REPO_ROOT, 'scripts', 'gen-protocol-schemas.mjs')).href)) as {
    generateAll: (corpora: string) => Map<string, string>;
  };
  const files = gen.generateAll(CORPORA);
  const hand = new Set(['internal/index.ts']); // the one hand-written module in schemas/
  const committed = listTs(SCHEMAS_DIR).filter((f) => !hand.has(f)).sort();
  assert.deepStrictEqual(committed, [...files.keys()].sort());
  for (const [rel, text] of files) {
    assert.equal(readFileSync(join(SCHEMAS_DIR, rel), 'utf8'), text, `${rel} differs from the generator's output: re-run scripts/gen-protocol-schemas.mjs`);
  }
});

/** Minimal reading of a JSON definition, separate from the generator's. */
function readJson(name: string): any {
  const text = readFileSync(join(MESSAGES, `${name}.json`), 'utf8');
  return JSON.parse(text.split('\n').filter((l) => !l.trim().startsWith('//')).join('\n'));
}

function range(s: string): [number, number] {
  const m = /^(\d+)(?:-(\d+)|(\+))?$/.exec(s.trim())!;
  return [Number(m[1]), m[3] ? Infinity : Number(m[2] ?? m[1])];
}

test('every API module matches its JSON: api key, valid and flexible versions, top-level field names and versions', async () => {
  // the registry holds exactly the generator's APIs (a count here went stale with each API added)
  const { API_NAMES } = (await import(pathToFileURL(join(REPO_ROOT, 'scripts', 'gen-protocol-schemas.mjs')).href)) as { API_NAMES: string[] };
  assert.deepStrictEqual([...API_SCHEMAS.values()].map((a) => a.name).sort(), [...API_NAMES].sort());
  for (const [key, api] of API_SCHEMAS) {
    for (const [dir, schema] of [['Request', api.request], ['Response', api.response]] as const) {
      const json = readJson(`${api.name}${dir}`);
      assert.equal(json.apiKey, key);
      assert.equal(schema.apiKey, key);
      assert.deepStrictEqual(schema.validVersions, range(json.validVersions), `${api.name}${dir}`);
      assert.equal(schema.flexibleVersions, json.flexibleVersions === 'none' ? null : range(json.flexibleVersions)[0]);
      assert.deepStrictEqual(
        schema.fields.map((f) => [f.name, f.versions, f.tag ?? null]),
        json.fields.map((f: any) => [f.name[0].toLowerCase() + f.name.slice(1), f.versions ?? f.taggedVersions, f.tag === undefined ? null : Number(f.tag)]),
        `${api.name}${dir} fields`,
      );
    }
  }
});

test('the KRaft metadata record map covers every record definition in the corpora, by record type', () => {
  const dir = join(CORPORA, 'apache-kafka-message-schemas/metadata/src/main/resources/common/metadata');
  const files = readdirSync(dir).filter((f) => f.endsWith('.json'));
  assert.equal(METADATA_RECORD_SCHEMAS.size, files.length);
  for (const f of files) {
    const json = JSON.parse(readFileSync(join(dir, f), 'utf8').split('\n').filter((l) => !l.trim().startsWith('//')).join('\n'));
    assert.equal(METADATA_RECORD_SCHEMAS.get(json.apiKey)?.name, json.name, f);
  }
});

const TS_OF: Record<string, string> = {
  bool: 'boolean', int8: 'number', int16: 'number', uint16: 'number', int32: 'number', uint32: 'number',
  int64: 'bigint', float64: 'number', uuid: 'Buffer', string: 'string', bytes: 'Buffer', records: 'Buffer',
};

/** `name -> [optional, type]` of one `export interface` in a generated module's text. */
function interfaceFields(text: string, name: string): Map<string, [boolean, string]> {
  const body = new RegExp(`^export interface ${name} \\{\\n([^}]*)^\\}`, 'm').exec(text);
  assert.ok(body, `no interface ${name}`);
  const out = new Map<string, [boolean, string]>();
  for (const m of body[1]!.matchAll(/^ {2}(\w+)(\??): ([^;]+);/gm)) out.set(m[1]!, [m[2] === '?', m[3]!]);
  return out;
}

test("every API module's request and response interfaces follow the JSON: optional unless in every version or tagged, nullable as declared, primitives as the codec decodes them", () => {
  for (const [, api] of API_SCHEMAS) {
    const file = api.name.replace(/([a-z0-9])([A-Z])/g, '$1-$2').toLowerCase();
    const text = readFileSync(join(SCHEMAS_DIR, `${file}.ts`), 'utf8');
    for (const dir of ['Request', 'Response']) {
      const json = readJson(`${api.name}${dir}`);
      const [min, max] = range(json.validVersions);
      const fields = interfaceFields(text, `${api.name}${dir}`);
      assert.equal(fields.size, json.fields.length, `${api.name}${dir} field count`);
      for (const f of json.fields) {
        const name = f.name[0].toLowerCase() + f.name.slice(1);
        const [optional, type] = fields.get(name) ?? assert.fail(`${api.name}${dir}.${name} missing`);
        const [from, to] = range(f.versions ?? f.taggedVersions);
        assert.equal(optional, f.taggedVersions !== undefined || from > min || to < max, `${api.name}${dir}.${name} optional`);
        assert.equal(type.endsWith(' | null'), f.nullableVersions !== undefined && f.nullableVersions !== 'none', `${api.name}${dir}.${name} nullable`);
        const t = String(f.type);
        if (TS_OF[t] !== undefined) assert.equal(type.replace(/ \| null$/, ''), TS_OF[t], `${api.name}${dir}.${name} type`);
        else if (t.startsWith('[]')) assert.ok(type.replace(/ \| null$/, '').endsWith('[]'), `${api.name}${dir}.${name} array`);
      }
    }
  }
});
