import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import FlatQueue from 'flatqueue';
import { HeapQueue } from './label-queue.js';

describe('HeapQueue', () => {
  it('pops the same ids in the same order as flatqueue, ties included (pushes and pops interleaved)', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.integer({ min: 0, max: 20 }), fc.boolean()), { maxLength: 3000 }), (ops) => {
        const a = new HeapQueue();
        const b = new FlatQueue<number>();
        let id = 0;
        for (const [key, pop] of ops) {
          if (pop && b.length > 0) {
            expect(a.peekKey()).toBe(b.peekValue());
            expect(a.pop()).toBe(b.pop());
          } else {
            a.push(id, key);
            b.push(id++, key);
          }
          expect(a.length).toBe(b.length);
        }
        while (b.length > 0) {
          const k = b.peekValue();
          expect(a.pop()).toBe(b.pop());
          expect(a.lastKey).toBe(k);
        }
      }),
      { numRuns: 200 },
    );
  });
});
