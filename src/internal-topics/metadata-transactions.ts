/**
 * Metadata transactions on replay (KIP-868; Kafka `MetadataBatchLoader` and
 * `OffsetControlManager`): the records between a BeginTransactionRecord and its
 * EndTransactionRecord take effect together at the End, and not at all when an
 * AbortTransactionRecord closes the transaction instead. A log that ends inside a transaction
 * holds a change cut short (a crash between its batches): its records are never applied, and the
 * leader appends an AbortTransactionRecord before writing anything else (`ActivationRecordsGenerator`).
 *
 * kafkalite writes every batch of one change with the same timestamp, and a kafkalite before aborts
 * existed did too but, restarted after a crash between the batches, wrote on as if the change were
 * closed. So a batch written at another time than the open transaction's BeginTransactionRecord
 * cannot be part of it: the transaction was cut short, it is dropped as the abort Kafka's next
 * leader writes would drop it, and that batch applies as written (`droppedUnclosed` tells the log
 * to snapshot, so that what is left on disk is what Kafka's loader accepts).
 */
import { StorageError } from '../errors.js';
import { AbortTransactionRecord, BeginTransactionRecord, EndTransactionRecord } from '../protocol/schemas/internal/metadata.js';
import type { DecodedMessage } from './cluster-metadata.js';

export class MetadataTransactionReplay {
  /** The records of the open transaction, held until its End. */
  private pending: DecodedMessage[] | undefined;
  private beganAt = -1n;
  private beganTimestamp = -1n;
  /** A transaction that was never closed was dropped (a log of a kafkalite before aborts). */
  droppedUnclosed = false;

  constructor(
    private readonly apply: (record: DecodedMessage) => void,
    private readonly warn: (message: string) => void,
    private readonly where: string,
  ) {}

  /** `timestamp`: its batch's (every batch of a change shares one). */
  replay(record: DecodedMessage, offset: bigint, timestamp: bigint): void {
    switch (record.schema) {
      case BeginTransactionRecord:
        if (this.pending !== undefined) {
          // Kafka's loader refuses this, since its controller aborts an unfinished transaction
          // before writing again; a kafkalite before that rule could write it after a crash, so the
          // unfinished change is dropped as that abort would have dropped it
          this.warn(`${this.where}: the metadata transaction at offset ${this.beganAt} was never closed; its ${this.pending.length} records are dropped (BeginTransactionRecord at offset ${offset})`);
          this.droppedUnclosed = true;
        }
        this.pending = [];
        this.beganAt = offset;
        this.beganTimestamp = timestamp;
        break;
      case EndTransactionRecord: {
        const records = this.closing('EndTransactionRecord', offset);
        for (const r of records) this.apply(r);
        break;
      }
      case AbortTransactionRecord:
        this.closing('AbortTransactionRecord', offset);
        break;
      default:
        if (this.pending !== undefined && timestamp !== this.beganTimestamp) {
          this.warn(`${this.where}: the metadata transaction at offset ${this.beganAt} was never closed; its ${this.pending.length} records are dropped (a change written later, at offset ${offset}, follows it)`);
          this.droppedUnclosed = true;
          this.pending = undefined;
          this.beganAt = -1n;
        }
        if (this.pending !== undefined) this.pending.push(record);
        else this.apply(record);
    }
  }

  private closing(name: string, offset: bigint): DecodedMessage[] {
    const records = this.pending;
    if (records === undefined) throw new StorageError(`${this.where}: ${name} at offset ${offset} without a BeginTransactionRecord before it`);
    this.pending = undefined;
    this.beganAt = -1n;
    return records;
  }

  /** The offset of the BeginTransactionRecord of the transaction the log ends inside, if any. */
  get openTransactionAt(): bigint | undefined {
    return this.pending === undefined ? undefined : this.beganAt;
  }
}
