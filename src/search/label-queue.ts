/**
 * The queue an `EdgeSearch` settles its labels from, and a binary-heap implementation of it.
 * `BucketQueue` (`bucket-queue.ts`) is the other: routing's, which pops within a bucket width of
 * the minimum. Both allow duplicate ids (lazy decrease-key): the search skips an entry whose key
 * is not its label's latest (`lastKey`).
 */

import FlatQueue from 'flatqueue';

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
 * Exact binary min-heap: the `flatqueue` package's, so ties pop in the order matching's distances
 * and the simulator's routes were defined with (its plain arrays are faster here than a typed-array
 * copy of the same heap: matching's searches are many and short).
 */
export class HeapQueue implements LabelQueue {
  private readonly heap = new FlatQueue<number>();
  lastKey = 0;

  get length(): number {
    return this.heap.length;
  }

  push(id: number, key: number): void {
    this.heap.push(id, key);
  }

  pop(): number {
    this.lastKey = this.heap.peekValue() as number;
    return this.heap.pop() as number;
  }

  peekKey(): number {
    return this.heap.peekValue() as number;
  }

  clear(): void {
    this.heap.clear();
  }
}
