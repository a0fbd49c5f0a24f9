/**
 * A log directory's `meta.properties` (Kafka
 * `metadata/.../properties/MetaProperties.java`, `MetaPropertiesVersion.java`,
 * `PropertiesUtils.java`): which cluster and node own the directory, and the directory's own id.
 *
 * The file is a java.util.Properties text file. Kafka writes it with `Properties.store(writer, "")`
 * through `<path>.tmp` + atomic move, giving
 *
 *     #
 *     #<java.util.Date.toString()>
 *     cluster.id=...
 *     directory.id=...
 *     node.id=1
 *     version=1
 *
 * and reads it with `Properties.load(InputStream)`, i.e. as ISO-8859-1 with Java's escapes. Key
 * order and the date line come from the JDK, not from Kafka, so readers accept any order and any
 * comments.
 */
import { readFileSync } from 'node:fs';
import { InvalidArgumentError, KafkaliteError, StorageError } from '../errors.js';
import { parseJavaInt } from './checkpoint.js';
import { atomicWriteFileSync } from './fs-util.js';
import { parseUuid, uuidToString } from './uuid.js';

export interface MetaProperties {
  /** 1 for KRaft (node.id), 0 for the ZooKeeper-era format (broker.id). */
  version: 0 | 1;
  clusterId: string;
  /** node.id (v1) or broker.id (v0). */
  nodeId: number;
  /** directory.id, a Kafka Uuid string, when present. */
  directoryId?: string;
  /** Every key=value of the file, including keys kafkalite does not interpret. */
  properties: Record<string, string>;
}

export interface MetaPropertiesInput {
  clusterId: string;
  nodeId: number;
  directoryId?: string;
}

/** Read and validate `path` (a missing file is a StorageError; check existence first). */
export function readMetaProperties(path: string): MetaProperties {
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch (e) {
    throw new StorageError(`failed to read ${path}: ${(e as Error).message}`, { cause: e });
  }
  return metaPropertiesFrom(parseJavaProperties(bytes, path), path);
}

/**
 * `MetaProperties.Builder(Properties)` + `build()`. Kafka's messages are kept. Deviation: Kafka
 * accepts a v0 file without cluster.id or broker.id; kafkalite needs both, so such a file is a
 * StorageError here.
 */
function metaPropertiesFrom(props: Map<string, string>, path: string): MetaProperties {
  const fail = (message: string, cause?: unknown) => new StorageError(`${message} (in ${path})`, { cause });
  const versionText = props.get('version') ?? '0';
  // MetaPropertiesVersion.fromNumberString trims (String.trim: every char <= ' ') before parsing.
  const versionNumber = parseJavaInt(versionText.replace(/^[\x00-\x20]+|[\x00-\x20]+$/g, ''));
  if (versionNumber === undefined) throw fail(`Invalid meta.properties version string '${versionText}'`);
  if (versionNumber !== 0 && versionNumber !== 1) throw fail(`Unknown meta.properties version number ${versionNumber}`);
  const nodeKey = versionNumber === 0 ? 'broker.id' : 'node.id';
  const nodeText = props.get(nodeKey);
  if (nodeText === undefined) throw fail(versionNumber === 0 ? 'broker.id was not found.' : 'Failed to find node.id');
  const nodeId = parseJavaInt(nodeText);
  if (nodeId === undefined) throw fail(`Unable to read ${nodeKey} as a base-10 number.`);
  const clusterId = props.get('cluster.id');
  if (clusterId === undefined) throw fail('cluster.id was not found.');
  const result: MetaProperties = { version: versionNumber, clusterId, nodeId, properties: Object.fromEntries(props) };
  const directoryText = props.get('directory.id');
  if (directoryText !== undefined) {
    try {
      result.directoryId = uuidToString(parseUuid(directoryText));
    } catch (e) {
      if (!(e instanceof KafkaliteError)) throw e;
      throw fail(`Unable to read directory.id as a Uuid: ${e.detail}`, e);
    }
  }
  return result;
}

/**
 * Write a version-1 meta.properties atomically (`PropertiesUtils.writePropertiesFile`). Keys are
 * written in the order Kafka's JDK produced them in the reference corpus.
 */
