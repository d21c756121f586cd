import { describe, expect, it } from 'vitest';
import type { BoundGraph } from './bound-graph.js';
import { CUT_BALANCE, nestedDissectionOrder } from './order.js';

/**
 * A `cols` × `rows` grid of bound nodes, 100 m apart, every neighbour pair joined both ways;
 * the nodes of column `doubled` have a twin at the same position (as a turn-expanded
 * intersection has one bound node per incoming edge) joined to the same neighbours.
 */
function grid(cols: number, rows: number, doubled: number): { g: BoundGraph; column: number[] } {
  const lat: number[] = [];
  const lon: number[] = [];
  const column: number[] = [];
  const at: number[][][] = [];
  for (let c = 0; c < cols; c++) {
    at.push([]);
    for (let r = 0; r < rows; r++) {
      const ids: number[] = [];
      for (let k = 0; k < (c === doubled ? 2 : 1); k++) {
        ids.push(lat.length);
        lat.push(390_000_000 + r * 9_000);
        lon.push(-770_000_000 + c * 11_600);
        column.push(c);
      }
      at[c].push(ids);
    }
  }
  const tail: number[] = [];
  const head: number[] = [];
  const join = (a: number[], b: number[]) => {
    for (const u of a)
      for (const v of b) {
        tail.push(u, v);
        head.push(v, u);
      }
  };
  for (let c = 0; c < cols; c++)
    for (let r = 0; r < rows; r++) {
      if (c + 1 < cols) join(at[c][r], at[c + 1][r]);
      if (r + 1 < rows) join(at[c][r], at[c][r + 1]);
    }
  const n = lat.length;
  const g: BoundGraph = {
    nodeCount: n,
    latE7: Int32Array.from(lat),
    lonE7: Int32Array.from(lon),
    headNode: new Int32Array(0),
    arcTail: Int32Array.from(tail),
    arcHead: Int32Array.from(head),
    arcEdge: new Int32Array(tail.length),
    arcTurnS: new Float32Array(tail.length),
    expandedCount: 0,
  };
  return { g, column };
}

describe('nested-dissection order', () => {
  it('ranks every node once', () => {
    const { g } = grid(9, 7, 4);
    const rank = nestedDissectionOrder(g);
    expect([...rank].sort((a, b) => a - b)).toEqual([...Array(g.nodeCount).keys()]);
  });

  it('cuts beside a column of doubled nodes, not through it', () => {
    // 9 columns × 3 rows, column 4 (the median) doubled: 30 nodes. The cuts between columns 3
    // and 4 (12 | 18 nodes, balanced at 0.4) and between 4 and 5 (18 | 12) are covered by
    // column 3's or column 5's 3 nodes; the median cut falls among column 4's twins and its
    // separator holds column 4 nodes.
    expect(CUT_BALANCE).toBe(0.4);
    const { g, column } = grid(9, 3, 4);
    const rank = nestedDissectionOrder(g);
    const byRank = [...rank.keys()].sort((a, b) => rank[b] - rank[a]);
    const top = byRank.slice(0, 3).map((v) => column[v]);
    expect(new Set(top).size).toBe(1);
    expect(top[0]).not.toBe(4);
    expect([3, 5]).toContain(top[0]);
  });

  it('cuts a long strip across its length, at the smallest separator', () => {
    // 12 columns × 2 rows: any cut between two columns costs 2 nodes, a cut along the strip 12
    const { g, column } = grid(12, 2, -1);
    const rank = nestedDissectionOrder(g);
    const byRank = [...rank.keys()].sort((a, b) => rank[b] - rank[a]);
    expect(column[byRank[0]]).toBe(column[byRank[1]]);
    expect(column[byRank[2]]).not.toBe(column[byRank[0]]);
  });
});
