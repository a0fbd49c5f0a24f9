/**
 * A secret given as a file (`--password-file`, `--ui-password-file`), so it stays off the command
 * line that `ps` shows, as Kafka's tools take `--command-config` files rather than passwords in
 * arguments. Its first line is the password.
 */
import { readFileSync } from 'node:fs';

export function readPasswordFile(option: string, path: string | undefined): string | { error: string } {
  if (path === undefined) return { error: `${option} needs a file` };
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e) {
    return { error: `${option}: cannot read ${path} (${(e as NodeJS.ErrnoException).code ?? 'error'})` };
  }
  const password = text.split(/\r?\n/, 1)[0] ?? '';
  return password === '' ? { error: `${option}: ${path} holds no password on its first line` } : password;
}
