/**
 * The live tail of a partition: from its end (or an offset), long-poll Fetches (maxWaitMs, minBytes
 * 1, as a consumer waits for records) on a connection of its own to the leader, each batch of new
 * messages sent to the page as an event, until the page goes. A leader that moved is looked up
 * again (on a new connection); an offset that retention removed (OFFSET_OUT_OF_RANGE) restarts
 * at the log start, as a consumer with auto.offset.reset=earliest does.
 */
import type { ClusterView } from './cluster.js';
import { ClusterError, EARLIEST, LATEST, READ_UNCOMMITTED } from './cluster.js';
import { ErrorCode } from '../protocol/error-codes.js';
import type { KafkaClient } from './kafka-client.js';
import type { EventStream } from './live.js';
import { messagesOfBatches } from './messages.js';

/** How long one Fetch waits for new records before the loop looks again (and notices a closed page). */
const TAIL_WAIT_MS = 1000;
const MAX_EVENT_MESSAGES = 200;

export async function tail(cluster: ClusterView, topic: string, partition: number, from: bigint | null, stream: EventStream): Promise<void> {
  const key = `${topic}\0${partition}`;
  const q = [{ name: topic, partitions: [partition] }];
  let next = from ?? (await cluster.listOffsets(q, LATEST, READ_UNCOMMITTED)).get(key) ?? 0n;
  const connections = new Map<number, KafkaClient>();
  const connection = async (leader: number): Promise<KafkaClient> => {
    const c = connections.get(leader);
    if (c && !c.isClosed) return c;
    const fresh = await cluster.router.dedicated(leader);
    connections.set(leader, fresh);
    if (stream.isClosed) fresh.close();
    return fresh;
  };
  // the page went: close the tail's connections now, which ends a Fetch waiting there
  stream.whenClosed(() => {
    for (const c of connections.values()) c.close();
  });
  stream.send('start', { topic, partition, from: String(next) });
  while (!stream.isClosed) {
    let records: Buffer | null;
    try {
      records = await cluster.fetch(topic, partition, next, READ_UNCOMMITTED, TAIL_WAIT_MS, connection);
    } catch (e) {
      if (stream.isClosed) break;
      if (e instanceof ClusterError && e.errorCode === ErrorCode.OFFSET_OUT_OF_RANGE) {
        next = (await cluster.listOffsets(q, EARLIEST, READ_UNCOMMITTED)).get(key) ?? 0n;
        continue;
      }
      stream.send('error', { error: e instanceof Error ? e.message : String(e) });
      break;
    }
    if (records === null || stream.isClosed) continue;
    const page = messagesOfBatches(records, partition, next, MAX_EVENT_MESSAGES);
    if (page.messages.length > 0) stream.send('messages', page.messages);
    if (page.nextOffset > next) next = page.nextOffset;
  }
  for (const c of connections.values()) c.close();
  stream.close();
}
