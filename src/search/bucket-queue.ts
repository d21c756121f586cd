/**
 * Priority queue for the A* labels: a window of buckets of width `width` (a bucket queue in the
 * manner of Dial's algorithm), with a 4-ary heap (`MinHeap`) for the keys beyond the window ("far") and one
 * for keys that arrive below the bucket being emptied ("low"). Push and pop are O(1) inside the
 * window; a bucket pops last in, first out, so ids pop in key order *up to one bucket width*.
 *
 * What the search relies on:
 * - `peekKey()` is a lower bound of every key in the queue (the low heap's minimum, else the
 *   floor of the first non-empty bucket, else the far heap's minimum), so stopping when it
 *   reaches the best target cost is exact;
 * - every pushed id pops once (lazy deletion: callers skip stale entries by their key).
 * Popping slightly out of order only means a label may be settled before a label that improves it
 * within one bucket width; the search reopens such labels, so answers stay exact.
 */
import { MinHeap } from './heap.js';

export class BucketQueue {
  private readonly slots: number;
  private readonly mask: number;
  private readonly inv: number;
  /** head entry per bucket slot; valid only where headStamp = stamp */
  private readonly head: Int32Array;
  private readonly headStamp: Uint32Array;
  private stamp = 1;
  /**
   * entry pool: id, key to single precision (a bucket's order needs no more; half the bytes of
   * a double per entry), next entry in the bucket (−1 = end)
   */
  private ids: Int32Array;
  private keys: Float32Array;
  private next: Int32Array;
  private used = 0;
  /** absolute bucket index of the cursor (floor(key / width)); set by the first finite key */
  private cur = 0;
  private started = false;
  private inWindow = 0;
  private readonly low = new MinHeap(256);
  private readonly far = new MinHeap(1024);
  /** key of the last popped id, to single precision (what callers compare it with: `Math.fround`) */
  lastKey = 0;

  constructor(
    /** bucket width in key units (seconds, or metres in shortest mode) */
    readonly width = 1 / 32,
    /** buckets in the window, a power of two */
    slots = 1 << 16,
    capacity = 1 << 14,
  ) {
    if (!(width > 0) || slots < 2 || (slots & (slots - 1)) !== 0)
      throw new Error('BucketQueue: width > 0 and a power-of-two slot count');
    this.slots = slots;
    this.mask = slots - 1;
    this.inv = 1 / width;
    this.head = new Int32Array(slots);
    this.headStamp = new Uint32Array(slots);
    this.ids = new Int32Array(capacity);
    this.keys = new Float32Array(capacity);
    this.next = new Int32Array(capacity);
  }

  /** Entries in the queue (stale ones included). */
  get length(): number {
    return this.inWindow + this.low.length + this.far.length;
  }

  /** Empties the queue without releasing storage; the window starts at the first key pushed. */
  clear(): void {
    if (++this.stamp === 0xffffffff) {
      this.headStamp.fill(0);
      this.stamp = 1;
    }
    this.used = 0;
    this.inWindow = 0;
    this.cur = 0;
    this.started = false;
    this.low.clear();
    this.far.clear();
  }

  /** Adds id with priority key (any finite number, or Infinity). */
  push(id: number, key: number): void {
    const a = Math.floor(key * this.inv);
    if (!this.started && a !== Infinity) {
      this.cur = a;
      this.started = true;
    }
    if (a < this.cur) {
      this.low.push(id, key);
      return;
    }
    if (a >= this.cur + this.slots || !this.started) {
      this.far.push(id, key);
      return;
    }
    if (this.used === this.ids.length) this.grow();
    const i = this.used++;
    this.ids[i] = id;
    this.keys[i] = key;
    const s = a & this.mask;
    this.next[i] = this.headStamp[s] === this.stamp ? this.head[s] : -1;
    this.head[s] = i;
    this.headStamp[s] = this.stamp;
    this.inWindow++;
  }

  /** A lower bound of every key in the queue (Infinity when empty). */
  peekKey(): number {
    if (this.low.length > 0) return this.low.peekKey();
    if (!this.advance()) return Infinity;
    return this.inWindow > 0 ? this.cur * this.width : this.far.peekKey();
  }

  /** Removes and returns an id of the first non-empty bucket (last in, first out); its key is `lastKey`. */
  pop(): number {
    if (this.low.length > 0) {
      const id = this.low.pop();
      this.lastKey = Math.fround(this.low.lastKey);
      return id;
    }
    if (!this.advance() || this.inWindow === 0) {
      const id = this.far.pop();
      this.lastKey = Math.fround(this.far.lastKey);
      return id;
    }
    const s = this.cur & this.mask;
    const i = this.head[s];
    this.head[s] = this.next[i];
    if (this.next[i] < 0) this.headStamp[s] = 0;
    this.inWindow--;
    this.lastKey = this.keys[i];
    return this.ids[i];
  }

  /** Moves the cursor to the first non-empty bucket, pulling far keys into the window; false when empty. */
  private advance(): boolean {
    const far = this.far;
    for (;;) {
      if (this.inWindow === 0) {
        if (far.length === 0) return false;
        const k = far.peekKey();
        if (k === Infinity) return true; // only unreachable labels left: peekKey() answers Infinity
        this.cur = Math.floor(k * this.inv);
        this.started = true;
        this.pullFar();
        continue;
      }
      const hs = this.headStamp,
        st = this.stamp,
        mask = this.mask;
      while (hs[this.cur & mask] !== st) {
        this.cur++;
        // a far key may now fall inside the window: it must be in its bucket before the cursor passes it
        if (far.length > 0 && far.peekKey() * this.inv < this.cur + this.slots) this.pullFar();
      }
      return true;
    }
  }

  /** Moves the far keys that fall inside the window into their buckets. */
  private pullFar(): void {
    const far = this.far;
    const end = this.cur + this.slots;
    while (far.length > 0 && Math.floor(far.peekKey() * this.inv) < end) {
      const id = far.pop();
      this.push(id, far.lastKey);
    }
  }

  private grow(): void {
    // by half again: a thread keeps its largest search's pool for good
    const n = Math.ceil(this.ids.length * 1.5);
    const ids = new Int32Array(n);
    ids.set(this.ids);
    const keys = new Float32Array(n);
    keys.set(this.keys);
    const next = new Int32Array(n);
    next.set(this.next);
    this.ids = ids;
    this.keys = keys;
    this.next = next;
  }
}
