/**
 * Binary min-heap of (id, key) in parallel typed arrays, reused across searches (`clear()` keeps
 * the storage). Duplicate ids are allowed (lazy decrease-key); callers skip stale entries.
 */
export class MinHeap {
  private ids: Int32Array;
  private keys: Float64Array;
  length = 0;

  constructor(capacity = 1024) {
    this.ids = new Int32Array(capacity);
    this.keys = new Float64Array(capacity);
  }

  /** Empties the heap without releasing storage. */
  clear(): void {
    this.length = 0;
  }

  /** Adds id with priority key. */
  push(id: number, key: number): void {
    if (this.length === this.ids.length) {
      const ids = new Int32Array(this.ids.length * 2);
      ids.set(this.ids);
      const keys = new Float64Array(this.keys.length * 2);
      keys.set(this.keys);
      this.ids = ids;
      this.keys = keys;
    }
    let pos = this.length++;
    const ids = this.ids;
    const keys = this.keys;
    while (pos > 0) {
      const parent = (pos - 1) >> 1;
      const pk = keys[parent];
      if (key >= pk) break;
      ids[pos] = ids[parent];
      keys[pos] = pk;
      pos = parent;
    }
    ids[pos] = id;
    keys[pos] = key;
  }

  /** Smallest key (undefined behaviour when empty). */
  peekKey(): number {
    return this.keys[0];
  }

  /** Removes and returns the id with the smallest key; its key is available via `lastKey`. */
  pop(): number {
    const ids = this.ids;
    const keys = this.keys;
    const top = ids[0];
    this.lastKey = keys[0];
    const n = --this.length;
    if (n > 0) {
      const id = ids[n];
      const key = keys[n];
      let pos = 0;
      const half = n >> 1;
      while (pos < half) {
        let child = 2 * pos + 1;
        const right = child + 1;
        if (right < n && keys[right] < keys[child]) child = right;
        if (keys[child] >= key) break;
        ids[pos] = ids[child];
        keys[pos] = keys[child];
        pos = child;
      }
      ids[pos] = id;
      keys[pos] = key;
    }
    return top;
  }

  /** key of the last popped id */
  lastKey = 0;
}
