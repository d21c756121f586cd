/**
 * 4-ary min-heap of (id, key) in parallel typed arrays, reused across searches (`clear()` keeps
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
      const parent = (pos - 1) >> 2;
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
      for (;;) {
        // 4-ary: children 4p+1 … 4p+4 (shallower than binary, siblings share a cache line)
        const c0 = 4 * pos + 1;
        if (c0 >= n) break;
        let child = c0;
        let ck = keys[c0];
        const cEnd = c0 + 4 < n ? c0 + 4 : n;
        for (let c = c0 + 1; c < cEnd; c++) {
          const k = keys[c];
          if (k < ck) {
            ck = k;
            child = c;
          }
        }
        if (ck >= key) break;
        ids[pos] = ids[child];
        keys[pos] = ck;
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
