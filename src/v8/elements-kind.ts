/**
 * Empty arrays created in the elements kind they will keep.
 *
 * V8 stores an array's elements by kind: small integers, doubles, or any value. A fresh `[]` is
 * the small-integer kind and moves to another at its first push of something else. Optimized code
 * that only ever saw such an array after its move deoptimizes ('not a Smi') when a newer `[]` (a
 * new connection's) still has the first kind: per new client, the broker's read path went back to
 * unoptimized code (`node dist/bench/request-path.js`, bench/README.md). Kinds only widen, so an
 * array made with one element of its final kind and emptied keeps that kind for good.
 */

/** An empty array in the kind that holds any value (objects, functions, Buffers). */
export function objectArray<T>(): T[] {
  const a: (T | undefined)[] = [undefined];
  a.length = 0;
  return a as T[];
}

/** An empty array in the double kind (times from performance.now()). */
export function doubleArray(): number[] {
  const a = [0.5];
  a.length = 0;
  return a;
}
