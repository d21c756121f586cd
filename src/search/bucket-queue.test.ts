import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { BucketQueue } from './bucket-queue.js';

/** Removes and returns the smallest value of `live` (unsorted). */
function minOf(live: Map<number, number>): number {
  let m = Infinity;
  for (const k of live.values()) if (k < m) m = k;
  return m;
}

describe('BucketQueue', () => {
  it('every id pops once; peekKey bounds every key; a pop is within one bucket of the minimum (window, far and low keys)', () => {
    // 8 slots of width 1: a window of 8 key units, so far keys, window moves and low keys all occur
    const q = new BucketQueue(1, 8, 2);
    fc.assert(
      fc.property(
        // mostly keys a little above the last pop (the cursor moves), some far ones, pops (-1), unreachable labels
        fc.array(
          fc.oneof(
            { weight: 6, arbitrary: fc.double({ min: 0, max: 14, noNaN: true }) },
            { weight: 2, arbitrary: fc.double({ min: 0, max: 60, noNaN: true }) },
            { weight: 5, arbitrary: fc.constant(-1) },
            { weight: 1, arbitrary: fc.constant(Infinity) },
          ),
          { minLength: 1, maxLength: 200 },
        ),
        fc.integer({ min: 0, max: 1000 }),
        (ops, seed) => {
          q.clear();
          const live = new Map<number, number>();
          let id = 0;
          let x = seed;
          let floor = 0; // keys pushed later are never below the last popped key minus this slack
          for (const op of ops) {
            x = (x * 1103515245 + 12345) % 2147483648;
            if (op >= 0 && !(x % 8 === 0 && live.size > 0)) {
              // like the search: a new key is at least the last popped key − 2 (low keys happen)
              const k = op === Infinity ? op : floor - 2 + op;
              q.push(id, k < 0 ? 0 : k);
              live.set(id, k < 0 ? 0 : k);
              id++;
            } else if (live.size > 0) {
              const min = minOf(live);
              const peek = q.peekKey();
              expect(peek).toBeLessThanOrEqual(min);
              if (min === Infinity) continue; // the search stops here (peekKey ≥ best)
              const got = q.pop();
              expect(live.has(got)).toBe(true);
              expect(q.lastKey).toBe(Math.fround(live.get(got)!));
              expect(q.lastKey).toBeLessThan(min + 1 + 1e-5);
              live.delete(got);
              floor = q.lastKey;
            }
          }
          // drain the finite keys
          while (live.size > 0 && minOf(live) < Infinity) {
            const min = minOf(live);
            expect(q.peekKey()).toBeLessThanOrEqual(min);
            const got = q.pop();
            expect(q.lastKey).toBe(Math.fround(live.get(got)!));
            expect(q.lastKey).toBeLessThan(min + 1 + 1e-5);
            live.delete(got);
          }
          expect(q.length).toBe(live.size);
          if (live.size > 0) expect(q.peekKey()).toBe(Infinity);
        },
      ),
      { seed: 20261122, numRuns: 300 },
    );
  });

  it('pops a bucket last in, first out and the buckets in key order', () => {
    const q = new BucketQueue(0.5, 1 << 4);
    q.clear();
    for (const [id, k] of [
      [1, 10.1],
      [2, 10.3],
      [3, 11.0],
      [4, 10.4],
      [5, 40.2],
      [6, 9.9],
    ] as const)
      q.push(id, k);
    const out: number[] = [];
    while (q.length > 0) out.push(q.pop());
    // 6 is below the window's first bucket (10.0): low heap first; then [10.0, 10.5) LIFO; 11.0; the far key
    expect(out).toEqual([6, 4, 2, 1, 3, 5]);
  });

  it('pulls a far key into its bucket before the cursor passes it, while the window still holds later keys', () => {
    const q = new BucketQueue(1, 8, 2);
    q.clear();
    q.push(0, 0);
    q.push(1, 30); // beyond the window [0, 8): far
    q.pop();
    q.push(2, 5);
    q.pop();
    q.push(3, 12);
    q.pop();
    q.push(4, 25); // far again (window [12, 20))
    q.push(5, 19);
    q.pop(); // cursor at 19
    q.push(6, 26); // inside [19, 27), while 25 waits in the far heap
    expect(q.peekKey()).toBeLessThanOrEqual(25);
    expect(q.pop()).toBe(4);
    expect([q.pop(), q.pop()]).toEqual([6, 1]);
  });

  it('takes negative keys and an unreachable first key like any others', () => {
    const q = new BucketQueue(1, 8, 2);
    q.clear();
    q.push(0, Infinity);
    q.push(1, -5.5);
    q.push(2, -3);
    q.push(3, 4);
    q.push(4, -7); // below the first bucket: low heap
    expect(q.peekKey()).toBe(-7);
    const out: number[] = [];
    for (let i = 0; i < 10 && q.peekKey() < Infinity; i++) out.push(q.pop());
    expect(out).toEqual([4, 1, 2, 3]);
    expect(q.length).toBe(1);
  });

  it('rejects a width that is not positive and a slot count that is not a power of two', () => {
    expect(() => new BucketQueue(0)).toThrow();
    expect(() => new BucketQueue(1, 12)).toThrow();
  });
});
