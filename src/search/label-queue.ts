/**
 * The queue an `EdgeSearch` settles its labels from, and a binary-heap implementation of it.
 * `BucketQueue` (`bucket-queue.ts`) is the other: routing's, which pops within a bucket width of
 * the minimum. Both allow duplicate ids (lazy decrease-key): the search skips an entry whose key
 * is not its label's latest (`lastKey`).
 */

/** A min-queue of label ids by key. */
export interface LabelQueue {
  /** entries in the queue, stale ones included */
  readonly length: number;
  /** key of the last popped id */
  readonly lastKey: number;
  /** Adds id with priority key. */
  push(id: number, key: number): void;
  /** Removes and returns an id of least key (sets `lastKey`); only when `length` > 0. */
  pop(): number;
  /** A lower bound of every key in the queue; only when `length` > 0. */
  peekKey(): number;
  /** Empties the queue without releasing storage. */
  clear(): void;
}

/**
 * Exact binary min-heap on typed arrays: pops strictly in key order, ties broken exactly as the
 * `flatqueue` package breaks them (the same comparisons in the same order), which is what
 * matching's distances and the simulator's routes were defined with.
 */
export class HeapQueue implements LabelQueue {
  private ids = new Int32Array(1024);
  private keys = new Float64Array(1024);
  length = 0;
  lastKey = 0;

  push(id: number, key: number): void {
    if (this.length === this.ids.length) this.grow();
    const ids = this.ids;
    const keys = this.keys;
    let pos = this.length++;
    while (pos > 0) {
      const parent = (pos - 1) >> 1;
      const parentKey = keys[parent];
      if (key >= parentKey) break;
      ids[pos] = ids[parent];
      keys[pos] = parentKey;
      pos = parent;
    }
    ids[pos] = id;
    keys[pos] = key;
  }

  pop(): number {
    const ids = this.ids;
    const keys = this.keys;
    const top = ids[0];
    this.lastKey = keys[0];
    const last = --this.length;
    if (last > 0) {
      const id = ids[last];
      const key = keys[last];
      let pos = 0;
      const halfLen = last >> 1;
      while (pos < halfLen) {
        const left = (pos << 1) + 1;
        const right = left + 1;
        const child = right < last && keys[right] < keys[left] ? right : left;
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

  peekKey(): number {
    return this.keys[0];
  }

  clear(): void {
    this.length = 0;
  }

  /** Doubles the storage. */
  private grow(): void {
    const ids = new Int32Array(this.ids.length * 2);
    ids.set(this.ids);
    const keys = new Float64Array(this.keys.length * 2);
    keys.set(this.keys);
    this.ids = ids;
    this.keys = keys;
  }
}
