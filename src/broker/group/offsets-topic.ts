/**
 * The `__consumer_offsets` topic as the coordinator's store (Kafka `GroupMetadataManager`):
 * created on first use with cleanup.policy=compact, written one batch per commit or group
 * change, and replayed from its start when the broker opens, the last record per key winning
 * (what compaction will also keep). Tombstones remove offsets and groups.
 */
import { encodeKeyValueBatch } from '../../record/builder.js';
import { readRecordBatches, type AnyRecordBatch } from '../../record/batches.js';
import type { LogManager } from '../../storage/log-manager.js';
import type { PartitionLog } from '../../storage/partition-log.js';
import type { TopicRegistry } from '../topic-registry.js';
import type { GroupConfig } from './config.js';
import { OFFSETS_TOPIC, partitionForGroup, type OffsetsTopicRecord } from '../../internal-topics/offsets.js';
import { settledOffsetsRecords, type PendingTxnOffsetRecord } from '../../internal-topics/offsets-txn-settle.js';

export interface OffsetsRecord {
  key: Buffer;
  value: Buffer | null;
}

/** Bytes read per step while replaying a partition (whole batches; a larger first batch is read whole). */
const LOAD_CHUNK = 1 << 20;

export class OffsetsTopic {
  private readBuffer: Buffer | undefined;

  constructor(
    private readonly topics: TopicRegistry,
    private readonly logs: LogManager,
    private readonly config: GroupConfig,
    /** Called after each append (wakes fetch long polls on the topic). */
    private readonly onAppend: () => void,
  ) {}

  /** Partition count: the topic's own once it exists (Kafka fixes it at creation), else the config's. */
  get partitions(): number {
    return this.topics.get(OFFSETS_TOPIC)?.partitions ?? this.config.offsetsTopicPartitions;
  }

  partitionFor(groupId: string): number {
    return partitionForGroup(groupId, this.partitions);
  }

  /** Creates the topic as Kafka's `AutoTopicCreationManager` does for the coordinator: compacted. */
  private ensureTopic(): void {
    if (this.topics.get(OFFSETS_TOPIC) !== undefined) return;
    this.topics.create(
      OFFSETS_TOPIC,
      this.config.offsetsTopicPartitions,
      { 'cleanup.policy': 'compact', 'compression.type': 'producer', 'segment.bytes': String(this.config.offsetsTopicSegmentBytes) },
      this.logs,
    );
  }

  private log(partition: number): PartitionLog {
    const log = this.logs.getLog(OFFSETS_TOPIC, partition);
    if (log === undefined) throw new Error(`${OFFSETS_TOPIC}-${partition} is not open`);
    return log;
  }

  /** Appends the group's records as one batch to its partition; throws the log's typed errors. */
  append(groupId: string, records: readonly OffsetsRecord[], transactional?: { producerId: bigint; producerEpoch: number }): void {
    if (records.length === 0) return;
    this.ensureTopic();
    const now = Date.now();
    // a TxnOffsetCommit's records go in a transactional batch of its producer (Kafka's CoordinatorRuntime); a
    // transactional batch needs a sequence (MemoryRecordsBuilder), which the coordinator origin does not check
    const txn = transactional === undefined ? undefined : { isTransactional: true, producerId: transactional.producerId, producerEpoch: transactional.producerEpoch, baseSequence: 0 };
    const batch = encodeKeyValueBatch(records, now, txn);
    // the batch is this call's own: the log assigns its offsets in place, not in a copy
    this.log(this.partitionFor(groupId)).append(batch, { origin: 'coordinator', mutateInput: true });
    this.onAppend();
  }

  /** A transaction marker on one partition (Kafka `GroupCoordinator.completeTransaction` writes it there). */
  appendMarker(partition: number, m: { producerId: bigint; producerEpoch: number; commit: boolean; coordinatorEpoch: number }): void {
    this.ensureTopic();
    this.log(partition).appendEndTxnMarker({ type: m.commit ? 'COMMIT' : 'ABORT', producerId: m.producerId, producerEpoch: m.producerEpoch, coordinatorEpoch: m.coordinatorEpoch });
    this.onAppend();
  }

  /**
   * Every record of every partition in log order (Kafka `GroupMetadataManager.doLoadGroupsAndOffsets`).
   * Transactional offsets take effect at their COMMIT marker, are dropped at an ABORT, and those
   * with no marker yet go to `onPendingTxn` (still pending, txn-offsets.ts): offsets-txn-settle.ts.
   */
  *load(onUnreadable: (what: string) => void, onPendingTxn: (pending: PendingTxnOffsetRecord[]) => void = () => {}): Generator<OffsetsTopicRecord> {
    const info = this.topics.get(OFFSETS_TOPIC);
    if (info === undefined) return;
    for (let p = 0; p < info.partitions; p++) {
      const log = this.logs.getLog(OFFSETS_TOPIC, p);
      if (log === undefined) continue;
      yield* settledOffsetsRecords(this.batches(log), log.logStartOffset, (at, e) => onUnreadable(`${OFFSETS_TOPIC}-${p} offset ${at}: ${e.message}`), onPendingTxn);
    }
  }

  /** A partition's batches from its log start, read in chunks (CRCs checked); each is valid until the next. */
  private *batches(log: PartitionLog): Generator<AnyRecordBatch> {
    let offset = log.logStartOffset;
    while (offset < log.logEndOffset) {
      this.readBuffer ??= Buffer.allocUnsafe(LOAD_CHUNK);
      const r = log.read(offset, { maxBytes: LOAD_CHUNK, minOneMessage: true, into: this.readBuffer });
      if (r.records.length === 0) break;
      const reader = readRecordBatches(r.records, { verifyCrc: true });
      let next = offset;
      for (let b = reader.nextBatch(); b !== null; b = reader.nextBatch()) {
        next = b.lastOffset + 1n;
        yield b;
      }
      if (next <= offset) break;
      offset = next;
    }
  }
}
