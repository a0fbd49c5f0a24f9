/**
 * The KRaft metadata log of a single kafkalite node: `__cluster_metadata-0` in the data directory,
 * as a single-node Kafka 4 in combined mode keeps it (Kafka `KafkaMetadataLog`, `QuorumState`,
 * `RecordsSnapshotWriter`), holding the topics, their partitions, ids and configs.
 *
 * - A new log gets `partition.metadata` (the metadata topic's id, Uuid.METADATA_TOPIC_ID),
 *   `quorum-state` (this node the leader of epoch 1, the only voter), a LEADER_CHANGE control batch
 *   at offset 0, the bootstrap records at offset 1, and the data directory's `bootstrap.checkpoint`.
 * - Changes are appended as record batches (one per change, in the leader's epoch) and never
 *   rewrite a file. A change larger than {@link MAX_BATCH_RECORDS} records is split into batches
 *   inside a metadata transaction (KIP-868 BeginTransaction / EndTransaction), as the controller
 *   does for operations beyond one batch. Replay applies a transaction's records only at its End
 *   (metadata-transactions.ts): a change cut short between its batches (a crash, a failed append)
 *   is never applied in part, and an AbortTransactionRecord closes it before the next append, as
 *   Kafka's controller does when it becomes leader of a log that ends inside a transaction.
 * - Appends are fsynced before the change is answered (the controller commits a record once it is
 *   on the quorum's disks); {@link ClusterMetadataLog.deferFlush} lets a request's many changes
 *   share one fsync.
 * - Once `maxBytesBetweenSnapshots` bytes were appended since the last snapshot (Kafka
 *   `metadata.log.max.record.bytes.between.snapshots`, 20 MiB), the image is written as a snapshot
 *   `<end offset>-<epoch>.checkpoint` (through `.checkpoint.part`, as `Snapshots` does), the log is
 *   rolled and the segments below the snapshot are deleted, with older snapshots: the log stays
 *   bounded by the live metadata plus that many bytes.
 * - Loading reads the newest snapshot, then the log from its end offset. The log itself is a
 *   `PartitionLog`: recovery after an unclean shutdown, indexes and `verify` are those of any log.
 */
