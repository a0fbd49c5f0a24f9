/**
 * One-line error reports for the CLI: bad input never prints a stack trace. A KafkaliteError
 * already says what was expected, what was found and at which byte (`(at byte N)`); the line adds
 * the file it was found in and the machine code. Only unexpected failures (bugs) escape.
 */
import { KafkaliteError } from '../errors.js';

/** File-system failures a user causes (missing file, a directory where a file was expected...). */
const USER_FS_ERRORS = new Set(['ENOENT', 'EISDIR', 'ENOTDIR', 'EACCES', 'EPERM', 'ELOOP', 'ENAMETOOLONG']);

/** `Error: <file>: <message> [CODE]`, or undefined when `e` is not an input error. */
export function cliErrorLine(e: unknown, file?: string): string | undefined {
  const where = file !== undefined ? `${file}: ` : '';
  if (e instanceof KafkaliteError) {
    // messages that already name the file are not prefixed twice
    const prefix = file !== undefined && e.message.includes(file) ? '' : where;
    return `Error: ${prefix}${e.message} [${e.code}]`;
  }
  const code = (e as NodeJS.ErrnoException | undefined)?.code;
  if (code !== undefined && USER_FS_ERRORS.has(code)) return `Error: ${(e as Error).message}`;
  return undefined;
}
