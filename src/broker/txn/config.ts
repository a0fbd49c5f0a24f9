/**
 * The transaction coordinator's broker properties (Kafka `TransactionStateManagerConfig`,
 * `TransactionLogConfig`). They are taken out of the broker's properties before the rest is
 * parsed, as the group coordinator's are. `transaction.max.timeout.ms` stays a broker setting
 * (the log's producer state uses it too) and is passed in.
 *
 * `transaction.state.log.num.partitions` defaults to 1 here, not Kafka's 50, for the reason
 * `offsets.topic.num.partitions` does: one node gains nothing from spreading ids over partitions.
 */
import { InvalidConfigError } from '../../errors.js';

export interface TransactionConfig {
  /** transaction.max.timeout.ms (Kafka default 900000; from the broker config). */
  maxTimeoutMs: number;
  /** transaction.state.log.num.partitions (kafkalite default 1, Kafka 50). */
  stateLogNumPartitions: number;
  /** transaction.state.log.segment.bytes (Kafka default 104857600). */
  stateLogSegmentBytes: number;
  /** transaction.abort.timed.out.transaction.cleanup.interval.ms (Kafka default 10000). */
  abortTimedOutIntervalMs: number;
  /** transactional.id.expiration.ms (Kafka default 604800000 = 7 days). */
  idExpirationMs: number;
  /** transaction.remove.expired.transaction.cleanup.interval.ms (Kafka default 3600000). */
  removeExpiredIntervalMs: number;
  /** transaction.partition.verification.enable (Kafka default true, KIP-890 part 1). */
  partitionVerification: boolean;
}

export const DEFAULT_TRANSACTION_CONFIG: Readonly<Omit<TransactionConfig, 'maxTimeoutMs'>> = Object.freeze({
  stateLogNumPartitions: 1,
  stateLogSegmentBytes: 104857600,
  abortTimedOutIntervalMs: 10000,
  idExpirationMs: 604800000,
  removeExpiredIntervalMs: 3600000,
  partitionVerification: true,
});

type NumericField = Exclude<keyof TransactionConfig, 'partitionVerification' | 'maxTimeoutMs'>;
const NUMERIC: Readonly<Record<string, { field: NumericField; min: number }>> = {
  'transaction.state.log.num.partitions': { field: 'stateLogNumPartitions', min: 1 },
  'transaction.state.log.segment.bytes': { field: 'stateLogSegmentBytes', min: 1 },
  'transaction.abort.timed.out.transaction.cleanup.interval.ms': { field: 'abortTimedOutIntervalMs', min: 1 },
  'transactional.id.expiration.ms': { field: 'idExpirationMs', min: 1 },
  'transaction.remove.expired.transaction.cleanup.interval.ms': { field: 'removeExpiredIntervalMs', min: 1 },
};
const VERIFICATION = 'transaction.partition.verification.enable';
/** Accepted and not used: a single node has one replica (Kafka needs 1 for both on one broker). */
const IGNORED = new Set(['transaction.state.log.replication.factor', 'transaction.state.log.min.isr']);

/** Splits broker properties into the transaction coordinator's and the rest. */
export function takeTransactionProperties(props: Readonly<Record<string, string>>): { txn: Record<string, string>; rest: Record<string, string> } {
  const txn: Record<string, string> = {};
  const rest: Record<string, string> = {};
  for (const [k, v] of Object.entries(props)) (NUMERIC[k] !== undefined || k === VERIFICATION || IGNORED.has(k) ? txn : rest)[k] = v;
  return { txn, rest };
}

export function transactionConfigFromProperties(props: Readonly<Record<string, string>>, maxTimeoutMs: number): TransactionConfig {
  const c: TransactionConfig = { ...DEFAULT_TRANSACTION_CONFIG, maxTimeoutMs };
  for (const [name, raw] of Object.entries(props)) {
    const v = raw.trim();
    if (name === VERIFICATION) {
      if (v !== 'true' && v !== 'false') throw new InvalidConfigError(`Invalid value ${raw} for configuration ${name}: Expected value to be either true or false`);
      c.partitionVerification = v === 'true';
      continue;
    }
    if (IGNORED.has(name)) continue;
    const p = NUMERIC[name];
    if (p === undefined) throw new InvalidConfigError(`Unknown transaction coordinator config name: ${name}`);
    if (!/^-?\d+$/.test(v)) throw new InvalidConfigError(`Invalid value ${raw} for configuration ${name}: Not a number of type INT`);
    const n = Number(v);
    if (n < p.min || n > 2147483647) throw new InvalidConfigError(`Invalid value ${raw} for configuration ${name}: Value must be at least ${p.min}`);
    c[p.field] = n;
  }
  return c;
}
