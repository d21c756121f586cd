import { describe, it, expect } from 'vitest';
import { MatchCache, type TraceMemory } from './match-cache.js';

/** A memory of `traceId` that consumed `pings` pings. */
function memory(traceId: string, pings: number, partition = 0): TraceMemory {
  return {
    state: {
      traceId,
      firstPart: 0,
      firstIndex: 0,
      consumed: Array.from({ length: pings }, (_, i) => i),
      out: [],
      fixed: [],
      layers: [],
      outliers: 0,
      stats: { pings, unmatchedPings: 0, parts: 0 },
    },
    tail: null,
    partition,
  };
}

describe('MatchCache', () => {
  it('drops the least recently used memories beyond its ping budget', () => {
    const c = new MatchCache(100, 10);
    c.put(memory('a', 4));
    c.put(memory('b', 4));
    expect(c.heldPings).toBe(8);
    c.put(memory('c', 4)); // 12 > 10: a goes
    expect(c.take('a')).toBeUndefined();
    expect(c.heldPings).toBe(8);
    expect(c.take('b')?.state.consumed.length).toBe(4);
    expect(c.heldPings).toBe(4);
  });

  it('drops beyond its trace count, and by partition', () => {
    const c = new MatchCache(2, 1000);
    c.put(memory('a', 1, 1));
    c.put(memory('b', 1, 2));
    c.put(memory('c', 1, 2));
    expect(c.size).toBe(2);
    expect(c.take('a')).toBeUndefined();
    c.dropPartitions([2]);
    expect(c.size).toBe(0);
    expect(c.heldPings).toBe(0);
  });

  it('keeps one memory larger than the budget (the trace just processed)', () => {
    const c = new MatchCache(10, 5);
    c.put(memory('big', 50));
    expect(c.size).toBe(1);
    c.put(memory('small', 1));
    expect(c.take('big')).toBeUndefined();
    expect(c.heldPings).toBe(1);
  });
});
