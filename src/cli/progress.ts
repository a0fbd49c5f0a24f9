/**
 * A progress bar on stderr for long CLI operations (verify, recover, stats, large dumps).
 *
 * Drawn only when stderr is a terminal: when it is a pipe or a file, scripts read stderr for
 * error lines, so nothing extra is written there. Redraws are throttled (a dump of a 1 GiB segment
 * reports millions of batches) and the line is cleared before anything else is printed.
 */
import type { WriteStream } from 'node:tty';
import { isTerminalStderr, type OutputTarget } from './output.js';

export interface ProgressSink {
  /** `done` of `total` bytes processed; `label` names the file or phase. */
  update(done: number, total: number, label?: string): void;
  /** Removes the bar (before printing a result or an error line). */
  clear(): void;
}

/** The sink used when stderr is not a terminal: does nothing. */
export const NO_PROGRESS: ProgressSink = { update() {}, clear() {} };

const REDRAW_MS = 100;
const BAR_WIDTH = 30;

export class ProgressBar implements ProgressSink {
  private lastDraw = 0;
  private drawn = false;

  constructor(
    private readonly stream: Pick<WriteStream, 'write' | 'columns'>,
    private readonly now: () => number = Date.now,
  ) {}

  update(done: number, total: number, label = ''): void {
    const t = this.now();
    if (this.drawn && t - this.lastDraw < REDRAW_MS && done < total) return;
    this.lastDraw = t;
    const ratio = total > 0 ? Math.min(1, done / total) : 1;
    const filled = Math.round(ratio * BAR_WIDTH);
    let line = `[${'#'.repeat(filled)}${' '.repeat(BAR_WIDTH - filled)}] ${(ratio * 100).toFixed(0).padStart(3)}% ${formatBytes(done)}/${formatBytes(total)} ${label}`;
    const width = this.stream.columns ?? 80;
    if (line.length > width - 1) line = line.slice(0, width - 1);
    this.stream.write(`\r${line}\x1b[K`);
    this.drawn = true;
  }

  clear(): void {
    if (!this.drawn) return;
    this.stream.write('\r\x1b[K');
    this.drawn = false;
  }
}

export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KiB`;
  if (n < 1024 * 1024 * 1024) return `${(n / 1024 / 1024).toFixed(1)} MiB`;
  return `${(n / 1024 / 1024 / 1024).toFixed(2)} GiB`;
}

/** A bar on `process.stderr` when `stderr` is it and it is a terminal, otherwise the silent sink. */
export function stderrProgress(stderr: OutputTarget = 2): ProgressSink {
  return isTerminalStderr(stderr) ? new ProgressBar(process.stderr) : NO_PROGRESS;
}
