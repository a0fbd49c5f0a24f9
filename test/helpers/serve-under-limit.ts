/**
 * `kafkalite serve` as a child whose RLIMIT_NOFILE is lowered (`ulimit -n`, for the child only), for
 * the tests that prove the descriptor budget: the broker must serve, and load, more partitions than
 * its process may open files.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { join } from 'node:path';
import { REPO_ROOT } from './paths.js';

export interface Served {
  child: ChildProcessWithoutNullStreams;
  port: number;
  exited: Promise<number | null>;
  stderr: () => string;
}

/**
 * Starts it and resolves once it listens. When it exits first, rejects with an Error naming its exit
 * code and stderr, carrying `code`, `stderr` and `stdout` for the tests that check a refusal.
 */
export async function serveUnderLimit(dataDir: string, nofile: number, extra: string[] = []): Promise<Served> {
  const child = spawn(
    'bash',
    ['-c', `ulimit -n ${nofile} && exec "$0" "$@"`, process.execPath, join(REPO_ROOT, 'bin', 'kafkalite.js'), 'serve', '--port', '0', '--data-dir', dataDir, ...extra],
    { stdio: ['pipe', 'pipe', 'pipe'] },
  );
  let stdout = '';
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const port = await new Promise<number>((resolve, reject) => {
    child.stdout.on('data', (d: Buffer) => {
      stdout += d.toString();
      const m = /listening on [^:]+:(\d+)/.exec(stdout);
      if (m) resolve(Number(m[1]));
    });
    void exited.then((code) => reject(Object.assign(new Error(`serve exited ${code} before listening: ${stderr}`), { code, stderr, stdout })));
  });
  return { child, port, exited, stderr: () => stderr };
}
