import { describe, expect, it } from 'vitest';
import { EdgeSearch } from './edge-search.js';
import { HeapQueue } from './label-queue.js';

/** Dijkstra on static edge lengths, stopping once its target is settled. */
class StaticSearch extends EdgeSearch {
  private target = -1;
  constructor(
    star: { firstOut: Uint32Array; edgeTarget: Uint32Array },
    private readonly len: Float64Array,
  ) {
    super(len.length, star, null, new HeapQueue(), { timed: false, directed: false, drops: false });
  }
  protected leave(_e: number, c: number): number {
    return c;
  }
  protected enter(_e: number, f: number, c: number): number {
    return c + this.len[f];
  }
  protected potential(): number {
    return 0;
  }
  protected override settledLabel(e: number): boolean {
    return e === this.target;
  }
  /** Cost of the label on `target` from source edge `source` (labelled at `seedCost`), or Infinity. */
  costTo(source: number, target: number, seedCost = this.len[source]): number {
    this.target = target;
    this.startSearch();
    this.seed(source, seedCost, 0);
    this.settle(Infinity);
    return this.gen[target] === this.generation ? this.cost[target] : Infinity;
  }
  get generationNow(): number {
    return this.generation;
  }
}

describe('edge search labels', () => {
  it('never let a label of an earlier search leak into a later one across the wrap of their 16-bit generation stamps', () => {
    // ring 0 → 1 → … → 5 → 0 and a chord 0 → 3 of cost 10: edges 0→1 (0), 0→3 (1), 1→2 (2),
    // 2→3 (3), 3→4 (4), 4→5 (5), 5→0 (6); a label costs the edges driven, its own included
    const firstOut = new Uint32Array([0, 2, 3, 4, 5, 6, 7]);
    const edgeTarget = new Uint32Array([1, 3, 2, 3, 4, 5, 0]);
    const len = new Float64Array([1, 10, 1, 1, 1, 1, 1]);
    const s = new StaticSearch({ firstOut, edgeTarget }, len);
    expect(s.costTo(6, 3)).toBe(4); // 5→0→1→2→3 beats the chord (generation 1)
    // generation 2 leaves a cheap label on the chord, which no search below touches until the
    // stamps wrap and generation 2 comes round again
    expect(s.costTo(1, 1, 0.5)).toBe(0.5);
    let wrappedAt = -1;
    for (let i = 0; i < 70_000 && wrappedAt < 0; i++) {
      const before = s.generationNow;
      if (s.costTo(2, 5) !== 4) throw new Error(`search ${i}: wrong cost`);
      if (s.generationNow < before) wrappedAt = i;
    }
    expect(wrappedAt).toBeGreaterThan(60_000);
    expect(s.generationNow).toBe(1);
    // generation 2 again: the chord is reached from the ring at its real cost, not the stale 0.5
    expect(s.costTo(6, 1)).toBe(11);
  });
});
