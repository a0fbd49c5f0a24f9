/**
 * Child process of the crash test: opens a data directory (recovering whatever the previous kill
 * left), then appends deterministic batches forever, printing `ack <lastOffset>` after each append
 * returns (after its flush when flushing), until the parent SIGKILLs it. `held` appends as the
 * broker's Produce handler does (the request's bytes handed over, the write held until
 * `HeldAppends.writeAll`, which the broker runs before any answer): small batches then go through
 * the mapped tail (mapped-tail.ts) where the platform has it, LogManager's default.
 */
// the builder alone, not the package index: each of the 50 kills starts a process, and importing
// the whole package (the broker and every codec) was most of a kill's time
import { encodeRecordBatch } from '../../src/record/builder.js';
import { DEFAULT_LOG_CONFIG } from '../../src/storage/log-config.js';
import { LogManager } from '../../src/storage/log-manager.js';
import { HeldAppends } from '../../src/storage/held-appends.js';

const [dir, mode] = process.argv.slice(2);
if (!dir || (mode !== 'flush' && mode !== 'noflush' && mode !== 'held')) throw new Error('usage: crash-child <dir> flush|noflush|held');

/** The value every record at `offset` must have: the verifier recomputes it. */
export function valueFor(offset: bigint): string {
  return `record-${offset}-`.padEnd(40 + Number(offset % 200n), 'x');
}

const manager = LogManager.open(dir, {
  // small segments and index interval so kills land around rolls and index writes too
  defaultConfig: { ...DEFAULT_LOG_CONFIG, segmentBytes: 64 * 1024, indexIntervalBytes: 512, segmentIndexBytes: 4096 },
});
const log = manager.getOrCreateLog('crash', 0);
process.stdout.write(`ready ${log.logEndOffset}\n`);
const heldAppends = new HeldAppends();
const heldOptions = { mutateInput: true, heldAppends } as const;
for (;;) {
  const next = log.logEndOffset;
  const count = 1 + Number(next % 7n);
  const records = Array.from({ length: count }, (_, i) => ({ key: `k${next + BigInt(i)}`, value: valueFor(next + BigInt(i)), timestamp: 1_700_000_000_000 + Number(next) + i }));
  const result = mode === 'held' ? log.append(encodeRecordBatch(records), heldOptions) : log.append(encodeRecordBatch(records));
  // what the broker runs before an answer leaves
  if (mode === 'held') heldAppends.writeAll();
  if (mode === 'flush') log.flush();
  process.stdout.write(`ack ${result.lastOffset}\n`);
}
