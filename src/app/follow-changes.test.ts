import { describe, it, expect } from 'vitest';
import { changedEdges } from './follow-changes.js';
import { learnedBinKey } from '../traffic/learned-speeds.js';

const change = (seq: number, scope: string, payload: Record<string, unknown>) => ({
  seq,
  topic: 'speeds',
  scope,
  payload,
});

describe('changedEdges', () => {
  it('collects live edges and learned bins of this map version; a change naming no bins reloads its edges whole', () => {
    const r = changedEdges(
      [
        change(1, 'm1', { edges: [3, 4], learnedBins: [learnedBinKey(3, 10), learnedBinKey(3, 11)] }),
        change(2, 'm2', { edges: [9], learnedBins: [learnedBinKey(9, 1)] }), // another region
        change(3, 'm1', { edges: [5, 6], learnedEdges: [6] }), // written by an older server: whole edges
        change(4, 'm1', { edges: [7] }), // older still: every edge named
        change(5, 'm1', { edges: [-1, 1.5, '8', 2 ** 60], learnedBins: [-3, 0.5] }), // not edge ids: ignored
      ],
      'm1',
    );
    expect([...r.edges].sort((a, b) => a - b)).toEqual([3, 4, 5, 6, 7]);
    expect([...r.learnedBins].sort((a, b) => a - b)).toEqual([learnedBinKey(3, 10), learnedBinKey(3, 11)]);
    expect([...r.learned].sort((a, b) => a - b)).toEqual([6, 7]);
  });
});
