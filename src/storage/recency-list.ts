/**
 * Keys in recency order with a value each, for the storage budgets' least-recently-used eviction
 * (descriptor-budget.ts, index-cache-budget.ts): a doubly linked list from the least to the most
 * recently used, with a Map from key to its node, so setting, using, removing and taking the oldest
 * are O(1) however many keys there are.
 *
 * (A Map or Set re-inserted on use keeps the same order, but the entries it deletes stay behind as
 * holes until it rehashes, and an eviction's walk from the oldest end steps over all of them again:
 * with many files closed under churn, each eviction became a walk over thousands of holes.)
 */
interface RecencyNode<K, V> {
  readonly key: K;
  value: V;
  /** Towards the least recently used end. */
  older: RecencyNode<K, V> | undefined;
  /** Towards the most recently used end. */
  newer: RecencyNode<K, V> | undefined;
}

export class RecencyList<K, V> {
  private readonly nodes = new Map<K, RecencyNode<K, V>>();
  private oldestNode: RecencyNode<K, V> | undefined;
  private newestNode: RecencyNode<K, V> | undefined;

  get size(): number {
    return this.nodes.size;
  }

  has(key: K): boolean {
    return this.nodes.has(key);
  }

  get(key: K): V | undefined {
    return this.nodes.get(key)?.value;
  }

  /** Sets `key`'s value and makes it the most recently used. */
  set(key: K, value: V): void {
    const node = this.nodes.get(key);
    if (node !== undefined) {
      node.value = value;
      this.moveToNewest(node);
      return;
    }
    const added: RecencyNode<K, V> = { key, value, older: undefined, newer: undefined };
    this.nodes.set(key, added);
    this.link(added);
  }

  /** Makes `key` the most recently used; false when it is not in the list. */
  touch(key: K): boolean {
    if (this.newestNode?.key === key) return true;
    const node = this.nodes.get(key);
    if (node === undefined) return false;
    this.moveToNewest(node);
    return true;
  }

  /** Removes `key`; returns its value, undefined when it was not in the list. */
  delete(key: K): V | undefined {
    const node = this.nodes.get(key);
    if (node === undefined) return undefined;
    this.unlink(node);
    this.nodes.delete(key);
    return node.value;
  }

  /** The least recently used key, undefined when empty. */
  oldest(): K | undefined {
    return this.oldestNode?.key;
  }

  /** The keys and values from the least to the most recently used. */
  *entries(): Generator<[K, V]> {
    for (let n = this.oldestNode; n !== undefined; n = n.newer) yield [n.key, n.value];
  }

  private moveToNewest(node: RecencyNode<K, V>): void {
    if (this.newestNode === node) return;
    this.unlink(node);
    this.link(node);
  }

  private unlink(node: RecencyNode<K, V>): void {
    if (node.older === undefined) this.oldestNode = node.newer;
    else node.older.newer = node.newer;
    if (node.newer === undefined) this.newestNode = node.older;
    else node.newer.older = node.older;
    node.older = undefined;
    node.newer = undefined;
  }

  private link(node: RecencyNode<K, V>): void {
    node.older = this.newestNode;
    node.newer = undefined;
    if (this.newestNode === undefined) this.oldestNode = node;
    else this.newestNode.newer = node;
    this.newestNode = node;
  }
}
