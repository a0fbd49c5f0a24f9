/**
 * The machinery both fuzz suites share (batch-fuzz and legacy-fuzz): case plans derived from
 * (seed, case index) alone so any case replays, the case loop with its outcome counts and
 * failure reports, and the test-side watchdog that runs the loop in a worker thread and fails
 * the test when it stops making progress (a hang). A run is a fixed number of cases: the tests
 * assert how many ran, never how long they took (a loaded machine is slow, not wrong).
 *
 * The suites keep what differs: how valid inputs are generated and mutated, how a case is
 * exercised and what counts as an acceptable error.
 */
import assert from 'node:assert/strict';
import type { TestContext } from 'node:test';
import { Worker } from 'node:worker_threads';
import { ErrorCodes, KafkaliteError } from '../../src/errors.js';
import { Rng, toHex } from '../helpers/ref.js';

/** One generated input, with the records it must decode to when it is pristine. */
export type MakeCase<E> = (rng: Rng) => { buf: Buffer; expect?: E };

export interface CasePlan<E> {
  category: string;
  make: MakeCase<E>;
}

/** What every fuzz worker receives. */
export interface FuzzRunConfig {
  seed: number;
  /** Run a single case (replay); -1 for all. */
  onlyCase: number;
  /** Int32Array over a SharedArrayBuffer: [0] = current case index, [1] = cases done. */
  progress: SharedArrayBuffer;
}

export interface FuzzFailure {
  seed: number;
  caseIndex: number;
  category: string;
  problem: string;
  inputHex: string;
  inputLength: number;
}

export interface FuzzResult {
  /** Cases run, and how many the plan holds for this run (all of them, or the one replayed). */
  cases: number;
  planned: number;
  ms: number;
  outcomes: { [k: string]: number };
  categories: { [k: string]: number };
  failures: FuzzFailure[];
  failureCount: number;
  slowestCaseMs: number;
  slowestCase: string;
  /** Cases also run through the suite's extra check (e.g. FileRecords). */
  extraCases: number;
}

const CODES = new Set(Object.keys(ErrorCodes));

/**
 * Why an error thrown by a decoder is not acceptable: anything but a KafkaliteError with a declared
 * code, the matching Kafka code and (when given) a position inside the input.
 */
export function judge(err: unknown, inputLength: number): string | undefined {
  if (!(err instanceof KafkaliteError)) {
    const e = err as Error;
    return `non-KafkaliteError ${e?.constructor?.name ?? typeof err}: ${e?.message}\n${(e?.stack ?? '').split('\n').slice(1, 6).join('\n')}`;
  }
  if (!CODES.has(err.code)) return `undeclared code ${String(err.code)}`;
  if (ErrorCodes[err.code] !== err.kafkaErrorCode) return `kafkaErrorCode ${err.kafkaErrorCode} does not match ${err.code}`;
  if (err.position !== undefined && !(Number.isInteger(err.position) && err.position >= 0 && err.position <= inputLength)) {
    return `position ${String(err.position)} outside the input [0, ${inputLength}]: ${err.message}`;
  }
  return undefined;
}

/** Per-case seed: a suite-specific salt keeps the suites' streams apart. */
export function caseSeed(seed: number, i: number, salt: number): number {
  return (Math.imul(seed ^ salt, 0x27d4eb2d) ^ Math.imul(i + 1, 0x9e3779b1)) >>> 0;
}

export interface PlanSpec<E> {
  plainCases: number;
  /** [category, weight, generator]: the plain cases cycle through these by weight. */
  plainKinds: [string, number, MakeCase<E>][];
  /** Cases per codec. */
  codecCases: number;
  codecs: readonly number[];
  codecName: (codec: number) => string;
  /** [category, percent, generator per codec]. */
  codecKinds: [string, number, (codec: number) => MakeCase<E>][];
  /** Inputs cut at every byte position, raw and with the size field fixed up. */
  truncSources: Buffer[];
  /** Fixes a cut input's size field (and CRC) so the parsers behind them are reached. */
  fixCut: (cut: Buffer) => void;
}