export function writeMetaProperties(path: string, input: MetaPropertiesInput, now: Date = new Date()): void {
  atomicWriteFileSync(path, encodeMetaProperties(input, now));
}

/** The file text `writeMetaProperties` writes. */
export function encodeMetaProperties(input: MetaPropertiesInput, now: Date = new Date()): string {
  const { clusterId, nodeId, directoryId } = input;
  if (typeof clusterId !== 'string' || clusterId.length === 0) {
    throw new InvalidArgumentError('cluster.id must be a non-empty string');
  }
  if (!Number.isInteger(nodeId) || nodeId < -0x80000000 || nodeId > 0x7fffffff) {
    throw new InvalidArgumentError(`node.id ${nodeId} is not an int32`);
  }
  const entries: [string, string][] = [['cluster.id', clusterId]];
  if (directoryId !== undefined) entries.push(['directory.id', uuidToString(parseUuid(directoryId))]);
  entries.push(['node.id', String(nodeId)], ['version', '1']);
  return formatJavaProperties(entries, now);
}

// ---------------------------------------------------------------------------------------------
// java.util.Properties text format
// ---------------------------------------------------------------------------------------------

const DAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** `java.util.Date.toString()` ("EEE MMM dd HH:mm:ss zzz yyyy"), in UTC. */
function javaDateString(d: Date): string {
  const p2 = (n: number) => String(n).padStart(2, '0');
  return (
    `${DAYS[d.getUTCDay()]} ${MONTHS[d.getUTCMonth()]} ${p2(d.getUTCDate())} ` +
    `${p2(d.getUTCHours())}:${p2(d.getUTCMinutes())}:${p2(d.getUTCSeconds())} UTC ${d.getUTCFullYear()}`
  );
}

/**
 * `Properties.store(writer, "")`: an empty `#` comment, the `#<date>` line, then `key=value`
 * lines with `Properties.saveConvert` escaping. Unlike store(Writer), characters outside
 * 0x20-0x7E are written as \uXXXX (store(OutputStream)'s rule) because Kafka reads the file back
 * as ISO-8859-1: raw UTF-8 would not survive the round trip.
 */
export function formatJavaProperties(entries: readonly (readonly [string, string])[], now: Date): string {
  let text = `#\n#${javaDateString(now)}\n`;
  for (const [key, value] of entries) text += `${escapeProperty(key, true)}=${escapeProperty(value, false)}\n`;
  return text;
}

function escapeProperty(s: string, isKey: boolean): string {
  let out = '';
  for (let i = 0; i < s.length; i++) {
    const c = s[i]!;
    const code = s.charCodeAt(i);
    switch (c) {
      case ' ':
        out += i === 0 || isKey ? '\\ ' : ' ';
        break;
      case '\t':
        out += '\\t';
        break;
      case '\n':
        out += '\\n';
        break;
      case '\r':
        out += '\\r';
        break;
      case '\f':
        out += '\\f';
        break;
      case '=':
      case ':':
      case '#':
      case '!':
      case '\\':
        out += '\\' + c;
        break;
      default:
        out += code < 0x20 || code > 0x7e ? '\\u' + code.toString(16).toUpperCase().padStart(4, '0') : c;
    }
  }
  return out;
}

const isBlank = (c: string) => c === ' ' || c === '\t' || c === '\f';

/**
 * `Properties.load(InputStream)`: bytes as ISO-8859-1 (so a char index is a byte position);
 * natural lines end at \n, \r or \r\n; leading blanks (space, \t, \f) are skipped; a line whose
 * first non-blank char is `#` or `!` is a comment; an odd number of trailing backslashes joins the
 * next line (its leading blanks dropped); the key ends at the first unescaped `=`, `:` or blank,
 * then blanks and one `=`/`:` are skipped; `\t \n \r \f \uXXXX` are escapes and any other escaped
 * char stands for itself. A bad \u escape is a StorageError at its byte position (Java throws
 * IllegalArgumentException "Malformed \uxxxx encoding."). Later duplicates win, as in Java.
 */
