/**
 * The metro's motorways: each centre line becomes two one-way carriageways 15 m either side,
 * joined by diamond interchanges (four ramps to the arterial nodes either side of an overpass,
 * signalised terminals) about every two kilometres, and by system interchanges (eight ramps, the
 * left-turning ones on flyovers) where two motorways cross. Open motorways end at signalised
 * junctions on the plan's border; the ring is closed. They cross the river on bridges.
 */
import type { Tags } from '../../osm/index.js';
import { type Polyline, type Xy, bezier } from './geometry.js';
import type { MotorwayOverpass } from './lattice.js';
import type { PlanContext } from './plan-context.js';

/** Distance of each carriageway from the centre line, metres. */
const CARRIAGEWAY_OFFSET_M = 15;
/** Spacing of shape points along a carriageway, metres. */
const SHAPE_SPACING_M = 150;
/** Diamond ramps leave and join this far from the overpass, metres. */
const DIAMOND_RAMP_M = 300;
/** Least distance between two diamonds, or a diamond and a system interchange, metres. */
const INTERCHANGE_SPACING_M = 1500;
/** System interchange ramps leave and join this far from the crossing (right, left turns), metres. */
const SYSTEM_RAMP_M = [600, 850] as const;
/** Shape points per carriageway way at most (ways are split there). */
const POINTS_PER_WAY = 25;

/** A motorway of the plan. */
export interface MotorwayLine {
  line: Polyline;
  closed: boolean;
  ref: string;
  name: string;
  maxspeed: string;
  /** junction nodes where an open motorway starts and ends (-1 for the ring) */
  startNode: number;
  endNode: number;
}

interface Special {
  s: number;
  node: number;
}

/** Builds the carriageways and interchanges of all motorways of the plan. */
export class MotorwayNetwork {
  /** special nodes per motorway and direction: key `${m}:${dir}` */
  private readonly specials = new Map<string, Special[]>();
  /** bridge intervals [s0, s1] per motorway */
  private readonly bridges: Array<Array<[number, number]>>;
  /** arc lengths of the system interchanges per motorway */
  private readonly systemAt: number[][];
  interchanges = 0;

  constructor(
    private readonly ctx: PlanContext,
    private readonly lines: readonly MotorwayLine[],
  ) {
    this.bridges = lines.map(() => []);
    this.systemAt = lines.map(() => []);
  }

  /** Adds the river bridges: the carriageways are split 80 m either side of the river. */
  addRiverBridges(): void {
    this.lines.forEach((m, k) => {
      const { xs, ys, cum } = m.line;
      for (let i = 0; i + 1 < xs.length; i++) {
        const x = this.ctx.river.crossing({ x: xs[i], y: ys[i] }, { x: xs[i + 1], y: ys[i + 1] });
        if (!x) continue;
        const s = cum[i] + x.t * (cum[i + 1] - cum[i]);
        this.bridges[k].push([s - 80, s + 80]);
        for (const dir of [1, -1] as const) {
          this.node(k, dir, s - 80);
          this.node(k, dir, s + 80);
        }
      }
    });
  }

  /** Adds an eight-ramp interchange wherever two motorways cross. */
  addSystemInterchanges(): void {
    for (let a = 0; a < this.lines.length; a++)
      for (let b = a + 1; b < this.lines.length; b++) {
        const A = this.lines[a].line;
        for (let i = 0; i + 1 < A.xs.length; i++) {
          const x = this.ctx.motorways[b].crossing({ x: A.xs[i], y: A.ys[i] }, { x: A.xs[i + 1], y: A.ys[i + 1] });
          if (!x) continue;
          const sA = A.cum[i] + x.t * (A.cum[i + 1] - A.cum[i]);
          this.systemAt[a].push(sA);
          this.systemAt[b].push(x.s);
          this.addSystemRamps(a, sA, b, x.s);
          this.addSystemRamps(b, x.s, a, sA);
          this.interchanges++;
        }
      }
  }

  /** Adds diamonds at overpasses at least INTERCHANGE_SPACING_M from each other and from system interchanges. */
  addDiamonds(overpasses: readonly MotorwayOverpass[]): void {
    const sorted = [...overpasses].filter((o) => !o.border).sort((p, q) => p.motorway - q.motorway || p.s - q.s);
    const chosen: number[][] = this.lines.map(() => []);
    const used = new Set<number>();
    for (const o of sorted) {
      const m = this.lines[o.motorway];
      const far = (s: number): boolean => {
        let d = Math.abs(s - o.s);
        if (m.closed) d = Math.min(d, m.line.lengthM - d);
        return d >= INTERCHANGE_SPACING_M;
      };
      const clearOfEnds =
        m.closed || (o.s > INTERCHANGE_SPACING_M / 2 && o.s < m.line.lengthM - INTERCHANGE_SPACING_M / 2);
      if (!clearOfEnds || used.has(o.right) || used.has(o.left)) continue;
      if (!chosen[o.motorway].every(far) || !this.systemAt[o.motorway].every(far)) continue;
      chosen[o.motorway].push(o.s);
      used.add(o.right).add(o.left);
      this.addDiamond(o);
      this.interchanges++;
    }
  }

  /** Adds the carriageway ways (call after every interchange). */
  addCarriageways(): void {
    for (let k = 0; k < this.lines.length; k++) for (const dir of [1, -1] as const) this.addCarriageway(k, dir);
  }

  private norm(k: number, s: number): number {
    const m = this.lines[k];
    if (!m.closed) return s;
    const len = m.line.lengthM;
    return ((s % len) + len) % len;
  }

