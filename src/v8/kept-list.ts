/**
 * A list (and FIFO) that keeps its array's memory when emptied.
 *
 * V8 gives back an array's element store whenever its length reaches 0 (`length = 0`, the last
 * `pop` or `shift`), so a list refilled on every request allocates a new store (17 slots, 152 B)
 * each time: the connection's per-request lists were a third of its own allocations (sampling heap
 * profile, bench/README.md). Here emptied slots are overwritten with `empty` (nothing they held is
 * kept alive) and the store stays; the store is created in its final elements kind (elements-kind.ts).
 */
export class KeptList<T> {
  /** items[head, end) are the list. */
  private head = 0;
  private end = 0;

  constructor(
    private readonly items: T[],
    /** What an emptied slot holds: a value that keeps nothing alive (undefined, 0, a shared constant). */
    private readonly empty: T,
  ) {}

  get length(): number {
    return this.end - this.head;
  }

  push(item: T): void {
    if (this.end < this.items.length) this.items[this.end] = item;
    else this.items.push(item);
    this.end++;
  }

  /** The i-th item (0 is the first); `empty` outside the list. */
  get(i: number): T {
    return i >= 0 && i < this.end - this.head ? this.items[this.head + i]! : this.empty;
  }

  /** Takes the first item (`empty` when there is none). */
  shift(): T {
    if (this.head === this.end) return this.empty;
    const item = this.items[this.head]!;
    this.items[this.head++] = this.empty;
    if (this.head === this.end) {
      this.head = 0;
      this.end = 0;
    } else if (this.head >= 32 && this.head * 2 >= this.end) {
      this.compact();
    }
    return item;
  }

  /** Drops the first n items (all of them when n >= length). */
  dropFirst(n: number): void {
    const k = Math.min(n, this.end - this.head);
    for (let i = 0; i < k; i++) this.items[this.head + i] = this.empty;
    this.head += k;
    if (this.head === this.end) {
      this.head = 0;
      this.end = 0;
    } else {
      this.compact();
    }
  }

  /** Drops the last item (none when empty). */
  dropLast(): void {
    if (this.end === this.head) return;
    this.items[--this.end] = this.empty;
    if (this.head === this.end) {
      this.head = 0;
      this.end = 0;
    }
  }

  clear(): void {
    this.dropFirst(this.end - this.head);
  }

  /** Moves the items to the start of the store: a FIFO never emptied would otherwise grow without bound. */
  private compact(): void {
    const n = this.end - this.head;
    for (let i = 0; i < n; i++) {
      this.items[i] = this.items[this.head + i]!;
      this.items[this.head + i] = this.empty;
    }
    this.head = 0;
    this.end = n;
  }
}
