/**
 * Child of the cleaner crash test: builds the workload's log in `<dir>`, prints `ready`, runs the
 * final cleaning round, prints `done` and waits to be killed. With a third argument k, it kills
 * itself (SIGKILL) at the round's k-th progress step instead: a kill at a known point of the
 * round, whatever the machine's speed.
 */
import { buildBeforeFinalRound } from './crash-workload.js';

const [dir, variant, selfKillAt] = process.argv.slice(2);
if (!dir || variant === undefined) throw new Error('usage: crash-child <dir> <variant> [selfKillAtStep]');
const h = buildBeforeFinalRound(dir, Number(variant));
process.stdout.write('ready\n');
let step = 0;
h.cleaner.compact(h.log, () => {
  step++;
  if (selfKillAt !== undefined && step === Number(selfKillAt)) process.kill(process.pid, 'SIGKILL');
});
process.stdout.write('done\n');
setInterval(() => {}, 1000);
