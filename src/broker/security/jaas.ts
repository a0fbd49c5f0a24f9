/**
 * The JAAS configuration value Kafka takes in `listener.name.<l>.<mech>.sasl.jaas.config`
 * (JaasConfig.java): `<LoginModuleClass> <flag> (<key>=<value>)* ;` with exactly one login module,
 * flag required|requisite|sufficient|optional (any case), values quoted with ' or " (an unquoted
 * value must not be a number, JaasContextTest.testNumericOptionWithoutQuotes), `//` and block comments.
 */
import { InvalidConfigError } from '../../errors.js';

export interface JaasEntry {
  readonly loginModule: string;
  readonly flag: string;
  readonly options: ReadonlyMap<string, string>;
}

const FLAGS = new Set(['required', 'requisite', 'sufficient', 'optional']);

/** Splits into tokens: words, quoted strings (unquoted in the result, marked), '=' and ';'. */
function tokenize(property: string, text: string): { value: string; quoted: boolean }[] {
  const tokens: { value: string; quoted: boolean }[] = [];
  let i = 0;
  while (i < text.length) {
    const ch = text[i]!;
    if (/\s/.test(ch)) {
      i++;
    } else if (text.startsWith('//', i)) {
      const nl = text.indexOf('\n', i);
      i = nl < 0 ? text.length : nl + 1;
    } else if (text.startsWith('/*', i)) {
      const end = text.indexOf('*/', i + 2);
      if (end < 0) throw new InvalidConfigError(`${property}: unterminated comment`);
      i = end + 2;
    } else if (ch === '=' || ch === ';') {
      tokens.push({ value: ch, quoted: false });
      i++;
    } else if (ch === '"' || ch === "'") {
      let j = i + 1;
      let value = '';
      while (j < text.length && text[j] !== ch) {
        if (text[j] === '\\' && j + 1 < text.length) j++;
        value += text[j];
        j++;
      }
      if (j >= text.length) throw new InvalidConfigError(`${property}: unterminated quoted value`);
      tokens.push({ value, quoted: true });
      i = j + 1;
    } else {
      let j = i;
      while (j < text.length && !/[\s=;"']/.test(text[j]!)) j++;
      tokens.push({ value: text.slice(i, j), quoted: false });
      i = j;
    }
  }
  return tokens;
}

/** Parses one JAAS configuration value; a bad one is an InvalidConfigError naming `property`. */
export function parseJaasConfig(property: string, text: string): JaasEntry {
  const t = tokenize(property, text);
  const entries: JaasEntry[] = [];
  let i = 0;
  while (i < t.length) {
    const module = t[i++]!;
    const flag = t[i++];
    if (flag === undefined || !FLAGS.has(flag.value.toLowerCase())) {
      throw new InvalidConfigError(`${property}: invalid JAAS login module control flag after ${module.value}`);
    }
    const options = new Map<string, string>();
    for (;;) {
      const key = t[i];
      if (key === undefined) throw new InvalidConfigError(`${property}: JAAS config entry not terminated by semi-colon`);
      i++;
      if (key.value === ';' && !key.quoted) break;
      if (t[i]?.value !== '=' || t[i]?.quoted) throw new InvalidConfigError(`${property}: expected '=' after JAAS option ${key.value}`);
      const value = t[i + 1];
      if (value === undefined || ((value.value === ';' || value.value === '=') && !value.quoted)) {
        throw new InvalidConfigError(`${property}: JAAS option ${key.value} has no value`);
      }
      if (!value.quoted && /^-?[0-9]/.test(value.value)) {
        throw new InvalidConfigError(`${property}: value of JAAS option ${key.value} must be quoted`);
      }
      options.set(key.value, value.value);
      i += 2;
    }
    entries.push({ loginModule: module.value, flag: flag.value.toLowerCase(), options });
  }
  if (entries.length !== 1) throw new InvalidConfigError(`JAAS config property contains ${entries.length} login modules, should be 1 module`);
  return entries[0]!;
}