  /** A node on carriageway (k, dir) at arc length s of the centre line. */
  private node(k: number, dir: 1 | -1, s: number): number {
    const at = this.norm(k, s);
    const node = this.ctx.store.addNode(this.lines[k].line.pointAt(at, dir * CARRIAGEWAY_OFFSET_M));
    const key = `${k}:${dir}`;
    const list = this.specials.get(key);
    if (list) list.push({ s: at, node });
    else this.specials.set(key, [{ s: at, node }]);
    return node;
  }

  private rampTags(destination: string, left = false): Tags {
    const t: Tags = { highway: 'motorway_link', oneway: 'yes', lanes: '1', destination };
    if (this.ctx.rng.chance(0.6)) t.maxspeed = '35 mph';
    if (left) Object.assign(t, { bridge: 'yes', layer: '2' });
    return t;
  }

  /** A ramp from node `from` to node `to` curving through control point c. */
  private ramp(from: number, c: Xy, to: number, tags: Tags): void {
    const { store } = this.ctx;
    const a = store.position(from);
    const b = store.position(to);
    const shape = [0.2, 0.4, 0.6, 0.8].map((f) => store.addNode(bezier(a, c, b, f)));
    store.addWay([from, ...shape, to], tags);
  }

  private addDiamond(o: MotorwayOverpass): void {
    const m = this.lines[o.motorway];
    const { store } = this.ctx;
    for (const dir of [1, -1] as const) {
      const terminal = dir === 1 ? o.right : o.left;
      store.tagNode(terminal, { highway: 'traffic_signals' });
      const off = this.node(o.motorway, dir, o.s - dir * DIAMOND_RAMP_M);
      const on = this.node(o.motorway, dir, o.s + dir * DIAMOND_RAMP_M);
      const c1 = m.line.pointAt(this.norm(o.motorway, o.s - dir * 80), dir * (CARRIAGEWAY_OFFSET_M + 60));
      const c2 = m.line.pointAt(this.norm(o.motorway, o.s + dir * 80), dir * (CARRIAGEWAY_OFFSET_M + 60));
      this.ramp(off, c1, terminal, this.rampTags(o.name));
      this.ramp(terminal, c2, on, this.rampTags(m.ref));
    }
  }

  /** Ramps from motorway a (crossing at sA) to motorway b (crossing at sB). */
  private addSystemRamps(a: number, sA: number, b: number, sB: number): void {
    const A = this.lines[a];
    const B = this.lines[b];
    const x = A.line.pointAt(this.norm(a, sA));
    const da = A.line.directionAt(this.norm(a, sA));
    const db = B.line.directionAt(this.norm(b, sB));
    for (const dirA of [1, -1] as const)
      for (const dirB of [1, -1] as const) {
        const cross = dirA * dirB * (da.x * db.y - da.y * db.x);
        const left = cross > 0;
        const dist = SYSTEM_RAMP_M[left ? 1 : 0];
        const from = this.node(a, dirA, sA - dirA * dist);
        const to = this.node(b, dirB, sB + dirB * dist);
        const p = this.ctx.store.position(from);
        const q = this.ctx.store.position(to);
        const bulge = left ? 0.6 : 0.35;
        const c = { x: x.x + bulge * (p.x + q.x - 2 * x.x), y: x.y + bulge * (p.y + q.y - 2 * x.y) };
        this.ramp(from, c, to, this.rampTags(B.ref, left));
      }
  }

  private addCarriageway(k: number, dir: 1 | -1): void {
    const m = this.lines[k];
    const { store } = this.ctx;
    const specials = this.specials.get(`${k}:${dir}`) ?? [];
    const len = m.line.lengthM;
    const points: Special[] = [...specials];
    for (let s = 0; m.closed ? s < len - 20 : s <= len; s += SHAPE_SPACING_M)
      if (specials.every((p) => Math.abs(p.s - s) > 20)) points.push({ s, node: -1 });
    points.sort((p, q) => p.s - q.s);
    if (dir === -1) points.reverse();
    const seq: Special[] = points;
    if (m.closed) seq.push(points[0]);
    else {
      const start = { s: -1, node: m.startNode };
      const end = { s: len + 1, node: m.endNode };
      seq.unshift(dir === 1 ? start : end);
      seq.push(dir === 1 ? end : start);
    }
    const base: Tags = {
      highway: 'motorway',
      ref: m.ref,
      name: m.name,
      oneway: 'yes',
      lanes: '3',
      maxspeed: m.maxspeed,
    };
    const bridged: Tags = { ...base, bridge: 'yes', layer: '1' };
    const onBridge = (s0: number, s1: number): boolean =>
      this.bridges[k].some(([b0, b1]) => (s0 + s1) / 2 > b0 && (s0 + s1) / 2 < b1);
    let run: number[] = [];
    let runBridge = false;
    const nodeOf = (p: Special): number =>
      p.node >= 0 ? p.node : (p.node = store.addNode(m.line.pointAt(p.s, dir * CARRIAGEWAY_OFFSET_M)));
    for (let i = 0; i < seq.length; i++) {
      const n = nodeOf(seq[i]);
      if (i === 0) {
        run = [n];
        continue;
      }
      const bridge = onBridge(seq[i - 1].s, seq[i].s);
      if (run.length >= 2 && (bridge !== runBridge || run.length >= POINTS_PER_WAY)) {
        store.addWay(run, runBridge ? bridged : base);
        run = [run[run.length - 1]];
      }
      runBridge = bridge;
      run.push(n);
    }
    if (run.length >= 2) store.addWay(run, runBridge ? bridged : base);
  }
}
