/**
 * Loaded into a broker with `node --import dist/bench/heap-sampling.js` by bench/request-heap.ts:
 * the first SIGUSR2 starts V8's sampling heap profiler with the objects already collected kept in
 * the profile (every allocation, not only what is still alive), the second stops it and writes the
 * profile to KAFKALITE_HEAP_PROFILE_OUT (JSON, the inspector's SamplingHeapProfile).
 */
import { Session } from 'node:inspector';
import { writeFileSync } from 'node:fs';

const out = process.env.KAFKALITE_HEAP_PROFILE_OUT;
const interval = Number(process.env.KAFKALITE_HEAP_PROFILE_INTERVAL ?? 256);
const session = new Session();
session.connect();
let sampling = false;
process.on('SIGUSR2', () => {
  if (!sampling) {
    sampling = true;
    session.post('HeapProfiler.startSampling', { samplingInterval: interval, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true });
    return;
  }
  sampling = false;
  session.post('HeapProfiler.stopSampling', (err, result) => {
    if (err !== null || out === undefined) return;
    writeFileSync(out, JSON.stringify(result.profile));
  });
});
