import { readFileSync } from 'node:fs';

/** User + system CPU time of a process so far, every thread, in ms (/proc/<pid>/stat utime and stime, in clock ticks of 10 ms). */
export function cpuMsOf(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}
