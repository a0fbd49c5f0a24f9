/**
 * Metadata transactions on replay (KIP-868; Kafka `MetadataBatchLoader` and
 * `OffsetControlManager`): the records between a BeginTransactionRecord and its
 * EndTransactionRecord take effect together at the End, and not at all when an
 * AbortTransactionRecord closes the transaction instead. A log that ends inside a transaction
 * holds a change cut short (a crash between its batches): its records are never applied, and the
 * leader appends an AbortTransactionRecord before writing anything else (`ActivationRecordsGenerator`).
 */
import { StorageError } from '../errors.js';
import { AbortTransactionRecord, BeginTransactionRecord, EndTransactionRecord } from '../protocol/schemas/internal/metadata.js';
import type { DecodedMessage } from './cluster-metadata.js';

export class MetadataTransactionReplay {
  /** The records of the open transaction, held until its End. */
  private pending: DecodedMessage[] | undefined;
  private beganAt = -1n;

  constructor(
    private readonly apply: (record: DecodedMessage) => void,
    private readonly warn: (message: string) => void,
    private readonly where: string,
  ) {}

  replay(record: DecodedMessage, offset: bigint): void {
    switch (record.schema) {
      case BeginTransactionRecord:
        if (this.pending !== undefined) {
          // Kafka's loader refuses this, since its controller aborts an unfinished transaction
          // before writing again; a kafkalite before that rule could write it after a crash, so the
          // unfinished change is dropped as that abort would have dropped it
          this.warn(`${this.where}: the metadata transaction at offset ${this.beganAt} was never closed; its ${this.pending.length} records are dropped (BeginTransactionRecord at offset ${offset})`);
        }
        this.pending = [];
        this.beganAt = offset;
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
