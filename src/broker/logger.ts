/**
 * The broker's log lines: one line each, to stderr, filtered by level (`--log-level`). Connections
 * and topic changes log at info, client-visible API errors at warn once per (api, error) a minute so
 * a client retrying in a loop cannot flood the output.
 */
export type LogLevel = 'debug' | 'info' | 'warn' | 'error' | 'silent';

const RANK: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 };

export interface Logger {
  readonly level: LogLevel;
  debug(message: string): void;
  info(message: string): void;
  warn(message: string): void;
  error(message: string): void;
  /** Logs at warn at most once per `key` per minute. */
  warnThrottled(key: string, message: string): void;
}

export function isLogLevel(s: string): s is LogLevel {
  return s in RANK;
}

export function createLogger(level: LogLevel, sink: (line: string) => void = (line) => process.stderr.write(`${line}\n`)): Logger {
  const lastWarned = new Map<string, number>();
  const emit = (l: LogLevel, message: string): void => {
    if (RANK[l] < RANK[level]) return;
    sink(`[${new Date().toISOString()}] ${l.toUpperCase()} ${message}`);
  };
  return {
    level,
    debug: (m) => emit('debug', m),
    info: (m) => emit('info', m),
    warn: (m) => emit('warn', m),
    error: (m) => emit('error', m),
    warnThrottled(key, message) {
      if (RANK.warn < RANK[level]) return;
      const now = Date.now();
      const last = lastWarned.get(key);
      if (last !== undefined && now - last < 60_000) return;
      if (lastWarned.size > 1000) lastWarned.clear();
      lastWarned.set(key, now);
      emit('warn', message);
    },
  };
}
