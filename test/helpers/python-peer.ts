/**
 * Running the Python peers of the interop tests (test/interop/py/*.py) under Debian's
 * /usr/bin/python3, which has python3-kafka and python3-confluent-kafka. (A `python3` earlier on
 * PATH may be another interpreter that cannot import Debian's modules.)
 *
 * Each script reads one JSON document on stdin and writes one on stdout. A missing interpreter,
 * a missing module, a non-zero exit or unparseable output throws: a missing peer fails the test,
 * it never skips it.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from './paths.js';
import { requirePeer } from './tier.js';

export const PYTHON = process.env.KAFKALITE_PYTHON ?? '/usr/bin/python3';
export const PY_DIR = join(REPO_ROOT, 'test', 'interop', 'py');

export interface RunPythonOptions {
  /** Kill the process after this many ms (default 120 s). */
  timeoutMs?: number;
}

/** Run `test/interop/py/<script>` with `input` as JSON on stdin; returns its stdout parsed as JSON. */
export function runPython<T = unknown>(script: string, input: unknown, options: RunPythonOptions = {}): T {
  requirePeer(`python3 (${script})`);
  const path = join(PY_DIR, script);
  if (!existsSync(PYTHON)) throw new Error(`interop peer missing: ${PYTHON} does not exist`);
  if (!existsSync(path)) throw new Error(`interop script missing: ${path}`);
  const res = spawnSync(PYTHON, [path], {
    input: JSON.stringify(input),
    cwd: PY_DIR,
    encoding: 'utf8',
    maxBuffer: 1024 * 1024 * 1024,
    timeout: options.timeoutMs ?? 120_000,
    env: { ...process.env, PYTHONDONTWRITEBYTECODE: '1', PYTHONIOENCODING: 'utf-8' },
  });
  if (res.error) throw new Error(`${script}: could not run ${PYTHON}: ${res.error.message}\n${res.stderr ?? ''}`);
  if (res.status !== 0) {
    throw new Error(`${script} exited with ${res.status ?? res.signal}:\n${res.stderr}`);
  }
  try {
    return JSON.parse(res.stdout) as T;
  } catch (err) {
    throw new Error(`${script} printed non-JSON output (${(err as Error).message}):\n${res.stdout.slice(0, 2000)}\n${res.stderr}`);
  }
}

export function hex(b: Uint8Array | null | undefined): string | null {
  return b === null || b === undefined ? null : Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('hex');
}

export function unhex(s: string | null): Buffer | null {
  return s === null ? null : Buffer.from(s, 'hex');
}

/**
 * `runPython` without blocking the event loop: for scripts that talk to a broker running in this
 * same process (a synchronous child would stall the broker it is waiting for).
 */
export async function runPythonAsync<T = unknown>(script: string, input: unknown, options: RunPythonOptions = {}): Promise<T> {
  requirePeer(`python3 (${script})`);
  const path = join(PY_DIR, script);
  if (!existsSync(PYTHON)) throw new Error(`interop peer missing: ${PYTHON} does not exist`);
  if (!existsSync(path)) throw new Error(`interop script missing: ${path}`);
  const res = await runCommand(PYTHON, [path], {
    input: JSON.stringify(input),
    cwd: PY_DIR,
    timeoutMs: options.timeoutMs ?? 120_000,
    env: { ...process.env, PYTHONDONTWRITEBYTECODE: '1', PYTHONIOENCODING: 'utf-8' },
  });
  if (res.code !== 0) throw new Error(`${script} exited with ${res.code ?? res.signal}:\n${res.stderr.toString()}`);
  try {
    return JSON.parse(res.stdout.toString('utf8')) as T;
  } catch (err) {
    throw new Error(`${script} printed non-JSON output (${(err as Error).message}):\n${res.stdout.toString().slice(0, 2000)}\n${res.stderr.toString()}`);
  }
}

export interface CommandResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: Buffer;
  stderr: Buffer;
}

/**
 * Runs a program asynchronously, feeding `input` on stdin; kills it after `timeoutMs`. A missing
 * program throws; so does any program but this Node in the unit tier (kcat, Node 22 are peers).
 */
export function runCommand(
  file: string,
  args: string[],
  options: { input?: string | Buffer; cwd?: string; env?: NodeJS.ProcessEnv; timeoutMs?: number } = {},
): Promise<CommandResult> {
  if (file !== process.execPath) requirePeer(file);
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, { cwd: options.cwd, env: options.env ?? process.env, stdio: ['pipe', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (c: Buffer) => out.push(c));
    child.stderr.on('data', (c: Buffer) => err.push(c));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 120_000);
    child.on('error', (e) => {
      clearTimeout(timer);
      reject(new Error(`could not run ${file}: ${e.message}`));
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout: Buffer.concat(out), stderr: Buffer.concat(err) });
    });
    child.stdin.on('error', () => {});
    child.stdin.end(options.input ?? '');
  });
}