import { closeSync, existsSync, fsyncSync, mkdirSync, openSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { StorageError } from '../errors.js';
import { readRecordBatches } from '../record/batches.js';
import { encodeRecordBatch, type RecordInput } from '../record/builder.js';
import { ControlRecordType, encodeControlRecordKey } from '../record/control.js';
import { encodeMessageToBuffer } from '../protocol/codec.js';
import { LeaderChangeMessage, SnapshotFooterRecord, SnapshotHeaderRecord } from '../protocol/schemas/internal/raft.js';
import { BOOTSTRAP_SNAPSHOT_FILE, KRAFT_SNAPSHOT_SUFFIX, PARTITION_METADATA_FILE, formatOffset, parseKraftSnapshotName } from '../storage/file-names.js';
import { fsyncDirSync } from '../storage/fs-util.js';
import { DEFAULT_LOG_CONFIG, type LogConfig } from '../storage/log-config.js';
import type { LogResources } from '../storage/log-resources.js';
import { writePartitionMetadata } from '../storage/partition-metadata.js';
import { PartitionLog, type LogSink } from '../storage/partition-log.js';
import { CLUSTER_METADATA_TOPIC } from '../storage/topic.js';
import { METADATA_TOPIC_ID } from '../storage/uuid.js';
import { AbortTransactionRecord, BeginTransactionRecord, EndTransactionRecord } from '../protocol/schemas/internal/metadata.js';
import { decodeMetadataRecord, metadataRecord, type MetadataRecord } from './cluster-metadata.js';
import { MetadataTransactionReplay } from './metadata-transactions.js';
import { MetadataImage, bootstrapRecords, featureLevelRecord, METADATA_VERSION_FEATURE, METADATA_VERSION_LEVEL } from './metadata-image.js';

export const METADATA_LOG_DIR = `${CLUSTER_METADATA_TOPIC}-0`;
export const QUORUM_STATE_FILE = 'quorum-state';
/** Kafka `metadata.log.max.record.bytes.between.snapshots`'s default. */
export const DEFAULT_MAX_BYTES_BETWEEN_SNAPSHOTS = 20 * 1024 * 1024;
/** Records per batch; more go into a metadata transaction of several batches. */
export const MAX_BATCH_RECORDS = 1000;
/** Bytes read per step when replaying. */
const READ_CHUNK = 1024 * 1024;

/**
 * The metadata log's own config (Kafka `MetadataLogConfig`): no time or size retention (only
 * snapshots move its start), files removed at once, batches up to the controller's largest.
 */
export const METADATA_LOG_CONFIG: Readonly<LogConfig> = Object.freeze({
  ...DEFAULT_LOG_CONFIG,
  retentionMs: -1,
  retentionBytes: -1,
  fileDeleteDelayMs: 0,
  maxMessageBytes: 8 * 1024 * 1024,
});

export interface ClusterMetadataLogOptions {
  dataDir: string;
  nodeId: number;
  /** meta.properties' directory.id: the partitions' replica directory (PartitionRecord.Directories). */
  directoryId: string;
  hadCleanShutdown: boolean;
  resources?: LogResources;
  logger?: LogSink;
  time?: () => number;
  maxBytesBetweenSnapshots?: number;
}

export class ClusterMetadataLog {
  readonly image = new MetadataImage();
  readonly dir: string;
  readonly log: PartitionLog;
  /** Whether this open made the log (a new data directory, or one in the previous format). */
  readonly created: boolean;
  private readonly time: () => number;
  private readonly maxBytesBetweenSnapshots: number;
  private bytesSinceSnapshot = 0;
  /**
   * The offset of the BeginTransactionRecord of a change whose EndTransactionRecord was never
   * written (the log ended inside it at open, or an append failed between its batches): an
   * AbortTransactionRecord closes it before anything else is appended.
   */
  private openTransactionAt: bigint | undefined;
  /** Replay dropped a transaction that was never closed (a log of a kafkalite before aborts). */
  private droppedUnclosed = false;
  private deferDepth = 0;
  private unflushed = false;

  static open(options: ClusterMetadataLogOptions): ClusterMetadataLog {
    return new ClusterMetadataLog(options);
  }

  private constructor(readonly options: ClusterMetadataLogOptions) {
    this.dir = join(options.dataDir, METADATA_LOG_DIR);
    this.time = options.time ?? Date.now;
    this.maxBytesBetweenSnapshots = options.maxBytesBetweenSnapshots ?? DEFAULT_MAX_BYTES_BETWEEN_SNAPSHOTS;
    mkdirSync(this.dir, { recursive: true });
    const metadataPath = join(this.dir, PARTITION_METADATA_FILE);
    if (!existsSync(metadataPath)) writePartitionMetadata(metadataPath, METADATA_TOPIC_ID);
    // a snapshot whose writing was cut short (Kafka deletes these at startup, `Snapshots.deleteIfExists`)
    for (const name of readdirSync(this.dir)) if (name.endsWith(`${KRAFT_SNAPSHOT_SUFFIX}.part`)) rmSync(join(this.dir, name), { force: true });
    this.log = PartitionLog.open(this.dir, CLUSTER_METADATA_TOPIC, 0, {
      config: METADATA_LOG_CONFIG,
      hadCleanShutdown: options.hadCleanShutdown,
      ...(options.time ? { time: options.time } : {}),
      ...(options.logger ? { logger: options.logger } : {}),
      ...(options.resources ? { resources: options.resources } : {}),
    });
    const snapshot = this.latestSnapshot();
    this.created = snapshot === undefined && this.log.logEndOffset === 0n;
    if (this.created) {
      this.bootstrap();
    } else {
      let from = this.log.logStartOffset;
      if (snapshot !== undefined) {
        if (snapshot.endOffset > this.log.logEndOffset) {
          throw new StorageError(`${this.dir}: snapshot ${snapshot.name} ends at offset ${snapshot.endOffset}, past the log's end ${this.log.logEndOffset}`);
        }
        this.replaySnapshot(join(this.dir, snapshot.name));
        if (snapshot.endOffset > from) from = snapshot.endOffset;
      } else if (from > 0n) {
        throw new StorageError(`${this.dir}: the log starts at offset ${from} and there is no snapshot of what came before`);
      }
      this.bytesSinceSnapshot = this.replayLog(from);
    }
    // ActivationRecordsGenerator: the new leader of a log ending inside a transaction aborts it
    this.abortOpenTransaction('Controller failover');
    // a log of a kafkalite before aborts, holding a change cut short: Kafka's loader would take the
    // later changes as part of it, so the image goes into a snapshot and that log goes
    if (this.droppedUnclosed) this.snapshot();
  }

  /** The leader epoch appends are made in: the log's latest (Kafka's may be past 1), at least 1. */
  private get epoch(): number {
    return Math.max(1, this.log.leaderEpochCache.latestEpoch() ?? 1);
  }

  private bootstrap(): void {
    const nodeId = this.options.nodeId;
    const quorumState = join(this.dir, QUORUM_STATE_FILE);
    // FileQuorumStateStore's JSON (data_version 0): this node leads epoch 1 and is the only voter
    if (!existsSync(quorumState)) {
      writeFileSync(quorumState, JSON.stringify({ clusterId: '', leaderId: nodeId, leaderEpoch: 1, votedId: -1, appliedOffset: 0, currentVoters: [{ voterId: nodeId }], data_version: 0 }));
    }
    const now = this.time();
    // the new leader's LEADER_CHANGE control record (KafkaRaftClient.onBecomeLeader) takes offset 0
    const leaderChange = encodeMessageToBuffer(LeaderChangeMessage, 0, { version: 0, leaderId: nodeId, voters: [{ voterId: nodeId }], grantingVoters: [{ voterId: nodeId }] });
    this.log.append(
      encodeRecordBatch([{ key: encodeControlRecordKey(ControlRecordType.LEADER_CHANGE), value: leaderChange, timestamp: now }], { isControl: true, partitionLeaderEpoch: 1 }),
      { leaderEpoch: 1, origin: 'coordinator' },
    );
    this.append(bootstrapRecords());
    const bootstrapPath = join(this.options.dataDir, BOOTSTRAP_SNAPSHOT_FILE);
    // `kafka-storage format`'s binary bootstrap file: the bootstrap features as a snapshot of epoch 0
    if (!existsSync(bootstrapPath)) writeSnapshotFile(bootstrapPath, [featureLevelRecord(METADATA_VERSION_FEATURE, METADATA_VERSION_LEVEL).bytes], 0, now);
  }

  /**
   * Appends one change's records and applies them to the image; fsynced at once unless inside
   * {@link deferFlush}. The image replays the records as they were made, not decoded back from
   * their bytes (Kafka's `QuorumController` replays the `ApiMessageAndVersion`s it generated).
   */
  append(records: readonly MetadataRecord[]): void {
    if (records.length === 0) return;
    this.abortOpenTransaction('the change before this one was cut short between its batches');
    const transaction = records.length > MAX_BATCH_RECORDS;
    // one timestamp for every batch of the change: replay tells a change cut short by it (metadata-transactions.ts)
    const now = this.time();
    if (!transaction) {
      this.appendBatch(records, now);
    } else {
      const at = this.log.logEndOffset;
      this.appendBatch([metadataRecord(BeginTransactionRecord, 0, {})], now);
      // from here until the End is written, a failure leaves the transaction open
      this.openTransactionAt = at;
      for (let i = 0; i < records.length; i += MAX_BATCH_RECORDS) this.appendBatch(records.slice(i, i + MAX_BATCH_RECORDS), now);
      this.appendBatch([metadataRecord(EndTransactionRecord, 0, {})], now);
    }
    this.openTransactionAt = undefined;
    for (const record of records) this.image.replay(record);
    this.unflushed = true;
    if (this.deferDepth === 0) this.commit();
  }

  /**
   * One batch of records, built as the leader writes it (Kafka `BatchAccumulator`): at the log end
   * offset, in the leader's epoch, so that the log takes it as it is (`appendAsRaftLeader`).
   */
  private appendBatch(records: readonly MetadataRecord[], now = this.time()): void {
    const epoch = this.epoch;
    const values: RecordInput[] = new Array(records.length);
    for (let i = 0; i < records.length; i++) values[i] = { value: records[i]!.bytes, timestamp: now };
    const batch = encodeRecordBatch(values, { baseOffset: this.log.logEndOffset, partitionLeaderEpoch: epoch });
    this.log.appendAsRaftLeader(batch, epoch);
    this.bytesSinceSnapshot += batch.length;
  }

  /** Closes a transaction left open with an AbortTransactionRecord (its records were never applied). */
  private abortOpenTransaction(reason: string): void {
    if (this.openTransactionAt === undefined) return;
    this.options.logger?.('warn', `${this.dir}: aborting the metadata transaction at offset ${this.openTransactionAt}, never ended: ${reason}`);
    this.appendBatch([metadataRecord(AbortTransactionRecord, 0, { reason })]);
    this.openTransactionAt = undefined;
    this.log.flush();
  }

  /** Runs `fn` with its appends sharing one fsync at the end (a request's changes). */
  deferFlush<T>(fn: () => T): T {
    this.deferDepth++;
    try {
      return fn();
    } finally {
      this.deferDepth--;
      if (this.deferDepth === 0 && this.unflushed) this.commit();
    }
  }

  private commit(): void {
    this.log.flush();
    this.unflushed = false;
    if (this.bytesSinceSnapshot >= this.maxBytesBetweenSnapshots) this.snapshot();
  }

  /**
   * Writes the image as a snapshot at the log's end, then drops the segments and snapshots it
   * makes redundant (Kafka `KafkaMetadataLog.deleteBeforeSnapshot`).
   */
  snapshot(): string {
    const endOffset = this.log.logEndOffset;
    const epoch = this.epoch;
    const name = `${formatOffset(endOffset)}-${String(epoch).padStart(10, '0')}${KRAFT_SNAPSHOT_SUFFIX}`;
    writeSnapshotFile(join(this.dir, name), this.image.snapshotRecords(this.options.nodeId, this.options.directoryId), epoch, this.time());
    if (this.log.activeSegment.size > 0) this.log.roll();
    this.log.deleteRecordsBefore(endOffset);
    this.log.deleteDueFiles();
    for (const s of this.snapshots()) if (s.endOffset < endOffset) rmSync(join(this.dir, s.name), { force: true });
    this.bytesSinceSnapshot = 0;
    return name;
  }

  private snapshots(): { name: string; endOffset: bigint; epoch: number }[] {
    const out = [];
    for (const name of readdirSync(this.dir)) {
      const id = parseKraftSnapshotName(name);
      if (id !== undefined) out.push({ name, ...id });
    }
    return out.sort((a, b) => (a.endOffset < b.endOffset ? -1 : a.endOffset > b.endOffset ? 1 : 0));
  }

  private latestSnapshot(): { name: string; endOffset: bigint; epoch: number } | undefined {
    return this.snapshots().at(-1);
  }

  private replaySnapshot(path: string): void {
    for (const b of readRecordBatches(readFileSync(path), { verifyCrc: true })) {
      if (b.kind !== 'v2' || b.isControl) continue;
      for (const r of b.records()) if (r.value !== null) this.image.replay(decodeMetadataRecord(r.value));
    }
  }

  /** Replays the log from `from`, a transaction's records only at its End; returns the bytes read. */
  private replayLog(from: bigint): number {
    const transactions = new MetadataTransactionReplay(
      (record) => this.image.replay(record),
      (message) => this.options.logger?.('warn', message),
      this.dir,
    );
    let offset = from;
    let bytes = 0;
    while (offset < this.log.logEndOffset) {
      const r = this.log.read(offset, { maxBytes: READ_CHUNK, minOneMessage: true });
      if (r.records.length === 0) break;
      let next = offset;
      for (const b of readRecordBatches(r.records, { verifyCrc: true })) {
        next = b.lastOffset + 1n;
        bytes += b.sizeInBytes;
        if (b.kind !== 'v2' || b.isControl) continue;
        // a Kafka snapshot may end inside a batch: its records before `from` are in the snapshot
        const partial = b.baseOffset < from;
        for (const rec of b.records()) if ((!partial || rec.offset >= from) && rec.value !== null) transactions.replay(decodeMetadataRecord(rec.value), rec.offset, b.maxTimestamp);
      }
      if (next <= offset) break;
      offset = next;
    }
    this.openTransactionAt = transactions.openTransactionAt;
    this.droppedUnclosed = transactions.droppedUnclosed;
    return bytes;
  }

  close(): void {
    this.log.flush();
    this.log.close();
  }

  closeUnclean(): void {
    this.log.close();
  }
}

/**
 * A KRaft snapshot file (`RecordsSnapshotWriter`): a SnapshotHeader control batch, the records
 * in batches, a SnapshotFooter control batch, offsets counting from 0; written to `.part`, synced
 * and renamed.
 */
function writeSnapshotFile(path: string, records: Iterable<Buffer>, epoch: number, now: number): void {
  const part = `${path}.part`;
  const fd = openSync(part, 'w');
  try {
    let offset = 0n;
    const write = (batch: Buffer) => {
      writeSync(fd, batch);
    };
    const control = (type: number, value: Buffer) => {
      write(encodeRecordBatch([{ key: encodeControlRecordKey(type), value, timestamp: now }], { baseOffset: offset, isControl: true, partitionLeaderEpoch: epoch }));
      offset += 1n;
    };
    control(ControlRecordType.SNAPSHOT_HEADER, encodeMessageToBuffer(SnapshotHeaderRecord, 0, { version: 0, lastContainedLogTimestamp: BigInt(now) }));
    let chunk: RecordInput[] = [];
    const flushChunk = () => {
      if (chunk.length === 0) return;
      write(encodeRecordBatch(chunk, { baseOffset: offset, partitionLeaderEpoch: epoch }));
      offset += BigInt(chunk.length);
      chunk = [];
    };
    for (const value of records) {
      chunk.push({ value, timestamp: now });
      if (chunk.length === MAX_BATCH_RECORDS) flushChunk();
    }
    flushChunk();
    control(ControlRecordType.SNAPSHOT_FOOTER, encodeMessageToBuffer(SnapshotFooterRecord, 0, { version: 0 }));
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(part, path);
  fsyncDirSync(join(path, '..'));
}