/** Case index -> plan: plain cases, then codec cases, then every-position truncations. */
export function planCases<E>(spec: PlanSpec<E>): { total: number; planFor: (i: number) => CasePlan<E> } {
  const weightSum = spec.plainKinds.reduce((n, k) => n + k[1], 0);
  const truncOffsets: number[] = [];
  let truncTotal = 0;
  for (const s of spec.truncSources) {
    truncOffsets.push(truncTotal);
    truncTotal += s.length * 2; // cut at p, raw and with the length field fixed
  }
  const codecTotal = spec.codecCases * spec.codecs.length;
  const total = spec.plainCases + codecTotal + truncTotal;
  const planFor = (i: number): CasePlan<E> => {
    if (i < spec.plainCases) {
      let w = i % weightSum;
      for (const [category, weight, make] of spec.plainKinds) {
        if (w < weight) return { category, make };
        w -= weight;
      }
    }
    if (i < spec.plainCases + codecTotal) {
      const j = i - spec.plainCases;
      const codec = spec.codecs[j % spec.codecs.length]!;
      const k = Math.floor(j / spec.codecs.length) % 100;
      let acc = 0;
      for (const [name, percent, make] of spec.codecKinds) {
        acc += percent;
        if (k < acc) return { category: `${spec.codecName(codec)}/${name}`, make: make(codec) };
      }
    }
    const j = i - spec.plainCases - codecTotal;
    let s = truncOffsets.length - 1;
    while (truncOffsets[s]! > j) s--;
    const src = spec.truncSources[s]!;
    const p = j - truncOffsets[s]!;
    const cut = p % src.length;
    const fixLen = p >= src.length;
    return {
      category: fixLen ? 'truncate-every-position/fixed-length' : 'truncate-every-position/raw',
      make: () => {
        const c = Buffer.from(src.subarray(0, cut));
        if (fixLen) spec.fixCut(c);
        return { buf: c };
      },
    };
  };
  return { total, planFor };
}

export interface CaseChecks<E> {
  /** Salt of this suite's per-case seeds. */
  salt: number;
  /** What a pristine input is called in failure messages ("batch", "entry"). */
  noun: string;
  /** Decodes `buf` one of several ways (`mode` < 2 when a pristine input's records are compared). */
  exercise: (buf: Buffer, mode: number) => unknown;
  /** Why decoded records differ from the expected ones, or undefined. */
  compare: (got: unknown, expect: E) => string | undefined;
  /** An optional second check of accepted cases; returns its problem, or undefined. */
  extra?: { every: number; check: (buf: Buffer, caseIndex: number) => string | undefined };
}

/** The case loop: every case decodes or fails acceptably, and pristine ones decode exactly. */
export function runCases<E>(cfg: FuzzRunConfig, plan: { total: number; planFor: (i: number) => CasePlan<E> }, checks: CaseChecks<E>): FuzzResult {
  const progress = new Int32Array(cfg.progress);
  const outcomes: { [k: string]: number } = {};
  const categories: { [k: string]: number } = {};
  const failures: FuzzFailure[] = [];
  let failureCount = 0;
  let slowestCaseMs = 0;
  let slowestCase = '';
  let extraCases = 0;
  const t0 = performance.now();
  let cases = 0;
  const from = cfg.onlyCase >= 0 ? cfg.onlyCase : 0;
  const to = cfg.onlyCase >= 0 ? cfg.onlyCase + 1 : plan.total;
  for (let i = from; i < to; i++) {
    Atomics.store(progress, 0, i);
    const { category, make } = plan.planFor(i);
    const rng = new Rng(caseSeed(cfg.seed, i, checks.salt));
    let buf: Buffer | undefined;
    let problem: string | undefined;
    const c0 = performance.now();
    try {
      const made = make(rng);
      buf = made.buf;
      const mode = made.expect ? rng.int(2) : rng.int(3);
      try {
        const got = checks.exercise(buf, mode);
        outcomes.decoded = (outcomes.decoded ?? 0) + 1;
        if (made.expect) problem = checks.compare(got, made.expect);
      } catch (err) {
        problem = judge(err, buf.length);
        if (made.expect && problem === undefined) problem = `a pristine ${checks.noun} failed to decode: ${(err as Error).message}`;
        const key = err instanceof KafkaliteError ? err.code : 'OTHER';
        outcomes[key] = (outcomes[key] ?? 0) + 1;
      }
      if (problem === undefined && checks.extra && i % checks.extra.every === 0) {
        extraCases++;
        problem = checks.extra.check(buf, i);
      }
    } catch (err) {
      problem = `test harness error: ${(err as Error).stack}`;
    }
    const dt = performance.now() - c0;
    if (dt > slowestCaseMs) {
      slowestCaseMs = dt;
      slowestCase = `${i} (${category})`;
    }
    categories[category] = (categories[category] ?? 0) + 1;
    cases++;
    Atomics.store(progress, 1, cases);
    if (problem !== undefined) {
      failureCount++;
      if (failures.length < 25) {
        failures.push({
          seed: cfg.seed,
          caseIndex: i,
          category,
          problem,
          inputHex: buf ? toHex(buf.subarray(0, 300)) : '',
          inputLength: buf?.length ?? -1,
        });
      }
    }
  }
  return { cases, planned: to - from, ms: performance.now() - t0, outcomes, categories, failures, failureCount, slowestCaseMs, slowestCase, extraCases };
}

