import { describe, expect, it } from 'vitest';
import { buildGraph, EdgeFlag, RoadClass } from './graph.js';
import { markLargestScc, stronglyConnectedComponents } from './scc.js';

const edge = (source: number, target: number, flags = 0) => ({
  source,
  target,
  speedKph: 30,
  roadClass: RoadClass.residential,
  flags,
});

describe('strongly connected components', () => {
  // 0 ⇄ 1 ⇄ 2 (cycle)   2 → 3 (one-way out, dead end)   4 ⇄ 5 (island)   1 → 0 reversible
  const { graph } = buildGraph({
    nodes: Array.from({ length: 6 }, (_, i) => ({ lat: 39 + i * 0.001, lon: -76 })),
    edges: [edge(0, 1), edge(1, 0, EdgeFlag.reversible), edge(1, 2), edge(2, 0), edge(2, 3), edge(4, 5), edge(5, 4)],
  });

  it('finds the largest component over non-reversible edges', () => {
    const { comp, largest, count } = stronglyConnectedComponents(graph);
    expect(count).toBe(3); // {0,1,2} {3} {4,5}
    expect([0, 1, 2].every((n) => comp[n] === largest)).toBe(true);
    expect(comp[3]).not.toBe(largest);
    expect(comp[4]).toBe(comp[5]);
  });

  it('flags only the edges inside it as routable, never reversible ones', () => {
    expect(markLargestScc(graph)).toBe(3);
    const routable = Array.from(graph.edgeFlags).map((f) => (f & EdgeFlag.routable) !== 0);
    // edge ids sorted by source: 0:0→1 1:1→0(rev) 2:1→2 3:2→0 4:2→3 5:4→5 6:5→4
    expect(routable).toEqual([true, false, true, true, false, false, false]);
  });
});

describe('strongly connected components on random graphs', () => {
  it('agree with a brute-force mutual reachability check', async () => {
    const fc = await import('fast-check');
    fc.assert(
      fc.property(
        fc
          .integer({ min: 1, max: 12 })
          .chain((n) => fc.tuple(fc.constant(n), fc.array(fc.tuple(fc.nat(n - 1), fc.nat(n - 1)), { maxLength: 30 }))),
        ([n, pairs]) => {
          const { graph } = buildGraph({
            nodes: Array.from({ length: n }, (_, i) => ({ lat: 39 + i * 0.001, lon: -76 })),
            edges: pairs.filter(([a, b]) => a !== b).map(([a, b]) => edge(a, b)),
          });
          // reach[a][b] by DFS from every node
          const reach = Array.from({ length: n }, (_, s) => {
            const seen = new Array<boolean>(n).fill(false);
            const stack = [s];
            seen[s] = true;
            while (stack.length) {
              const v = stack.pop()!;
              for (let e = graph.firstOut[v]; e < graph.firstOut[v + 1]; e++) {
                const w = graph.edgeTarget[e];
                if (!seen[w]) {
                  seen[w] = true;
                  stack.push(w);
                }
              }
            }
            return seen;
          });
          const { comp } = stronglyConnectedComponents(graph);
          for (let a = 0; a < n; a++) {
            for (let b = 0; b < n; b++) {
              expect(comp[a] === comp[b]).toBe(reach[a][b] && reach[b][a]);
            }
          }
        },
      ),
      { seed: 20261121, numRuns: 200 },
    );
  });
});
