/**
 * The benches' peers are child processes (a broker, librdkafka's mock, a null server) that print
 * the port they listen on: start one and wait for that line, and stop it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';

/** Spawns `cmd` and resolves with the port the first line matching `pattern` names (its group 1). */
export function spawnListening(name: string, cmd: string, args: string[], pattern: RegExp): Promise<{ child: ChildProcess; port: number }> {
  const child = spawn(cmd, args, { stdio: ['pipe', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    const lines = createInterface({ input: child.stdout! });
    lines.on('line', (line) => {
      const m = pattern.exec(line);
      if (m) resolve({ child, port: Number(m[1]) });
    });
    child.once('exit', (code) => reject(new Error(`${name} exited with ${code} before listening`)));
    child.once('error', reject);
  });
}

/** SIGTERM (and stdin closed, for the peers that stop on EOF); resolves once the child exited. */
export function stopChild(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.stdin?.end();
    child.kill('SIGTERM');
  });
}
