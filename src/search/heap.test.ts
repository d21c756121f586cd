import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { MinHeap } from './heap.js';

describe('MinHeap', () => {
  it('pops keys in non-decreasing order with their ids, across growth and reuse', () => {
    const heap = new MinHeap(4);
    fc.assert(
      fc.property(fc.array(fc.double({ min: -1e6, max: 1e6, noNaN: true }), { maxLength: 300 }), (keys) => {
        heap.clear();
        keys.forEach((k, i) => {
          heap.push(i, k);
        });
        expect(heap.length).toBe(keys.length);
        const out: number[] = [];
        while (heap.length > 0) {
          const peek = heap.peekKey();
          const id = heap.pop();
          expect(heap.lastKey).toBe(peek);
          expect(keys[id]).toBe(heap.lastKey);
          out.push(heap.lastKey);
        }
        expect(out).toEqual([...keys].sort((a, b) => a - b));
      }),
      { seed: 20261121, numRuns: 200 },
    );
  });

  it('interleaved pushes and pops always return the smallest remaining key', () => {
    const heap = new MinHeap(2);
    const live: number[] = [];
    let x = 7;
    for (let i = 0; i < 2000; i++) {
      x = (x * 1103515245 + 12345) % 2147483648;
      if (x % 3 !== 0 || live.length === 0) {
        const k = x % 1000;
        heap.push(i, k);
        live.push(k);
      } else {
        live.sort((a, b) => a - b);
        heap.pop();
        expect(heap.lastKey).toBe(live.shift());
      }
    }
  });
});
