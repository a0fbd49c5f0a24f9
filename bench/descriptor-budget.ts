/**
 * The descriptor budget's least-recently-used list under churn (issue 21):
 * `node dist/bench/descriptor-budget.js [files] [budget] [steps]` runs `steps` random steps over
 * `files` holders (default 100,000, a budget of 10,000, 1,000,000 steps): a closed file is opened
 * (evicting the least recently used once the budget is full), an open one is used or, one time in
 * three, closed by its holder. Prints the time and CPU: every step should be O(1).
 */
import { DescriptorBudget, type DescriptorHolder } from '../src/storage/descriptor-budget.js';

const files = Number(process.argv[2] ?? 100_000);
const limit = Number(process.argv[3] ?? 10_000);
const steps = Number(process.argv[4] ?? 1_000_000);
const budget = new DescriptorBudget(limit);

class Holder implements DescriptorHolder {
  open = false;
  releaseDescriptor(): boolean {
    this.open = false;
    return true;
  }
}
const holders = Array.from({ length: files }, () => new Holder());
let seed = 12345;
const random = () => {
  seed ^= seed << 13;
  seed ^= seed >>> 17;
  seed ^= seed << 5;
  return (seed >>> 0) % files;
};
const began = performance.now();
const cpu = process.cpuUsage();
for (let i = 0; i < steps; i++) {
  const h = holders[random()]!;
  if (!h.open) {
    budget.open(() => 0);
    h.open = true;
    budget.opened(h);
  } else if (i % 3 === 0) {
    h.open = false;
    budget.closed(h);
  } else {
    budget.touch(h);
  }
}
const used = process.cpuUsage(cpu);
console.log(
  `${steps} steps over ${files} files, budget ${limit}: ${(performance.now() - began).toFixed(0)} ms, CPU ${((used.user + used.system) / 1000).toFixed(0)} ms, ${budget.evictions} evictions`,
);
