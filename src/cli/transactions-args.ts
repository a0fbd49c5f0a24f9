/**
 * The arguments of `kafkalite transactions` (kafka-transactions.sh's subcommands and options, offline):
 * `<data-dir> list | describe --transactional-id X | abort --topic T --partition P (--start-offset O |
 * --producer-id N [--producer-epoch E] [--coordinator-epoch C])`. A usage error is one line.
 */
import { parseArgs } from 'node:util';
import { TRANSACTION_STATE_TOPIC } from '../internal-topics/transaction-log-replay.js';
import type { AbortTarget } from '../storage/transaction-abort.js';

export const TRANSACTIONS_USAGE = `Usage: kafkalite transactions <data-dir> list [--json]
       kafkalite transactions <data-dir> describe --transactional-id <id> [--json]
       kafkalite transactions <data-dir> abort --topic <name> --partition <n>
             (--start-offset <offset> | --producer-id <id> [--producer-epoch <e>] [--coordinator-epoch <c>]) [--json]

The transactions of a data directory, offline (kafka-transactions.sh without a broker).

  list       the transactional ids in ${TRANSACTION_STATE_TOPIC} (last record per id), and the open
             transactions in every partition log from its producer state (find-hanging's
             columns); HANGING: no transactional id's state holds that partition
  describe   one transactional id: producer id and epoch, state, timeout, start time, and its
             open transaction on each of its partitions
  abort      end an open transaction of a partition with an ABORT marker, as
             kafka-transactions.sh abort does; the last stable offset moves past it. The
             transaction is the one starting at --start-offset, or the one of --producer-id
             (whose epochs default to the partition's producer state; a coordinator epoch below
             0 is written as 0). Takes the directory's lock: stop the broker first.

Options:
  --transactional-id <id>   describe: the transactional id
  --topic <name>, --partition <n>   abort: the partition
  --start-offset <offset>   abort: the first offset of the open transaction
  --producer-id <id>        abort: the producer whose open transaction to end
  --producer-epoch <e>      abort: the marker's producer epoch
  --coordinator-epoch <c>   abort: the marker's coordinator epoch
  --json                    one JSON document on stdout
  -h, --help                this help`;

export type TransactionsOptions =
  | { dir: string; command: 'list'; json: boolean }
  | { dir: string; command: 'describe'; transactionalId: string; json: boolean }
  | { dir: string; command: 'abort'; topic: string; partition: number; target: AbortTarget; json: boolean };

const INT16_MAX = 32767;
const INT32_MAX = 2147483647;
const INT64_MAX = (1n << 63n) - 1n;

function integer(name: string, text: string, min: bigint, max: bigint): bigint | { error: string } {
  if (!/^-?\d+$/.test(text)) return { error: `--${name} expects an integer, got '${text}'` };
  const v = BigInt(text);
  if (v < min || v > max) return { error: `--${name} must be between ${min} and ${max}, got ${text}` };
  return v;
}

const SUBCOMMAND_OPTIONS: Record<string, readonly string[]> = {
  list: ['json'],
  describe: ['transactional-id', 'json'],
  abort: ['topic', 'partition', 'start-offset', 'producer-id', 'producer-epoch', 'coordinator-epoch', 'json'],
};

export function parseTransactionsArgs(argv: string[]): TransactionsOptions | { help: true } | { error: string } {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      strict: true,
      options: {
        'transactional-id': { type: 'string' },
        topic: { type: 'string' },
        partition: { type: 'string' },
        'start-offset': { type: 'string' },
        'producer-id': { type: 'string' },
        'producer-epoch': { type: 'string' },
        'coordinator-epoch': { type: 'string' },
        json: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (err) {
    // node's messages for a dash-led value span lines: a usage error is one line
    return { error: (err as Error).message.replace(/\s*\n\s*/g, ' ') };
  }
  const v = parsed.values;
  if (v.help) return { help: true };
  const [dir, command, ...extra] = parsed.positionals;
  if (dir === undefined || command === undefined) return { error: 'expected a data directory and a subcommand (list, describe or abort)' };
  if (extra.length > 0) return { error: `unexpected argument '${extra[0]}'` };
  const allowed = SUBCOMMAND_OPTIONS[command];
  if (allowed === undefined || !Object.hasOwn(SUBCOMMAND_OPTIONS, command)) return { error: `unknown subcommand '${command}' (expected list, describe or abort)` };
  for (const name of Object.keys(v)) {
    if (name !== 'help' && !allowed.includes(name)) return { error: `--${name} does not apply to '${command}'` };
  }
  const json = v.json === true;
  if (command === 'list') return { dir, command: 'list', json };
  if (command === 'describe') {
    if (v['transactional-id'] === undefined) return { error: "'describe' needs --transactional-id" };
    return { dir, command: 'describe', transactionalId: v['transactional-id'], json };
  }
  if (v.topic === undefined || v.partition === undefined) return { error: "'abort' needs --topic and --partition" };
  if (v.topic === '') return { error: '--topic must not be empty' };
  const partition = integer('partition', v.partition, 0n, BigInt(INT32_MAX));
  if (typeof partition !== 'bigint') return partition;
  const byStart = v['start-offset'] !== undefined;
  const byProducer = v['producer-id'] !== undefined;
  if (byStart === byProducer) {
    return { error: "'abort' needs either --start-offset or --producer-id (as kafka-transactions.sh abort)" };
  }
  let target: AbortTarget;
  if (byStart) {
    if (v['producer-epoch'] !== undefined || v['coordinator-epoch'] !== undefined) return { error: '--producer-epoch and --coordinator-epoch go with --producer-id, not --start-offset' };
    const startOffset = integer('start-offset', v['start-offset']!, 0n, INT64_MAX);
    if (typeof startOffset !== 'bigint') return startOffset;
    target = { startOffset };
  } else {
    const producerId = integer('producer-id', v['producer-id']!, 0n, INT64_MAX);
    if (typeof producerId !== 'bigint') return producerId;
    const t: { producerId: bigint; producerEpoch?: number; coordinatorEpoch?: number } = { producerId };
    if (v['producer-epoch'] !== undefined) {
      const e = integer('producer-epoch', v['producer-epoch'], 0n, BigInt(INT16_MAX));
      if (typeof e !== 'bigint') return e;
      t.producerEpoch = Number(e);
    }
    if (v['coordinator-epoch'] !== undefined) {
      const c = integer('coordinator-epoch', v['coordinator-epoch'], -BigInt(INT32_MAX) - 1n, BigInt(INT32_MAX));
      if (typeof c !== 'bigint') return c;
      t.coordinatorEpoch = Number(c);
    }
    target = t;
  }
  return { dir, command: 'abort', topic: v.topic, partition: Number(partition), target, json };
}
