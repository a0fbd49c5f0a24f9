/**
 * `kafkalite serve` as a child process whose stdout is kept whole, for the benches and tests that
 * read what the broker prints after it listens: V8's traces (`--trace-opt`, `--trace-deopt`,
 * `--trace-gc-nvp`) and the markers of a preload (test/helpers/gc-on-signal.ts). bench/child.ts's
 * spawnListening is for peers that read stdin and whose later lines nobody needs.
 */
import { spawn, type ChildProcessByStdio } from 'node:child_process';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { REPO_ROOT } from './paths.js';

export interface ServeChildOptions {
  /** Node's flags, before the script (`--trace-opt`, `--expose-gc`, `--import <preload>`). */
  nodeFlags?: string[];
  /** The bin/kafkalite.js to run (another build's, for an A/B); this repository's by default. */
  bin?: string;
  env?: NodeJS.ProcessEnv;
}

export interface ServeChild {
  child: ChildProcessByStdio<null, Readable, null>;
  /** Its port, once it printed its listening line; rejects, with its stdout, if it exits first. */
  listening: Promise<number>;
  /** Everything it printed on stdout so far. */
  stdout(): string;
  /** Resolves once its stdout from character `from` on holds `marker`; rejects if it exits first. */
  waitFor(marker: string, from: number): Promise<void>;
  /** SIGTERM; resolves once it exited (at once if it already had). */
  stop(): Promise<void>;
}

/** `node <nodeFlags> <bin> serve --port 0 --data-dir <dataDir> --log-level warn`, stderr inherited. */
export function spawnServe(dataDir: string, options: ServeChildOptions = {}): ServeChild {
  const bin = options.bin ?? join(REPO_ROOT, 'bin', 'kafkalite.js');
  const child = spawn(process.execPath, [...(options.nodeFlags ?? []), bin, 'serve', '--port', '0', '--data-dir', dataDir, '--log-level', 'warn'], {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: options.env,
  });
  let out = '';
  // 'close', not 'exit': the last of its stdout may still be read after the process exited
  let closed = false;
  child.once('close', () => (closed = true));
  child.stdout.setEncoding('utf8');
  const listening = new Promise<number>((resolve, reject) => {
    let found = false;
    child.stdout.on('data', (d: string) => {
      out += d;
      if (found) return; // the traces go on for megabytes: no search through them once it listens
      // the port's end must have arrived too: a read can stop inside it (`...:43` then `210 (data`)
      const m = /listening on [^:\n]+:(\d+)\D/.exec(out);
      if (m) {
        found = true;
        resolve(Number(m[1]));
      }
    });
    child.once('close', (code, signal) => reject(new Error(`kafkalite serve exited (${code ?? signal}) before listening; its stdout:\n${out}`)));
    child.once('error', reject);
  });
  const stop = (): Promise<void> =>
    new Promise((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve();
      child.once('exit', () => resolve());
      child.kill('SIGTERM');
    });
  const waitFor = (marker: string, from: number): Promise<void> =>
    new Promise((resolve, reject) => {
      const done = (): boolean => {
        if (!out.includes(marker, from)) return false;
        child.stdout.off('data', onData);
        child.off('close', onClose);
        resolve();
        return true;
      };
      const onData = (): void => void done();
      const onClose = (code: number | null, signal: NodeJS.Signals | null): void => {
        child.stdout.off('data', onData);
        if (!done()) reject(new Error(`kafkalite serve exited (${code ?? signal}) before it printed ${marker}`));
      };
      if (done()) return;
      if (closed) return reject(new Error(`kafkalite serve had exited before it printed ${marker}`));
      child.stdout.on('data', onData);
      child.once('close', onClose);
    });
  return { child, listening, stdout: () => out, waitFor, stop };
}
