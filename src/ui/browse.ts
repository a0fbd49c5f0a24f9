/**
 * The message browser's paging over one partition, the same whether the messages come from a
 * cluster (Fetch) or from the files (offline): a start position (beginning, offset, timestamp,
 * end), a direction (oldest first, or newest first as kafka-ui's "backward" mode pages), and
 * optional filters, each a substring of the key, the value, or a header's key or value. A page
 * scans at most SCAN_BUDGET messages, so a filter that matches little never turns into a full scan
 * of a large partition: the answer says where the next page continues (`next`).
 */
import type { MessageView, StartPosition } from './messages.js';

/** Messages one request may read while looking for matches (the page then says where to go on). */
const SCAN_BUDGET = 20_000;
/**
 * Messages a filtered page asks for per read: a read starts at the batch holding its offset, so
 * reads smaller than a batch would fetch a large batch (a producer's 1 MiB of 1 KB records) once
 * per read instead of once.
 */
const FILTERED_READ = 2048;

export interface PartitionSource {
  /** The log start offset and the end offset (high watermark). */
  bounds(): Promise<{ start: bigint; end: bigint }>;
  /** The first offset whose timestamp is at or after `timestamp`; `end` when none is. */
  offsetForTimestamp(timestamp: bigint, end: bigint): Promise<bigint>;
  /** Up to `max` messages at or after `offset`; `nextOffset` is where reading goes on (past gaps and control batches). */
  read(offset: bigint, max: number): Promise<{ messages: MessageView[]; nextOffset: bigint }>;
  /**
   * The log start offset this source last learnt, if it remembers one. A page from the beginning is
   * then read from there while the bounds are asked for, one round trip instead of two in a row;
   * the read is used only when the bounds name the same start (records deleted since move it, a
   * topic deleted and made again starts it afresh).
   */
  startHint?(): bigint | undefined;
}

export interface MessageFilter {
  key?: string;
  value?: string;
  header?: string;
}

type Direction = 'forward' | 'backward';

export interface BrowseQuery {
  from: StartPosition;
  limit: number;
  direction: Direction;
  filter: MessageFilter;
}

export interface BrowsePage {
  messages: MessageView[];
  startOffset: string;
  endOffset: string;
  /** The offset the page started from (resolved from the start position). */
  from: string;
  direction: Direction;
  /** Messages read to fill the page (more than it holds when filtered). */
  scanned: number;
  /** Where the next page starts (`offset:N` in the same direction), null at the partition's edge. */
  next: string | null;
}

function contains(b64: string | null, needle: Buffer): boolean {
  return b64 !== null && Buffer.from(b64, 'base64').includes(needle);
}

/** Whether a message passes every filter given (byte substrings of the UTF-8 needle). */
export function matches(m: MessageView, filter: MessageFilter): boolean {
  if (filter.key !== undefined && !contains(m.key, Buffer.from(filter.key))) return false;
  if (filter.value !== undefined && !contains(m.value, Buffer.from(filter.value))) return false;
  if (filter.header !== undefined) {
    const needle = Buffer.from(filter.header);
    if (!m.headers.some((h) => Buffer.from(h.key).includes(needle) || contains(h.value, needle))) return false;
  }
  return true;
}

function hasFilter(f: MessageFilter): boolean {
  return f.key !== undefined || f.value !== undefined || f.header !== undefined;
}

export async function browse(src: PartitionSource, q: BrowseQuery): Promise<BrowsePage> {
  const limit = BigInt(q.limit);
  const filtered = hasFilter(q.filter);
  const readSize = (scanned: number, found: number): number => (filtered ? Math.min(FILTERED_READ, SCAN_BUDGET - scanned) : q.limit - found);
  const hint = q.direction === 'forward' && q.from.kind === 'beginning' ? src.startHint?.() : undefined;
  // a wrong guess (the start moved: OFFSET_OUT_OF_RANGE) is only a wasted read
  let early = hint === undefined ? undefined : src.read(hint, readSize(0, 0)).catch(() => undefined);
  const { start, end } = await src.bounds();
  if (hint !== start) early = undefined;
  let from: bigint;
  if (q.from.kind === 'beginning') from = start;
  else if (q.from.kind === 'end') from = q.direction === 'backward' ? end : end - limit > start ? end - limit : start;
  else if (q.from.kind === 'offset') from = q.from.offset < start ? start : q.from.offset > end ? end : q.from.offset;
  else from = await src.offsetForTimestamp(q.from.timestamp, end);
  const base = { startOffset: String(start), endOffset: String(end), from: String(from), direction: q.direction };
  const out: MessageView[] = [];
  let scanned = 0;
  if (q.direction === 'forward') {
    let next = from;
    while (out.length < q.limit && next < end && scanned < SCAN_BUDGET) {
      const page = (early !== undefined && next === start ? await early : undefined) ?? (await src.read(next, readSize(scanned, out.length)));
      early = undefined;
      if (page.nextOffset <= next) break;
      for (const m of page.messages) {
        scanned++;
        if (out.length < q.limit && matches(m, q.filter)) {
          out.push(m);
          next = BigInt(m.offset) + 1n;
        }
      }
      // a full page ends after its last message; otherwise everything read was looked at
      if (out.length < q.limit) next = page.nextOffset;
    }
    return { ...base, messages: out, scanned, next: next < end ? `offset:${next}` : null };
  }
  // newest first: windows below the cursor, read oldest first, taken from their end
  let cursor = from === end || q.from.kind !== 'offset' ? from : from + 1n;
  let window = BigInt(Math.max(q.limit, 64));
  while (out.length < q.limit && cursor > start && scanned < SCAN_BUDGET) {
    const lo = cursor - window > start ? cursor - window : start;
    const inWindow: MessageView[] = [];
    let at = lo;
    while (at < cursor) {
      const page = await src.read(at, Number(cursor - at));
      const below = page.messages.filter((m) => BigInt(m.offset) < cursor);
      inWindow.push(...below);
      if (page.nextOffset <= at || below.length < page.messages.length) break;
      at = page.nextOffset;
    }
    scanned += inWindow.length;
    const hits = inWindow.filter((m) => matches(m, q.filter));
    let took = lo;
    for (let i = hits.length - 1; i >= 0 && out.length < q.limit; i--) {
      out.push(hits[i]!);
      took = BigInt(hits[i]!.offset);
    }
    cursor = out.length >= q.limit ? took : lo;
    if (window < 4096n) window *= 2n;
  }
  return { ...base, messages: out, scanned, next: cursor > start ? `offset:${cursor - 1n}` : null };
}
