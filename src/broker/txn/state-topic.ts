/**
 * `__transaction_state` as the coordinator's store (Kafka `TransactionStateManager`): created on
 * first use, compacted, one single-record batch per state change (`appendTransactionToLog`), a
 * tombstone per expired id, and replayed from its start at load, the last record per key winning
 * (`loadTransactionMetadata`). Its partition count is `transaction.state.log.num.partitions`
 * until the topic exists, then the topic's own, as in Kafka.
 */
import { readRecordBatches } from '../../record/batches.js';
import { encodeRecordBatch, writeHeader } from '../../record/builder.js';
import { RECORD_BATCH_OVERHEAD } from '../../record/constants.js';
import { sizeOfVarint, writeVarint } from '../../bytes/varint.js';
import type { HeldAppends } from '../../storage/held-appends.js';
import type { LogManager } from '../../storage/log-manager.js';
import type { PartitionLog } from '../../storage/partition-log.js';
import { partitionForGroup } from '../../internal-topics/offsets.js';
import {
  TRANSACTION_STATE_TOPIC,
  decodeTransactionLogKey,
  decodeTransactionLogValue,
  transactionLogValueSize,
  writeTransactionLogValue,
  type TransactionLogValueInput,
  type TransactionMetadataValue,
} from '../../internal-topics/transaction-log.js';
import { KafkaliteError } from '../../errors.js';
import type { TopicRegistry } from '../topic-registry.js';
import type { TransactionConfig } from './config.js';

const LOAD_CHUNK = 1 << 20;

export class TransactionStateTopic {
  /** The partitions' logs as `log` found them, valid while `LogManager.removedLogCount` is `keptAt`. */
  private readonly kept: (PartitionLog | undefined)[] = [];
  private keptAt = -1;

  constructor(
    private readonly topics: TopicRegistry,
    private readonly logs: LogManager,
    private readonly config: TransactionConfig,
    private readonly onAppend: () => void,
  ) {}

  get partitions(): number {
    return this.topics.get(TRANSACTION_STATE_TOPIC)?.partitions ?? this.config.stateLogNumPartitions;
  }

  /** `TransactionStateManager.partitionFor`: Utils.abs(id.hashCode) % partitions, the rule groups use too. */
  partitionFor(transactionalId: string): number {
    return partitionForGroup(transactionalId, this.partitions);
  }

  /** Topic configs as Kafka's `TransactionCoordinator.transactionStateTopicConfigs`. */
  private ensureTopic(): void {
    if (this.topics.get(TRANSACTION_STATE_TOPIC) !== undefined) return;
    this.topics.create(
      TRANSACTION_STATE_TOPIC,
      this.config.stateLogNumPartitions,
      { 'cleanup.policy': 'compact', 'compression.type': 'uncompressed', 'segment.bytes': String(this.config.stateLogSegmentBytes) },
      this.logs,
    );
  }

  private log(partition: number): PartitionLog {
    // kept per partition while the manager removed no log: three appends per transaction, and the
    // name lookup hashed a new key string each time (the Produce stream between them moves getLog's own cache)
    if (this.keptAt !== this.logs.removedLogCount) {
      this.kept.length = 0;
      this.keptAt = this.logs.removedLogCount;
    }
    const kept = this.kept[partition];
    if (kept !== undefined) return kept;
    const log = this.logs.getLog(TRANSACTION_STATE_TOPIC, partition);
    if (log === undefined) throw new Error(`${TRANSACTION_STATE_TOPIC}-${partition} is not open`);
    this.kept[partition] = log;
    return log;
  }

  /** One uncompressed, non-transactional batch with the id's key and value (null: a tombstone); throws the log's errors. */
  append(transactionalId: string, key: Buffer, value: Buffer | null, now: number): void {
    this.ensureTopic();
    const batch = encodeRecordBatch([{ key, value, timestamp: now }]);
    // the batch is this call's own: the log assigns its offset in place instead of in a copy
    this.log(this.partitionFor(transactionalId)).append(batch, { origin: 'coordinator', mutateInput: true });
    this.onAppend();
  }

