/**
 * Preloaded into a broker by bench/request-path.ts and test/v8/map-anchors.test.ts (`--expose-gc --import`): SIGUSR2 runs a full
 * (mark-compact) collection, as V8's memory reducer does by itself once a broker goes idle. That is
 * the collection after which V8 drops optimized code whose embedded hidden classes (maps) or objects
 * died ("marking dependent code ... reason: weak objects" under --trace-deopt).
 */
process.on('SIGUSR2', () => {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc === undefined) throw new Error('gc-on-signal needs node --expose-gc');
  gc();
  process.stdout.write('[gc-on-signal: full collection done]\n');
});
