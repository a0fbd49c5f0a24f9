/**
 * `cleaner-offset-checkpoint` (Kafka `LogCleanerManager.offsetCheckpointFile`): per
 * partition, the offset where the dirty section starts, i.e. the end of the last cleaning round.
 * One file per data directory, in the offset-checkpoint format (`OffsetCheckpointFile`).
 */
import { join } from 'node:path';
import { readOffsetCheckpoint, writeOffsetCheckpoint } from '../checkpoint.js';
import { CLEANER_OFFSET_CHECKPOINT_FILE } from '../file-names.js';

const key = (topic: string, partition: number) => `${topic}\u0000${partition}`;

export class CleanerCheckpoint {
  readonly path: string;
  private readonly offsets = new Map<string, { topic: string; partition: number; offset: bigint }>();

  /** Loads `<dataDir>/cleaner-offset-checkpoint` (absent: empty; unreadable: a StorageError). */
  constructor(dataDir: string) {
    this.path = join(dataDir, CLEANER_OFFSET_CHECKPOINT_FILE);
    for (const e of readOffsetCheckpoint(this.path)) this.offsets.set(key(e.topic, e.partition), e);
  }

  get(topic: string, partition: number): bigint | undefined {
    return this.offsets.get(key(topic, partition))?.offset;
  }

  /** Records the partition's new first dirty offset and rewrites the file (atomically). */
  update(topic: string, partition: number, offset: bigint): void {
    this.offsets.set(key(topic, partition), { topic, partition, offset });
    this.write();
  }

  remove(topic: string, partition: number): void {
    if (this.offsets.delete(key(topic, partition))) this.write();
  }

  private write(): void {
    writeOffsetCheckpoint(this.path, [...this.offsets.values()]);
  }
}
