/**
 * Running `kafkalite` in a test: in this process (`runCli`: `main()` with sinks that keep its
 * stdout and stderr, no Node start per case, which cost 0.3-1.5 s of CPU each), or as the built
 * binary (`spawnCli`: a child `node bin/kafkalite.js`, proving the real exit code and streams; one
 * such run per CLI test file).
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { main } from '../../src/cli/main.js';
import type { OutputSink } from '../../src/cli/output.js';
import { REPO_ROOT } from './paths.js';

export const BIN = join(REPO_ROOT, 'bin', 'kafkalite.js');

/** What a run left: its exit code and the text of its two streams (spawnSync's names). */
export interface CliRun {
  status: number | null;
  stdout: string;
  stderr: string;
}

class Capture implements OutputSink {
  private readonly chunks: Buffer[] = [];
  write(bytes: Uint8Array): void {
    this.chunks.push(Buffer.from(bytes));
  }
  text(): string {
    return Buffer.concat(this.chunks).toString('utf8');
  }
}

/** `kafkalite <argv>` in this process, for the commands that finish (all but serve and ui). */
export function runCli(...argv: string[]): CliRun {
  const stdout = new Capture();
  const stderr = new Capture();
  const status = main(argv, { stdout, stderr });
  if (typeof status !== 'number') throw new Error(`kafkalite ${argv.join(' ')} does not finish by itself: spawn it`);
  return { status, stdout: stdout.text(), stderr: stderr.text() };
}

/** `node bin/kafkalite.js <argv>` as a child process. */
export function spawnCli(...argv: string[]): CliRun {
  return spawnSync(process.execPath, [BIN, ...argv], { encoding: 'utf8' });
}