/**
 * Runs a fuzz worker (it posts a FuzzResult) under a watchdog: no case finishing for `stallMs`
 * (a hang, not a slow machine: one case takes milliseconds) terminates it and fails with the case
 * to replay. Then reports the run and asserts every planned case ran and none failed.
 */
export async function runFuzzWorker(
  t: TestContext,
  options: { label: string; workerUrl: URL; cfg: FuzzRunConfig & object; stallMs: number },
): Promise<FuzzResult> {
  const { label, cfg } = options;
  const seed = cfg.seed;
  const view = new Int32Array(cfg.progress);
  const worker = new Worker(options.workerUrl, { workerData: cfg });
  const result = await new Promise<FuzzResult>((resolve, reject) => {
    let lastDone = -1;
    let lastChange = Date.now();
    const timer = setInterval(() => {
      const done = Atomics.load(view, 1);
      if (done !== lastDone) {
        lastDone = done;
        lastChange = Date.now();
      }
      if (Date.now() - lastChange > options.stallMs) {
        clearInterval(timer);
        const at = Atomics.load(view, 0);
        void worker.terminate();
        reject(
          new Error(
            `${label} hung at case ${at} after ${done} cases (seed ${seed}); ` +
              `replay: KAFKALITE_FUZZ_SEED=${seed} KAFKALITE_FUZZ_CASE=${at}`,
          ),
        );
      }
    }, 250);
    worker.once('message', (m: FuzzResult) => {
      clearInterval(timer);
      resolve(m);
    });
    worker.once('error', (err) => {
      clearInterval(timer);
      reject(new Error(`${label} worker crashed at case ${Atomics.load(view, 0)} (seed ${seed}): ${err.stack}`));
    });
  });
  await worker.terminate();

  t.diagnostic(`seed ${seed}: ${result.cases} cases (${result.extraCases} with the extra check) in ${(result.ms / 1000).toFixed(1)} s`);
  t.diagnostic(`outcomes ${JSON.stringify(result.outcomes)}`);
  t.diagnostic(`categories ${JSON.stringify(result.categories)}`);
  t.diagnostic(`slowest case ${result.slowestCase}: ${result.slowestCaseMs.toFixed(1)} ms`);
  const report = result.failures
    .map(
      (f) =>
        `- case ${f.caseIndex} [${f.category}] seed ${f.seed}: ${f.problem}\n  input (${f.inputLength} bytes, first 300): ${f.inputHex}` +
        `\n  replay: KAFKALITE_FUZZ_SEED=${f.seed} KAFKALITE_FUZZ_CASE=${f.caseIndex}`,
    )
    .join('\n');
  assert.equal(result.failureCount, 0, `${result.failureCount} failing ${label} cases (seed ${seed}); first ${result.failures.length}:\n${report}`);
  assert.equal(result.cases, result.planned, `${label}: ${result.cases} of ${result.planned} planned cases ran`);
  return result;
}

/** Cases whose category is under a prefix (a codec: `gzip`, or `truncate-every-position`). */
export function casesOfCategory(result: FuzzResult, prefix: string): number {
  return Object.entries(result.categories)
    .filter(([k]) => k.startsWith(prefix + '/'))
    .reduce((s, [, v]) => s + v, 0);
}