  /**
   * A state change of the id: its value written straight into a one-record batch, the batch
   * `encodeRecordBatch` would build for `[{ key, value: transactionLogValue(value), timestamp: now }]`
   * (test/broker/txn-state-topic.test.ts compares them), without the value's own buffer and the
   * batch's copy: the coordinator writes three per transaction. `held`: the file write waits for
   * the caller's `held.writeAll()` (held-appends.ts), with the other appends of its turn.
   */
  appendState(transactionalId: string, key: Buffer, value: TransactionLogValueInput, now: number, held?: HeldAppends): void {
    this.ensureTopic();
    const valueBytes = transactionLogValueSize(value);
    // attributes, timestamp delta 0, offset delta 0, key, value, no headers (DefaultRecord.writeTo)
    const body = 3 + sizeOfVarint(key.length) + key.length + sizeOfVarint(valueBytes) + valueBytes + 1;
    const size = RECORD_BATCH_OVERHEAD + sizeOfVarint(body) + body;
    const batch = Buffer.allocUnsafe(size);
    let pos = writeVarint(batch, RECORD_BATCH_OVERHEAD, body);
    batch[pos] = 0;
    batch[pos + 1] = 0;
    batch[pos + 2] = 0;
    pos = writeVarint(batch, pos + 3, key.length);
    pos += key.copy(batch, pos);
    pos = writeVarint(batch, pos, valueBytes);
    pos = writeTransactionLogValue(batch, pos, value);
    batch[pos] = 0;
    writeHeader(batch, {
      baseOffset: 0,
      size,
      partitionLeaderEpoch: -1,
      attributes: 0,
      lastOffsetDelta: 0,
      baseTimestamp: now,
      maxTimestamp: now,
      producerId: -1,
      producerEpoch: -1,
      baseSequence: -1,
      count: 1,
    });
    this.log(this.partitionFor(transactionalId)).append(batch, { origin: 'coordinator', mutateInput: true, heldAppends: held });
    this.onAppend();
  }

  /**
   * The last value per transactional id over every partition (null: tombstoned). Unreadable records
   * are reported and skipped, as Kafka logs and skips unknown key or value versions.
   */
  load(onUnreadable: (what: string) => void): Map<string, TransactionMetadataValue | null> {
    const out = new Map<string, TransactionMetadataValue | null>();
    const info = this.topics.get(TRANSACTION_STATE_TOPIC);
    if (info === undefined) return out;
    let buffer: Buffer | undefined;
    for (let p = 0; p < info.partitions; p++) {
      const log = this.logs.getLog(TRANSACTION_STATE_TOPIC, p);
      if (log === undefined) continue;
      let offset = log.logStartOffset;
      while (offset < log.logEndOffset) {
        buffer ??= Buffer.allocUnsafe(LOAD_CHUNK);
        const r = log.read(offset, { maxBytes: LOAD_CHUNK, minOneMessage: true, into: buffer });
        if (r.records.length === 0) break;
        const reader = readRecordBatches(r.records, { verifyCrc: true });
        let next = offset;
        for (let b = reader.nextBatch(); b !== null; b = reader.nextBatch()) {
          next = b.lastOffset + 1n;
          if (b.isControl) continue;
          for (const rec of b.records()) {
            if (rec.offset < offset || rec.key === null) continue;
            try {
              const id = decodeTransactionLogKey(Buffer.from(rec.key));
              out.set(id, rec.value === null ? null : decodeTransactionLogValue(Buffer.from(rec.value)));
            } catch (e) {
              if (!(e instanceof KafkaliteError)) throw e;
              onUnreadable(`${TRANSACTION_STATE_TOPIC}-${p} offset ${rec.offset}: ${e.message}`);
            }
          }
        }
        if (next <= offset) break;
        offset = next;
      }
    }
    return out;
  }
}
