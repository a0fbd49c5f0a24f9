#!/usr/bin/env node
/**
 * Writes kafkalite's protocol schema modules (src/protocol/schemas/**) from Kafka's JSON message
 * definitions in the shared corpora (apache-kafka-message-schemas, see corpora/SOURCES.md).
 *
 *   node scripts/gen-protocol-schemas.mjs [corporaDir]     (default: ../shared/corpora)
 *
 * The JSON files are JSON with `//` line comments. Only facts are carried over: names, types,
 * version ranges, nullability, tags, defaults, ignorable. Kafka's `about` texts and comments are
 * not copied; each module instead gets version notes computed from the schema itself (which fields
 * each version adds or drops). test/protocol/schema-drift.test.ts re-runs `generateAll` and checks
 * the committed modules are what it produces.
 */
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The APIs the broker serves (issue 8), by JSON base name. */
export const API_NAMES = [
  'Produce', 'Fetch', 'ListOffsets', 'Metadata', 'OffsetCommit', 'OffsetFetch', 'FindCoordinator', 'JoinGroup',
  'Heartbeat', 'LeaveGroup', 'SyncGroup', 'DescribeGroups', 'ListGroups', 'SaslHandshake', 'ApiVersions',
  'CreateTopics', 'DeleteTopics', 'DeleteRecords', 'InitProducerId', 'OffsetForLeaderEpoch', 'AddPartitionsToTxn',
  'AddOffsetsToTxn', 'EndTxn', 'WriteTxnMarkers', 'TxnOffsetCommit', 'DescribeConfigs', 'AlterConfigs',
  'SaslAuthenticate', 'CreatePartitions', 'DeleteGroups', 'IncrementalAlterConfigs', 'OffsetDelete', 'DescribeCluster',
  'DescribeTransactions', 'ListTransactions',
  'DescribeProducers', 'DescribeLogDirs', 'DescribeClientQuotas', 'AlterClientQuotas',
  'ElectLeaders', 'ListPartitionReassignments', 'AlterPartitionReassignments', 'DescribeTopicPartitions',
  'DescribeAcls', 'CreateAcls', 'DeleteAcls',
  'ConsumerGroupHeartbeat', 'ConsumerGroupDescribe',
  'DescribeUserScramCredentials', 'AlterUserScramCredentials',
];

const CLIENTS = 'apache-kafka-message-schemas/clients/src/main/resources/common/message';
const GROUP = 'apache-kafka-message-schemas/group-coordinator/src/main/resources/common/message';
const TXN = 'apache-kafka-message-schemas/transaction-coordinator/src/main/resources/common/message';
const METADATA = 'apache-kafka-message-schemas/metadata/src/main/resources/common/metadata';

/** Data-type modules: output file -> [folder, JSON names]. */
const DATA_MODULES = [
  ['internal/group-coordinator.ts', 'records of __consumer_offsets (offset commits, classic group metadata, KIP-848 consumer groups)', GROUP,
    ['OffsetCommitKey', 'OffsetCommitValue', 'GroupMetadataKey', 'GroupMetadataValue',
      'ConsumerGroupMetadataKey', 'ConsumerGroupMetadataValue', 'ConsumerGroupPartitionMetadataKey', 'ConsumerGroupPartitionMetadataValue',
      'ConsumerGroupMemberMetadataKey', 'ConsumerGroupMemberMetadataValue', 'ConsumerGroupTargetAssignmentMetadataKey',
      'ConsumerGroupTargetAssignmentMetadataValue', 'ConsumerGroupTargetAssignmentMemberKey', 'ConsumerGroupTargetAssignmentMemberValue',
      'ConsumerGroupCurrentMemberAssignmentKey', 'ConsumerGroupCurrentMemberAssignmentValue']],
  ['internal/transaction-coordinator.ts', 'records of __transaction_state', TXN, ['TransactionLogKey', 'TransactionLogValue']],
  ['internal/raft.ts', 'KRaft control records (snapshot header/footer, leader change, voters, kraft.version)', CLIENTS,
    ['SnapshotHeaderRecord', 'SnapshotFooterRecord', 'LeaderChangeMessage', 'VotersRecord', 'KRaftVersionRecord']],
  ['internal/consumer-protocol.ts', 'the consumer protocol carried as opaque bytes in JoinGroup/SyncGroup', CLIENTS,
    ['ConsumerProtocolSubscription', 'ConsumerProtocolAssignment']],
];

