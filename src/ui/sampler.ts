/**
 * Samples taken in the server while a page watches them, for the overview's sparklines and a
 * group's lag chart: one loop per kind of sample and interval, shared by every page watching it,
 * started by the first page and stopped when the last one goes; the last samples are kept, so a
 * page opened again shows the recent past at once. Nobody watching, nothing is asked of the
 * cluster (the console costs the broker nothing then).
 */
import type { EventStream } from './live.js';

export const MIN_INTERVAL_MS = 100;
export const MAX_INTERVAL_MS = 60_000;
/** Samples kept per loop (at the default 2 s, the last four minutes). */
const KEEP = 120;

export interface Sample<T> {
  t: number;
  value: T;
}

export class Sampler<T> {
  private readonly samples: Sample<T>[] = [];
  private readonly watchers = new Set<EventStream>();
  private timer: NodeJS.Timeout | undefined;
  private running = false;

  constructor(
    private readonly take: (previous: Sample<T> | undefined) => Promise<T>,
    readonly intervalMs: number,
  ) {}

  get watching(): number {
    return this.watchers.size;
  }

  get isRunning(): boolean {
    return this.running;
  }

  /** The stream gets the samples kept (`history`), then each new one (`sample`), until it closes. */
  watch(stream: EventStream): void {
    stream.send('history', this.samples);
    this.watchers.add(stream);
    stream.whenClosed(() => {
      this.watchers.delete(stream);
      if (this.watchers.size === 0) this.stop();
    });
    if (!this.running) {
      this.running = true;
      void this.tick();
    }
  }

  private stop(): void {
    this.running = false;
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  private async tick(): Promise<void> {
    if (!this.running) return;
    try {
      const sample = { t: Date.now(), value: await this.take(this.samples.at(-1)) };
      this.samples.push(sample);
      if (this.samples.length > KEEP) this.samples.shift();
      for (const w of this.watchers) w.send('sample', sample);
    } catch (e) {
      for (const w of this.watchers) w.send('error', { error: e instanceof Error ? e.message : String(e) });
    }
    if (this.running) this.timer = setTimeout(() => void this.tick(), this.intervalMs);
  }
}

export interface TopicSample {
  endOffsets: string;
  messages: string;
  bytes: number | null;
  /** Messages appended per second since the previous sample (end offsets' growth), null on the first. */
  rate: number | null;
}

/** A sample of every topic, with its rate against the previous sample. */
export function topicRates(now: number, topics: { name: string; endOffsets: string; messages: string; bytes: number | null }[], previous: Sample<Record<string, TopicSample>> | undefined): Record<string, TopicSample> {
  const out: Record<string, TopicSample> = {};
  for (const t of topics) {
    const before = previous?.value[t.name];
    const seconds = previous ? (now - previous.t) / 1000 : 0;
    const rate = before && seconds > 0 ? Number(BigInt(t.endOffsets) - BigInt(before.endOffsets)) / seconds : null;
    out[t.name] = { endOffsets: t.endOffsets, messages: t.messages, bytes: t.bytes, rate: rate === null ? null : Math.max(0, Math.round(rate * 100) / 100) };
  }
  return out;
}