export function parseJavaProperties(bytes: Buffer, location: string): Map<string, string> {
  const text = bytes.toString('latin1');
  const props = new Map<string, string>();
  let i = 0;
  while (i < text.length) {
    const logical = readLogicalLine(text, i);
    i = logical.next;
    if (logical.chars.length === 0) continue;
    const { chars, positions } = logical;
    let keyLen = 0;
    let valueStart = chars.length;
    let hasSep = false;
    let escaped = false;
    while (keyLen < chars.length) {
      const c = chars[keyLen]!;
      if ((c === '=' || c === ':') && !escaped) {
        valueStart = keyLen + 1;
        hasSep = true;
        break;
      }
      if (isBlank(c) && !escaped) {
        valueStart = keyLen + 1;
        break;
      }
      escaped = c === '\\' ? !escaped : false;
      keyLen++;
    }
    while (valueStart < chars.length) {
      const c = chars[valueStart]!;
      if (!isBlank(c)) {
        if (!hasSep && (c === '=' || c === ':')) hasSep = true;
        else break;
      }
      valueStart++;
    }
    const key = unescapeProperty(chars, positions, 0, keyLen, location);
    const value = unescapeProperty(chars, positions, valueStart, chars.length, location);
    props.set(key, value);
  }
  return props;
}

interface LogicalLine {
  /** The line's chars with continuations joined (escapes not yet resolved). */
  chars: string[];
  /** File position of each char, for error reporting. */
  positions: number[];
  next: number;
}

/** Properties.LineReader.readLine. An empty `chars` means blank, comment-only or end of input. */
function readLogicalLine(text: string, start: number): LogicalLine {
  const chars: string[] = [];
  const positions: number[] = [];
  let skipWhiteSpace = true;
  let appendedLineBegin = false;
  let isNewLine = true;
  let precedingBackslash = false;
  let skipLF = false;
  let i = start;
  while (i < text.length) {
    const c = text[i]!;
    const at = i++;
    if (skipLF) {
      skipLF = false;
      if (c === '\n') continue;
    }
    if (skipWhiteSpace) {
      if (isBlank(c)) continue;
      if (!appendedLineBegin && (c === '\r' || c === '\n')) continue;
      skipWhiteSpace = false;
      appendedLineBegin = false;
    }
    if (isNewLine) {
      isNewLine = false;
      if (c === '#' || c === '!') {
        // A comment runs to the end of its natural line; a trailing backslash does not continue it.
        while (i < text.length && text[i] !== '\n' && text[i] !== '\r') i++;
        return { chars, positions, next: i };
      }
    }
    if (c !== '\n' && c !== '\r') {
      chars.push(c);
      positions.push(at);
      precedingBackslash = c === '\\' ? !precedingBackslash : false;
      continue;
    }
    if (chars.length === 0) {
      // Only reachable for an empty continuation; start over as a fresh line.
      isNewLine = true;
      skipWhiteSpace = true;
      continue;
    }
    if (precedingBackslash) {
      chars.pop();
      positions.pop();
      skipWhiteSpace = true;
      appendedLineBegin = true;
      precedingBackslash = false;
      if (c === '\r') skipLF = true;
      continue;
    }
    return { chars, positions, next: i };
  }
  if (precedingBackslash) {
    chars.pop();
    positions.pop();
  }
  return { chars, positions, next: i };
}

/** Properties.loadConvert over chars[from, to). */
function unescapeProperty(chars: string[], positions: number[], from: number, to: number, location: string): string {
  let out = '';
  let i = from;
  while (i < to) {
    const c = chars[i++]!;
    if (c !== '\\') {
      out += c;
      continue;
    }
    if (i >= to) break; // a lone trailing backslash stands for nothing
    const e = chars[i++]!;
    if (e === 'u') {
      const hex = chars.slice(i, i + 4).join('');
      if (i + 4 > to || !/^[0-9a-fA-F]{4}$/.test(hex)) {
        throw new StorageError(`Malformed \\uxxxx encoding in properties file ${location}`, {
          position: positions[i - 2]!,
        });
      }
      out += String.fromCharCode(parseInt(hex, 16));
      i += 4;
    } else {
      out += e === 't' ? '\t' : e === 'r' ? '\r' : e === 'n' ? '\n' : e === 'f' ? '\f' : e;
    }
  }
  return out;
}
