/**
 * The TypeScript side of the Python broker peers (test/interop/py/broker_*.py, steps described in
 * broker_common.py): running a list of steps, and the rows a test compares (offset, key, value,
 * headers, bytes as hex) taken from what was sent, what a client fetched and what the log stores.
 */
import assert from 'node:assert/strict';
import type { Broker } from '../../../src/broker/broker.js';
import { storedRecords } from '../../helpers/broker.js';
import { hex, runPythonAsync } from '../../helpers/python-peer.js';

export type Header = [string, string | null];
/** A client reports "no headers" as null (librdkafka) or []; the log stores an empty array. */
export type Headers = Header[] | null;

export interface SentMessage {
  partition: number;
  key: string | null;
  value: string | null;
  headers: Headers;
}

export interface FetchedMessage extends SentMessage {
  offset: number;
  timestamp: number;
}

export interface StepResult {
  op: string;
  exception?: string;
  traceback?: string;
  deliveries?: { partition: number | null; offset: number | null; error: string | null }[];
  undelivered?: number;
  messages?: FetchedMessage[];
  eof?: number[];
  positions?: Record<string, number>;
  errors?: Record<string, string | null> | string[];
  configs?: Record<string, { value: string | null; isDefault: boolean; isReadOnly: boolean; isSensitive: boolean; source?: number }>;
  /** DescribeConfigs version the client used (kafka-python reports it). */
  version?: number;
  topics?: Record<string, number[]>;
}

export type Row = [offset: number, key: string | null, value: string | null, headers: Header[]];

/** Runs the steps in one process of `script`; a step that raised fails the test with its traceback. */
export async function runSteps(script: string, broker: Broker, steps: Record<string, unknown>[]): Promise<StepResult[]> {
  const { results } = await runPythonAsync<{ results: StepResult[] }>(script, { bootstrap: broker.bootstrap, steps }, { timeoutMs: 60_000 });
  for (const r of results) if (r.exception !== undefined) assert.fail(`${r.op} raised ${r.exception}\n${r.traceback}`);
  return results;
}

/** What partition `partition` should hold: the messages sent to it, at dense offsets from 0. */
export function sentRows(sent: SentMessage[], partition: number): Row[] {
  return sent.filter((m) => m.partition === partition).map((m, i) => [i, m.key, m.value, m.headers ?? []]);
}

export function fetchedRows(got: FetchedMessage[], partition: number): Row[] {
  return got.filter((m) => m.partition === partition).map((m) => [m.offset, m.key, m.value, m.headers ?? []]);
}

/** The partition's records as stored in its segment files (CRCs verified). */
export function storedRows(broker: Broker, topic: string, partition: number): Row[] {
  return storedRecords(broker.dataDir, topic, partition).map((r) => [Number(r.offset), hex(r.key), hex(r.value), r.headers.map((h): Header => [h.key, hex(h.value)])]);
}

/** The step result's per-topic error (null when the topic succeeded). */
export function topicError(result: StepResult, topic: string): string | null | undefined {
  return (result.errors as Record<string, string | null>)[topic];
}

/**
 * A spy on the broker's real append notifier (the method still runs): `firstPark` resolves when a
 * fetch first parks to wait for data, and `wakes` records for each wait whether an append ended it
 * (true) or its max wait did (false).
 */
export function watchFetchWaits(broker: Broker): { firstPark: Promise<void>; wakes: boolean[] } {
  const wakes: boolean[] = [];
  let parked!: () => void;
  const firstPark = new Promise<void>((resolve) => (parked = resolve));
  const realWait = broker.appends.waitForAppend.bind(broker.appends);
  broker.appends.waitForAppend = async (ms) => {
    parked();
    const woken = await realWait(ms);
    wakes.push(woken);
    return woken;
  };
  return { firstPark, wakes };
}
