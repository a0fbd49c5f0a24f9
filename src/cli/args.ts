/**
 * Argument parsing shared by the commands that take boolean flags and one path (verify, stats,
 * recover): `--help`/`-h`, strict options, exactly one positional.
 */
import { parseArgs } from 'node:util';

export type Parsed<O> = O | { error: string } | { help: true };

/** The flags' values (all default false) and the one path, or the usage error / help request. */
export function parseFlagsAndPath<F extends string>(argv: string[], flags: readonly F[], what = 'path'): Parsed<{ path: string; flags: { [K in F]: boolean } }> {
  const options: { [name: string]: { type: 'boolean'; short?: string; default: boolean } } = { help: { type: 'boolean', short: 'h', default: false } };
  for (const f of flags) options[f] = { type: 'boolean', default: false };
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options, allowPositionals: true, strict: true });
  } catch (err) {
    return { error: (err as Error).message };
  }
  if (parsed.values.help) return { help: true };
  if (parsed.positionals.length !== 1) return { error: `expected exactly one ${what}` };
  const values = {} as { [K in F]: boolean };
  for (const f of flags) values[f] = parsed.values[f] === true;
  return { path: parsed.positionals[0]!, flags: values };
}
