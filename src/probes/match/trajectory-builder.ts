/**
 * Turns a Viterbi path (one matched position per ping plus the edges driven in between) into a
 * `Trajectory`: edge traversals with entry/exit times interpolated linearly in distance driven
 * between consecutive pings, and the pings that fell on each traversal.
 */
import type { EdgeId, Graph } from '../../network/graph.js';
import type { EdgeTraversal, MatchedPing, Ping, Trajectory } from '../trajectory.js';

/** One matched ping of the Viterbi path. */
export interface MatchStep {
  ping: Ping;
  /** index of the ping in the trace */
  index: number;
  edge: EdgeId;
  offsetM: number;
  /** edges strictly between the previous step's edge and this one; null = same edge, moving on */
  pathFromPrev: EdgeId[] | null;
}

interface Piece {
  edge: EdgeId;
  /** distance driven (from the first ping) at the start of the edge, metres; may be negative */
  startM: number;
  pings: MatchedPing[];
}

/**
 * Builds the trajectory of one matched piece of a trace.
 * Times: a position s metres along the driven path is reached at the time interpolated between the
 * last ping at or before s and the next one, so waiting at a stop line counts on the edge waited on.
 */
export function buildTrajectory(g: Graph, traceId: string, part: number, steps: readonly MatchStep[]): Trajectory {
  if (steps.length === 0) return { traceId, part, traversals: [] };
  const pieces: Piece[] = [];
  const sM: number[] = new Array(steps.length);
  const tS: number[] = new Array(steps.length);
  const s0 = steps[0];
  pieces.push({ edge: s0.edge, startM: -s0.offsetM, pings: [] });
  for (let k = 0; k < steps.length; k++) {
    const st = steps[k];
    let cur = pieces[pieces.length - 1];
    if (k > 0 && st.pathFromPrev !== null) {
      let endM = cur.startM + g.edgeLengthM[cur.edge];
      for (const e of st.pathFromPrev) {
        pieces.push({ edge: e, startM: endM, pings: [] });
        endM += g.edgeLengthM[e];
      }
      cur = { edge: st.edge, startM: endM, pings: [] };
      pieces.push(cur);
    }
    // Noise may put a ping slightly behind the previous one: distance driven never decreases.
    const s = cur.startM + st.offsetM;
    sM[k] = k > 0 ? Math.max(s, sM[k - 1]) : Math.max(0, s);
    tS[k] = st.ping.tS;
    cur.pings.push({ ...st.ping, index: st.index, edge: st.edge, offsetM: st.offsetM });
  }
  const lastM = sM[steps.length - 1];
  const lastT = tS[steps.length - 1];
  // Time at distance x: interpolate after the last ping with s ≤ x (pointer moves forward only).
  let i = 0;
  const timeAt = (x: number): number => {
    while (i + 1 < sM.length && sM[i + 1] <= x) i++;
    if (i + 1 >= sM.length) return lastT;
    const span = sM[i + 1] - sM[i];
    return span > 0 ? tS[i] + ((tS[i + 1] - tS[i]) * (x - sM[i])) / span : tS[i];
  };
  const traversals: EdgeTraversal[] = [];
  for (let j = 0; j < pieces.length; j++) {
    const p = pieces[j];
    const len = g.edgeLengthM[p.edge];
    const a = Math.max(p.startM, 0);
    const b = Math.min(p.startM + len, lastM);
    const covered = len > 0 ? Math.min(1, Math.max(0, (b - a) / len)) : 1;
    if (b < a || (covered === 0 && p.pings.length === 0)) continue;
    const enterS = j === 0 ? tS[0] : timeAt(a);
    const exitS = j === pieces.length - 1 ? lastT : timeAt(b);
    traversals.push({ edge: p.edge, enterS, exitS, coveredFraction: covered, pings: p.pings });
  }
  return { traceId, part, traversals };
}