// ---- reading the JSON ------------------------------------------------------------------------

/** Drops `//` comments outside string literals, then parses. */
export function parseCommentedJson(text) {
  let out = '';
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (inString) {
      out += ch;
      if (ch === '\\') out += text[++i];
      else if (ch === '"') inString = false;
    } else if (ch === '"') {
      inString = true;
      out += ch;
    } else if (ch === '/' && text[i + 1] === '/') {
      while (i < text.length && text[i] !== '\n') i++;
      out += '\n';
    } else out += ch;
  }
  return JSON.parse(out);
}

const lcfirst = (s) => s[0].toLowerCase() + s.slice(1);
const kebab = (s) => s.replace(/([a-z0-9])([A-Z])/g, '$1-$2').toLowerCase();
const PRIMITIVES = new Set(['bool', 'int8', 'int16', 'uint16', 'int32', 'uint32', 'int64', 'float64', 'uuid', 'string', 'bytes', 'records']);
const INTS = new Set(['int8', 'int16', 'uint16', 'int32', 'uint32']);

function parseRange(v) {
  if (v === undefined) return undefined;
  const s = String(v).trim();
  let m;
  if (s === 'none') return [1, 0];
  if ((m = /^(\d+)\+$/.exec(s))) return [Number(m[1]), Infinity];
  if ((m = /^(\d+)-(\d+)$/.exec(s))) return [Number(m[1]), Number(m[2])];
  if ((m = /^(\d+)$/.exec(s))) return [Number(m[1]), Number(m[1])];
  throw new Error(`bad version range ${v}`);
}
const inRange = (v, n) => {
  const r = parseRange(v);
  return r !== undefined && n >= r[0] && n <= r[1];
};

/** The field's default in its JS form, or undefined when the JSON gives none. */
function normaliseDefault(jf, base) {
  if (!('default' in jf)) return undefined;
  const d = jf.default;
  if (d === null || d === 'null') return null;
  if (base === 'int64') return BigInt(typeof d === 'string' ? d.trim() : d);
  if (INTS.has(base) || base === 'int8') {
    const s = String(d).trim();
    return s.toLowerCase().startsWith('0x') ? parseInt(s, 16) : Number(s);
  }
  if (base === 'float64') return Number(d);
  if (base === 'bool') return d === true || d === 'true';
  if (base === 'string') return String(d);
  throw new Error(`default ${JSON.stringify(d)} on a ${base} field`);
}

/**
 * Kafka JSON message -> { schema, structs }: `schema` as the MessageSchema literal's data, with
 * struct types as objects `{ struct, fields }`; common structs become shared objects.
 */
