import { describe, it, expect } from 'vitest';
import { EarlyRounds } from './early-rounds.js';
import type { ProcessStoredDeps, ProcessStoredReport } from './process-stored.js';

/** A round the test ends by hand: what it was given, and how to end it. */
interface FakeRound {
  traceIds: readonly string[];
  from: Map<string, number>;
  finish: () => Promise<void>;
  fail: () => Promise<void>;
}

function rig(minTraces: number): { early: EarlyRounds; rounds: FakeRound[] } {
  const rounds: FakeRound[] = [];
  const report: ProcessStoredReport = {
    process: { traces: 0, trajectories: 0, traversals: 0, unmatchedPings: 0, edgesUpdated: 0, liveEdges: 0 },
    facts: { trajectories: 0, facts: 0 },
    changeSeq: 0,
    edges: new Set(),
  };
  const process = (
    _deps: ProcessStoredDeps,
    traceIds: readonly string[],
    from?: ReadonlyMap<string, number>,
  ): Promise<ProcessStoredReport> =>
    new Promise((resolve, reject) => {
      // a round's end is seen once its handlers ran: a macrotask later
      const settled = (): Promise<void> => new Promise((r) => setTimeout(r, 0));
      rounds.push({
        traceIds,
        from: new Map(from),
        finish: () => {
          resolve({ ...report, process: { ...report.process, traces: traceIds.length } });
          return settled();
        },
        fail: () => {
          reject(new Error('round failed'));
          return settled();
        },
      });
    });
  return { early: new EarlyRounds({} as ProcessStoredDeps, minTraces, process), rounds };
}

const m = (o: Record<string, number>): Map<string, number> => new Map(Object.entries(o));
const s = (...ids: string[]): Set<string> => new Set(ids);

describe('EarlyRounds', () => {
  it('starts a round over the waiting traces the latest batch did not touch, once there are enough', async () => {
    const { early, rounds } = rig(2);
    early.batchStored(s('a', 'b'), m({ a: 10, b: 20 }));
    expect(rounds).toHaveLength(0); // both still in the latest batch
    early.batchStored(s('b', 'c'), m({ b: 25, c: 30 }));
    expect(rounds).toHaveLength(0); // only a is ready
    early.batchStored(s('d'), m({ d: 40 }));
    expect(rounds).toHaveLength(1);
    expect([...rounds[0].traceIds].sort()).toEqual(['a', 'b', 'c']);
    expect(rounds[0].from).toEqual(m({ a: 10, b: 20, c: 30 }));
    await rounds[0].finish();
    const out = await early.finish();
    expect([...out.done].sort()).toEqual(['a', 'b', 'c']);
    expect(out.waiting).toEqual(m({ d: 40 }));
    expect(out.rounds.map((r) => r.traceIds.length)).toEqual([3]);
  });

  it('runs one round at a time', async () => {
    const { early, rounds } = rig(1);
    early.batchStored(s('a'), m({ a: 1 }));
    early.batchStored(s('b'), m({ b: 2 }));
    expect(rounds.map((r) => r.traceIds)).toEqual([['a']]);
    early.batchStored(s('c'), m({ c: 3 }));
    expect(rounds).toHaveLength(1); // b waits while a's round runs
    await rounds[0].finish();
    early.batchStored(s('d'), m({ d: 4 }));
    expect(rounds.map((r) => [...r.traceIds].sort())).toEqual([['a'], ['b', 'c']]);
    await rounds[1].finish();
    const out = await early.finish();
    expect([...out.done].sort()).toEqual(['a', 'b', 'c']);
    expect(out.waiting).toEqual(m({ d: 4 }));
  });

  it('a trace that gets pings during or after its round waits again, from its new pings', async () => {
    const { early, rounds } = rig(1);
    early.batchStored(s('a', 'b'), m({ a: 1, b: 2 }));
    early.batchStored(s('x'), m({ x: 9 }));
    expect([...rounds[0].traceIds].sort()).toEqual(['a', 'b']);
    early.batchStored(s('a', 'x'), m({ a: 50 })); // a touched while its round runs
    await rounds[0].finish();
    early.batchStored(s('b', 'x'), m({ b: 60 })); // b touched after its round
    expect(rounds.map((r) => [...r.traceIds].sort())).toEqual([['a', 'b'], ['a']]);
    await rounds[1].finish();
    const out = await early.finish();
    expect([...out.done].sort()).toEqual(['a']);
    expect(out.waiting).toEqual(m({ x: 9, b: 60 }));
  });

  it('a trace touched while its round runs is left to the final round when the body ends', async () => {
    const { early, rounds } = rig(1);
    early.batchStored(s('a', 'b'), m({ a: 1, b: 2 }));
    early.batchStored(s('x'), m({ x: 9 }));
    early.batchStored(s('a'), m({ a: 50 }));
    await rounds[0].finish();
    const out = await early.finish();
    expect([...out.done]).toEqual(['b']);
    expect(out.waiting).toEqual(m({ x: 9, a: 50 }));
  });

  it('a failed round gives its traces back and no round follows it', async () => {
    const { early, rounds } = rig(1);
    early.batchStored(s('a', 'b'), m({ a: 10, b: 20 }));
    early.batchStored(s('c'), m({ c: 30 }));
    early.batchStored(s('a'), m({ a: 5 })); // an earlier ping of a, stored while the round runs
    await rounds[0].fail();
    early.batchStored(s('d'), m({ d: 40 }));
    expect(rounds).toHaveLength(1);
    const out = await early.finish();
    expect(out.done.size).toBe(0);
    expect(out.rounds).toHaveLength(0);
    expect(out.waiting).toEqual(m({ a: 5, b: 20, c: 30, d: 40 }));
  });
});
