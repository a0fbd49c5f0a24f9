/**
 * One live instance of each short-lived class of the request path, kept for the process's life.
 *
 * V8's optimized code checks the hidden class (map) of the objects it handles and holds those maps
 * weakly. A class instance's map is a leaf of its constructor's transition tree, and transitions
 * are weak too: when no instance is alive at a full (mark-compact) collection, the map dies, and
 * V8 drops every optimized function that embedded it ("marking dependent code ... reason: weak
 * objects" under --trace-deopt). The request path's objects (batches, readers, records, producer
 * state steps) live for one request, so the full collection V8's memory reducer runs once a broker goes idle
 * found none of them alive and threw away about 50 optimized functions of the path; the next
 * client's first few thousand requests then ran in the interpreter while they compiled again, and
 * that re-compilation was the round-trip p99 a test suite sees, as it starts clients one after
 * another (issue 24; `node dist/bench/request-path.js` counts the dropped functions).
 *
 * An anchor is built the way the request path builds its instances (same constructor, same field
 * kinds), so it shares their map and keeps it, and the code that checks it, alive. It holds small
 * buffers only. Where a class cannot be built apart from its context (a connection, a validation),
 * a {@link LatestInstance} keeps the last one the broker used instead, with what it references
 * (at most one closed connection, one append's producer-state step and marker record). Objects
 * the path reuses from one request to the next (the codec's cursor and writer, the validator) keep
 * their classes alive themselves.
 */
const anchors: object[] = [];

/** Keeps `instance` (and so its hidden class) alive for the process's life; returns it. */
export function anchorHiddenClass<T extends object>(instance: T): T {
  anchors.push(instance);
  return instance;
}

/** Keeps the last instance it was given (and its hidden class) alive until the next one. */
export class LatestInstance<T extends object> {
  private instance: T | undefined = undefined;

  constructor() {
    anchors.push(this);
  }

  keep(instance: T): void {
    this.instance = instance;
  }

  get kept(): T | undefined {
    return this.instance;
  }

  clear(): void {
    this.instance = undefined;
  }
}

// Node's own per-request objects on the path: an Immediate (setImmediate's, the end-of-turn flush)
anchorHiddenClass(clearedImmediate());

function clearedImmediate(): object {
  const immediate = setImmediate(() => {});
  clearImmediate(immediate);
  return immediate;
}

/** The anchored instances (tests compare their hidden classes with the request path's). */
export function anchoredInstances(): readonly object[] {
  return anchors;
}