export function toSchema(json) {
  const common = new Map();
  for (const cs of json.commonStructs ?? []) common.set(cs.name, cs);
  const built = new Map();
  const structOf = (name, inlineFields) => {
    if (inlineFields) return { struct: name, fields: inlineFields.map(toField) };
    const cs = common.get(name);
    if (!cs) throw new Error(`${json.name}: unknown struct ${name}`);
    let s = built.get(name);
    if (!s) {
      s = { struct: name, fields: [], common: true };
      built.set(name, s);
      s.fields = cs.fields.map(toField);
    }
    return s;
  };
  function toField(jf) {
    const t = String(jf.type).trim();
    let type;
    if (t.startsWith('[]')) {
      const inner = t.slice(2);
      type = { array: PRIMITIVES.has(inner) ? inner : structOf(inner, jf.fields) };
    } else if (PRIMITIVES.has(t)) type = t;
    else type = structOf(t, jf.fields);
    // A tagged field may omit "versions": it then exists exactly in its tagged versions.
    const versions = jf.versions ?? jf.taggedVersions;
    if (versions === undefined) throw new Error(`${json.name}.${jf.name}: no versions`);
    const f = { name: lcfirst(jf.name), type, versions: String(versions).trim() };
    if (jf.nullableVersions !== undefined) f.nullableVersions = String(jf.nullableVersions).trim();
    if (jf.tag !== undefined) f.tag = Number(jf.tag);
    if (jf.taggedVersions !== undefined) f.taggedVersions = String(jf.taggedVersions).trim();
    if (jf.flexibleVersions !== undefined) f.flexibleVersions = String(jf.flexibleVersions).trim();
    const d = normaliseDefault(jf, typeof type === 'string' ? type : 'struct-or-array');
    if (d !== undefined) f.default = d;
    if (jf.ignorable === true) f.ignorable = true;
    return f;
  }
  const valid = parseRange(json.validVersions);
  const flex = String(json.flexibleVersions).trim();
  const schema = {
    name: json.name,
    ...(json.apiKey !== undefined ? { apiKey: json.apiKey } : {}),
    type: json.type,
    validVersions: [valid[0], valid[1]],
    flexibleVersions: flex === 'none' ? null : parseRange(flex)[0],
    fields: json.fields.map(toField),
  };
  return { schema, structs: [...built.values()] };
}

// ---- version notes (computed, not copied) ------------------------------------------------------

function fieldPaths(fields, prefix, out, seen = new Set()) {
  for (const f of fields) {
    const path = prefix ? `${prefix}.${f.name}` : f.name;
    out.push({ path, f });
    const st = typeof f.type === 'object' ? (f.type.array ?? f.type) : undefined;
    if (st && typeof st === 'object' && st.fields && !seen.has(st)) {
      seen.add(st);
      fieldPaths(st.fields, path + (f.type.array ? '[]' : ''), out, seen);
      seen.delete(st);
    }
  }
  return out;
}

function versionNotes(schema) {
  const [min, max] = schema.validVersions;
  const paths = fieldPaths(schema.fields, '', []);
  const lines = [];
  for (let v = min; v <= max; v++) {
    const parts = [];
    if (schema.flexibleVersions === v) parts.push('first flexible version');
    if (v > min) {
      const added = paths.filter(({ f }) => inRange(f.versions, v) && !inRange(f.versions, v - 1)).map(({ path, f }) => path + (inRange(f.taggedVersions, v) ? ` (tag ${f.tag})` : ''));
      const dropped = paths.filter(({ f }) => !inRange(f.versions, v) && inRange(f.versions, v - 1)).map(({ path }) => path);
      const nulls = paths.filter(({ f }) => inRange(f.versions, v) && inRange(f.versions, v - 1) && inRange(f.nullableVersions, v) && !inRange(f.nullableVersions, v - 1)).map(({ path }) => path);
      if (added.length) parts.push(`adds ${added.join(', ')}`);
      if (dropped.length) parts.push(`drops ${dropped.join(', ')}`);
      if (nulls.length) parts.push(`${nulls.join(', ')} nullable`);
      if (!parts.length) parts.push('same fields as v' + (v - 1));
    } else parts.push(`${paths.filter(({ f }) => inRange(f.versions, v)).length} fields`);
    lines.push(`v${v}: ${parts.join('; ')}`);
  }
  return lines;
}

// ---- emitting TypeScript ---------------------------------------------------------------------

