/**
 * Producer id allocation for InitProducerId (Kafka `ProducerIdManager`): ids are handed out from
 * blocks of 1000 whose upper end is recorded in `kafkalite-producer-ids` before any id of the block
 * is used, so ids never repeat across restarts (Kafka gets its blocks from the controller, which
 * keeps the next block's start in the metadata log as a ProducerIdsRecord: nothing reads the
 * partitions' producer state at start).
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { atomicWriteFileSync } from '../storage/fs-util.js';

export const PRODUCER_IDS_FILE = 'kafkalite-producer-ids';
const BLOCK_SIZE = 1000n;

export class ProducerIdManager {
  private next: bigint;
  private blockEnd: bigint;

  /**
   * `floor`: one above the largest producer id found in the logs' producer state. Asked only when
   * the file is missing (a directory an older kafkalite wrote, or a new one), and then written at
   * once: a start reads one file, not every log (issue 21).
   */
  constructor(
    private readonly dataDir: string,
    floor: () => bigint,
  ) {
    const path = join(dataDir, PRODUCER_IDS_FILE);
    let stored: bigint | undefined;
    if (existsSync(path)) {
      const text = readFileSync(path, 'utf8').trim();
      if (/^\d+$/.test(text)) stored = BigInt(text);
    }
    if (stored === undefined) {
      stored = floor();
      atomicWriteFileSync(path, `${stored}\n`);
    }
    this.next = stored;
    this.blockEnd = this.next;
  }

  generate(): bigint {
    if (this.next >= this.blockEnd) {
      this.blockEnd = this.next + BLOCK_SIZE;
      atomicWriteFileSync(join(this.dataDir, PRODUCER_IDS_FILE), `${this.blockEnd}\n`);
    }
    return this.next++;
  }
}
