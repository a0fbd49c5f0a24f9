/**
 * Child of the cleaner crash test: builds the workload's log in `<dir>`, prints `ready`, runs the
 * final cleaning round, prints `done` and waits to be killed.
 */
import { buildBeforeFinalRound } from './crash-workload.js';

const [dir, variant] = process.argv.slice(2);
if (!dir || variant === undefined) throw new Error('usage: crash-child <dir> <variant>');
const h = buildBeforeFinalRound(dir, Number(variant));
process.stdout.write('ready\n');
h.cleaner.compact(h.log);
process.stdout.write('done\n');
setInterval(() => {}, 1000);