function lit(v) {
  if (typeof v === 'bigint') return `${v}n`;
  if (typeof v === 'string') return `'${v.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
  return String(v);
}

function emitType(t, structNames, indent) {
  if (typeof t === 'string') return lit(t);
  if (t.array !== undefined) return `{ array: ${emitType(t.array, structNames, indent)} }`;
  if (t.common) return structNames.get(t);
  return `{ struct: ${lit(t.struct)}, fields: ${emitFields(t.fields, structNames, indent)} }`;
}

function emitFields(fields, structNames, indent) {
  if (fields.length === 0) return '[]';
  const pad = ' '.repeat(indent + 2);
  const items = fields.map((f) => {
    const parts = [`name: ${lit(f.name)}`, `type: ${emitType(f.type, structNames, indent + 2)}`, `versions: ${lit(f.versions)}`];
    for (const k of ['nullableVersions', 'tag', 'taggedVersions', 'flexibleVersions', 'default', 'ignorable']) {
      if (f[k] !== undefined) parts.push(`${k}: ${lit(f[k])}`);
    }
    return `${pad}{ ${parts.join(', ')} },`;
  });
  return `[\n${items.join('\n')}\n${' '.repeat(indent)}]`;
}

/** `const X: StructType = ...` for the common structs (dependencies first). */
function emitStructs(owner, structs, structNames) {
  const out = [];
  const done = new Set();
  const visit = (s) => {
    if (done.has(s)) return;
    done.add(s);
    for (const f of s.fields) {
      const t = typeof f.type === 'object' ? (f.type.array ?? f.type) : undefined;
      if (t && typeof t === 'object' && t.common) visit(t);
    }
    const name = `${owner}${s.struct}Struct`;
    structNames.set(s, name);
    out.push(`const ${name}: StructType = { struct: ${lit(s.struct)}, fields: ${emitFields(s.fields, structNames, 0)} };\n`);
  };
  for (const s of structs) visit(s);
  return out.join('\n');
}

function emitSchema(constName, file, schema, structs, exported) {
  const structNames = new Map();
  const structText = emitStructs(schema.name, structs, structNames);
  const notes = versionNotes(schema).map((l) => ` *   ${l}`).join('\n');
  const head = [
    `name: ${lit(schema.name)}`,
    ...(schema.apiKey !== undefined ? [`apiKey: ${schema.apiKey}`] : []),
    `type: ${lit(schema.type)}`,
    `validVersions: [${schema.validVersions[0]}, ${schema.validVersions[1]}]`,
    `flexibleVersions: ${schema.flexibleVersions === null ? 'null' : schema.flexibleVersions}`,
  ];
  return (
    (structText ? structText + '\n' : '') +
    `/**\n * ${schema.name} (${file}).\n${notes}\n */\n` +
    `${exported ? 'export ' : ''}const ${constName}: MessageSchema = {\n  ${head.join(',\n  ')},\n  fields: ${emitFields(schema.fields, structNames, 2)},\n};\n`
  );
}

// ---- emitting TypeScript types -----------------------------------------------------------------
//
// Each message also gets interfaces for its values as the codec (src/protocol/codec.ts) represents
// them: int64 as bigint, uuid/bytes/records as Buffer. A field is required when it exists in every
// version its struct can appear in; a field of only some versions, or a tagged one (KIP-482: tagged
// fields may be left out of the wire), is optional; a field nullable in any of its versions is
// `T | null`. A trailing comment names the versions of the fields that are not in all of them.

const TS_PRIMITIVE = {
  bool: 'boolean', int8: 'number', int16: 'number', uint16: 'number', int32: 'number', uint32: 'number',
  int64: 'bigint', float64: 'number', uuid: 'Buffer', string: 'string', bytes: 'Buffer', records: 'Buffer',
};

/** The struct a field holds, itself or as array elements; undefined for primitives and their arrays. */
function fieldStruct(t) {
  if (typeof t !== 'object') return undefined;
  if (t.array !== undefined) return typeof t.array === 'object' ? t.array : undefined;
  return t;
}
const within = (range, vs) => vs.filter((v) => inRange(range, v));
const span = (vs) => {
  // contiguous runs of a sorted version list, in the JSON's spelling
  const runs = [];
  for (const v of vs) {
    const last = runs[runs.length - 1];
    if (last && last[1] === v - 1) last[1] = v;
    else runs.push([v, v]);
  }
  return runs.map(([a, b]) => (a === b ? `v${a}` : `v${a}-${b}`)).join(', ');
};

/** Every struct object reachable from `fields`, with the union of the versions it can appear in. */
function structContexts(fields, versions, out) {
  for (const f of fields) {
    const present = within(f.versions, versions);
    const st = fieldStruct(f.type);
    if (!st || present.length === 0) continue;
    const prev = out.get(st) ?? [];
    out.set(st, [...new Set([...prev, ...present])].sort((a, b) => a - b));
    structContexts(st.fields, present, out);
  }
  return out;
}

/**
 * Interface names for a module's messages and structs: each struct keeps its JSON name unless
 * another type of the module has it too (VotersRecord and LeaderChangeMessage both have a `Voter`),
 * then it is prefixed with its message's name.
 */
function typeNames(messages) {
  const byName = new Map();
  const add = (name, use) => byName.set(name, [...(byName.get(name) ?? []), use]);
  for (const m of messages) {
    add(m.typeName, { obj: m, name: m.typeName });
    for (const st of m.contexts.keys()) add(st.struct, { obj: st, name: `${m.typeName}${st.struct}` });
  }
  const names = new Map();
  for (const [name, uses] of byName) {
    for (const u of uses) names.set(u.obj, uses.length > 1 && !messages.includes(u.obj) ? u.name : name);
  }
  const taken = new Set();
  for (const n of names.values()) {
    if (taken.has(n)) throw new Error(`type name ${n} is used twice`);
    taken.add(n);
  }
  return names;
}

function tsFieldType(f, present, names) {
  const t = f.type;
  let ts;
  if (typeof t === 'string') ts = TS_PRIMITIVE[t];
  else if (t.array !== undefined) ts = `${typeof t.array === 'string' ? TS_PRIMITIVE[t.array] : names.get(t.array)}[]`;
  else ts = names.get(t);
  const nullable = within(f.nullableVersions, present);
  return nullable.length > 0 ? { ts: `${ts} | null`, nullable } : { ts, nullable };
}

function emitInterface(name, fields, versions, names) {
  const lines = fields.map((f) => {
    const present = within(f.versions, versions);
    const tagged = within(f.taggedVersions, present).length > 0;
    const optional = tagged || present.length < versions.length;
    const { ts, nullable } = tsFieldType(f, present, names);
    const notes = [];
    if (present.length < versions.length) notes.push(present.length === 0 ? 'in no version' : span(present));
    if (tagged) notes.push('tagged');
    if (nullable.length > 0 && nullable.length < present.length) notes.push(`null only in ${span(nullable)}`);
    return `  ${f.name}${optional ? '?' : ''}: ${ts};${notes.length ? ` // ${notes.join('; ')}` : ''}`;
  });
  return `export interface ${name} {\n${lines.join('\n')}${lines.length ? '\n' : ''}}\n`;
}

/** The interfaces of a module's messages (each message's own first, then its structs). */
function emitTypes(messages) {
  for (const m of messages) {
    const [min, max] = m.schema.validVersions;
    m.versions = Array.from({ length: max - min + 1 }, (_, i) => min + i);
    m.contexts = structContexts(m.schema.fields, m.versions, new Map());
  }
  const names = typeNames(messages);
  const done = new Set();
  return messages.map((m) => {
    const parts = [emitInterface(m.typeName, m.schema.fields, m.versions, names)];
    for (const [st, versions] of m.contexts) {
      if (done.has(st)) continue;
      done.add(st);
      parts.push(emitInterface(names.get(st), st.fields, versions, names));
    }
    return parts.join('\n');
  });
}

const BANNER = (what) =>
  `// GENERATED by scripts/gen-protocol-schemas.mjs from Kafka's JSON message definitions\n` +
  `// (shared corpora, apache-kafka-message-schemas @ 1eb7644). Do not edit; re-run the script.\n` +
  `// ${what}\n`;

function load(corpora, folder, name) {
  return parseCommentedJson(readFileSync(join(corpora, folder, `${name}.json`), 'utf8'));
}

/** Every generated module: relative path under src/protocol/schemas -> file text. */
export function generateAll(corpora) {
  const files = new Map();
  const index = [];
  for (const api of API_NAMES) {
    const req = toSchema(load(corpora, CLIENTS, `${api}Request`));
    const res = toSchema(load(corpora, CLIENTS, `${api}Response`));
    if (req.schema.apiKey !== res.schema.apiKey) throw new Error(`${api}: request/response api keys differ`);
    const file = `${kebab(api)}.ts`;
    const [reqTypes, resTypes] = emitTypes([{ typeName: `${api}Request`, schema: req.schema }, { typeName: `${api}Response`, schema: res.schema }]);
    const body =
      reqTypes + '\n' + emitSchema('request', `${api}Request.json`, req.schema, req.structs, false) + '\n' +
      resTypes + '\n' + emitSchema('response', `${api}Response.json`, res.schema, res.structs, false) + '\n' +
      `export const ${api}: ApiSchemaPair = { apiKey: ${req.schema.apiKey}, name: ${lit(api)}, request, response };\n`;
    const types = body.includes(': StructType =') ? 'ApiSchemaPair, MessageSchema, StructType' : 'ApiSchemaPair, MessageSchema';
    files.set(file, BANNER(`${api}: API key ${req.schema.apiKey}.`) + `import type { ${types} } from '../schema.js';\n\n` + body);
    index.push({ api, file, apiKey: req.schema.apiKey });
  }

  // Request and response headers.
  {
    const rh = toSchema(load(corpora, CLIENTS, 'RequestHeader'));
    const sh = toSchema(load(corpora, CLIENTS, 'ResponseHeader'));
    const [rhTypes, shTypes] = emitTypes([{ typeName: 'RequestHeader', schema: rh.schema }, { typeName: 'ResponseHeader', schema: sh.schema }]);
    files.set(
      'headers.ts',
      BANNER('Request header v0-v2 and response header v0-v1.') +
        `import type { MessageSchema } from '../schema.js';\n\n` +
        rhTypes + '\n' + emitSchema('RequestHeader', 'RequestHeader.json', rh.schema, rh.structs, true) + '\n' +
        shTypes + '\n' + emitSchema('ResponseHeader', 'ResponseHeader.json', sh.schema, sh.structs, true),
    );
  }

  for (const [file, what, folder, names] of DATA_MODULES) {
    const schemas = names.map((n) => toSchema(load(corpora, folder, n)));
    const types = emitTypes(schemas.map((s, i) => ({ typeName: names[i], schema: s.schema })));
    const parts = schemas.map((s, i) => types[i] + '\n' + emitSchema(names[i], `${names[i]}.json`, s.schema, s.structs, true));
    const text = BANNER(`Data schemas: ${what}.`) + `import type { MessageSchema, StructType } from '../../schema.js';\n\n` + parts.join('\n');
    files.set(file, text.includes(': StructType =') ? text : text.replace('MessageSchema, StructType', 'MessageSchema'));
  }

  // KRaft metadata records (__cluster_metadata), every file in the folder, keyed by record type.
  {
    const dir = join(corpora, METADATA);
    const names = METADATA_RECORD_NAMES;
    const schemas = names.map((n) => toSchema(parseCommentedJson(readFileSync(join(dir, `${n}.json`), 'utf8'))));
    const types = emitTypes(schemas.map((s, i) => ({ typeName: names[i], schema: s.schema })));
    const parts = schemas.map((s, i) => types[i] + '\n' + emitSchema(names[i], `${names[i]}.json`, s.schema, s.structs, true));
    const keys = schemas.map((s, i) => [s.schema.apiKey, names[i]]);
    keys.sort((a, b) => a[0] - b[0]);
    const text =
      BANNER('KRaft metadata records (the __cluster_metadata log), keyed by their record type (apiKey).') +
      `import type { MessageSchema, StructType } from '../../schema.js';\n\n` +
      parts.join('\n') +
      `\n/** Metadata record type (the JSON apiKey) -> schema. */\nexport const METADATA_RECORD_SCHEMAS: ReadonlyMap<number, MessageSchema> = new Map([\n` +
      keys.map(([k, n]) => `  [${k}, ${n}],`).join('\n') +
      `\n]);\n`;
    files.set('internal/metadata.ts', text.includes(': StructType =') ? text : text.replace('MessageSchema, StructType', 'MessageSchema'));
  }

  index.sort((a, b) => a.apiKey - b.apiKey);
  files.set(
    'index.ts',
    BANNER('Registry of the APIs kafkalite speaks, by API key.') +
      `import type { ApiSchemaPair } from '../schema.js';\n` +
      `export type { ApiSchemaPair, MessageSchema } from '../schema.js';\n` +
      index.map(({ api, file }) => `import { ${api} } from './${file.replace(/\.ts$/, '.js')}';\n`).join('') +
      `\nexport { ${index.map((i) => i.api).join(', ')} };\nexport { RequestHeader, ResponseHeader } from './headers.js';\n\n` +
      `/** API key -> request/response schemas. */\nexport const API_SCHEMAS: ReadonlyMap<number, ApiSchemaPair> = new Map<number, ApiSchemaPair>([\n` +
      index.map(({ api, apiKey }) => `  [${apiKey}, ${api}],`).join('\n') +
      `\n]);\n\n/** Kafka's API names (its \`ApiKeys\` enum) -> key, for the APIs kafkalite speaks. */\nexport const API_KEYS = {\n` +
      index.map(({ api, apiKey }) => `  ${api}: ${apiKey},`).join('\n') +
      `\n} as const;\n\n/** The schemas of an API key, or undefined when kafkalite does not speak it. */\n` +
      `export function schemaForApi(apiKey: number): ApiSchemaPair | undefined {\n  return API_SCHEMAS.get(apiKey);\n}\n`,
  );
  return files;
}

/** Every KRaft metadata record definition in the corpora snapshot (kept explicit so drift shows). */
export const METADATA_RECORD_NAMES = [
  'TopicRecord', 'PartitionRecord', 'ConfigRecord', 'PartitionChangeRecord', 'FenceBrokerRecord', 'UnfenceBrokerRecord',
  'RemoveTopicRecord', 'DelegationTokenRecord', 'UserScramCredentialRecord', 'FeatureLevelRecord', 'ClientQuotaRecord',
  'ProducerIdsRecord', 'BrokerRegistrationChangeRecord', 'AccessControlEntryRecord', 'RemoveAccessControlEntryRecord',
  'RemoveUserScramCredentialRecord', 'RemoveDelegationTokenRecord', 'NoOpRecord', 'RegisterBrokerRecord',
  'UnregisterBrokerRecord', 'RegisterControllerRecord', 'ZkMigrationRecord', 'BeginTransactionRecord',
  'EndTransactionRecord', 'AbortTransactionRecord',
];

const here = dirname(fileURLToPath(import.meta.url));
if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const corpora = resolve(process.argv[2] ?? join(here, '..', '..', 'shared', 'corpora'));
  const outDir = join(here, '..', 'src', 'protocol', 'schemas');
  for (const [rel, text] of generateAll(corpora)) {
    const path = join(outDir, rel);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, text);
  }
  console.log(`wrote ${outDir}`);
}
