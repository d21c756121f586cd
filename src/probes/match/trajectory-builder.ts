/**
 * Turns a Viterbi path (one matched position per ping plus the edges driven in between) into a
 * `Trajectory`: edge traversals with entry/exit times read off the distance driven over time,
 * smoothed from the pings (`path-smoother.ts`), and the pings that fell on each traversal.
 */
import type { EdgeId, Graph } from '../../network/graph.js';
import type { EdgeTraversal, MatchedPing, Ping, Trajectory } from '../trajectory.js';
import { NodeClock, smoothPath, type SmootherNoise } from './path-smoother.js';

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
 * Builds the trajectory of one matched piece of a trace (`steps` in strictly increasing time).
 * Times: the pings' distances along the driven path (and reported speeds) are smoothed with the
 * noise model `noise`; a node s metres along the path is passed when the smoothed curve leaves s,
 * so waiting at a stop line counts on the edge waited on.
 */
export function buildTrajectory(
  g: Graph,
  traceId: string,
  part: number,
  steps: readonly MatchStep[],
  noise: SmootherNoise,
): Trajectory {
  if (steps.length === 0) return { traceId, part, traversals: [] };
  const pieces: Piece[] = [];
  const sM: number[] = new Array(steps.length);
  const rawM: number[] = new Array(steps.length);
  const vMps: number[] = new Array(steps.length);
  const tS: number[] = new Array(steps.length);
  /** turn at the nodes passed since the previous ping, radians */
  const turnRad: number[] = new Array(steps.length).fill(0);
  const s0 = steps[0];
  pieces.push({ edge: s0.edge, startM: -s0.offsetM, pings: [] });
  for (let k = 0; k < steps.length; k++) {
    const st = steps[k];
    let cur = pieces[pieces.length - 1];
    if (k > 0 && st.pathFromPrev !== null) {
      let endM = cur.startM + g.edgeLengthM[cur.edge];
      let from = cur.edge;
      for (const e of st.pathFromPrev) {
        pieces.push({ edge: e, startM: endM, pings: [] });
        endM += g.edgeLengthM[e];
        turnRad[k] += turnAngleRad(g, from, e);
        from = e;
      }
      turnRad[k] += turnAngleRad(g, from, st.edge);
      cur = { edge: st.edge, startM: endM, pings: [] };
      pieces.push(cur);
    }
    // Noise may put a ping slightly behind the previous one: the running maximum bounds the
    // coverage; node times come from the pings' own distances, made non-decreasing by the smoother.
    const s = cur.startM + st.offsetM;
    sM[k] = k > 0 ? Math.max(s, sM[k - 1]) : Math.max(0, s);
    rawM[k] = s;
    const kph = st.ping.speedKph;
    vMps[k] = typeof kph === 'number' && Number.isFinite(kph) ? kph / 3.6 : Number.NaN;
    tS[k] = st.ping.tS;
    cur.pings.push({ ...st.ping, index: st.index, edge: st.edge, offsetM: st.offsetM });
  }
  const lastM = sM[steps.length - 1];
  const lastT = tS[steps.length - 1];
  const clock = new NodeClock(smoothPath(tS, rawM, vMps, noise, turnRad));
  const traversals: EdgeTraversal[] = [];
  for (let j = 0; j < pieces.length; j++) {
    const p = pieces[j];
    const len = g.edgeLengthM[p.edge];
    const a = Math.max(p.startM, 0);
    const b = Math.min(p.startM + len, lastM);
    const covered = len > 0 ? Math.min(1, Math.max(0, (b - a) / len)) : 1;
    if (b < a || (covered === 0 && p.pings.length === 0)) continue;
    const enterS = j === 0 ? tS[0] : clock.timeAt(a);
    const exitS = j === pieces.length - 1 ? lastT : clock.timeAt(b);
    traversals.push({ edge: p.edge, enterS, exitS, coveredFraction: covered, pings: p.pings });
  }
  return { traceId, part, traversals };
}

/** Absolute change of heading from the end of edge `a` to the start of edge `b`, radians (0–π). */
function turnAngleRad(g: Graph, a: EdgeId, b: EdgeId): number {
  const d = Math.abs(g.edgeBearingOut[b] - g.edgeBearingIn[a]) % 360;
  return (Math.min(d, 360 - d) * Math.PI) / 180;
}
