/**
 * Producer id allocation for InitProducerId (Kafka `ProducerIdManager`): ids are handed out from
 * blocks of 1000 whose upper end is recorded in `kafkalite-producer-ids` before any id of the block
 * is used, so ids never repeat across restarts (Kafka gets its blocks from the controller).
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { atomicWriteFileSync } from '../storage/fs-util.js';

export const PRODUCER_IDS_FILE = 'kafkalite-producer-ids';
const BLOCK_SIZE = 1000n;

export class ProducerIdManager {
  private next: bigint;
  private blockEnd: bigint;

  /** `floor`: one above the largest producer id found in the logs' producer state. */
  constructor(
    private readonly dataDir: string,
    floor: bigint,
  ) {
    const path = join(dataDir, PRODUCER_IDS_FILE);
    let stored = 0n;
    if (existsSync(path)) {
      const text = readFileSync(path, 'utf8').trim();
      if (/^\d+$/.test(text)) stored = BigInt(text);
    }
    this.next = stored > floor ? stored : floor;
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
