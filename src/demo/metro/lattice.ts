/**
 * The arterial lattice of the metro: signalised arterials about a kilometre apart in both
 * directions, crossing at jittered lattice points, each side of a cell slightly bowed. Every side
 * carries the connection nodes where the local streets of the two cells beside it join it; the
 * cells and the motorway terminals use them. Arterials cross the motorways on overpasses and the
 * river on a bridge every fourth north–south line; elsewhere the river cuts them.
 */
import type { Tags } from '../../osm/index.js';
import { type Xy, crossFraction } from './geometry.js';
import { CELL_M, type PlanContext, isBlocked } from './plan-context.js';
import { streetName } from './names.js';

/** Largest random shift of a lattice point, metres. */
const LATTICE_JITTER_M = 150;
/** Largest bow of a cell side, metres. */
const SIDE_BOW_M = 35;
/** Lattice points are kept at least this far from the river, metres. */
const RIVER_CLEARANCE_M = 150;

/** One side of a cell: the arterial between two lattice points and its connection nodes. */
export interface Side {
  a: number;
  b: number;
  /** on the plan's border (straight, never bowed) */
  border: boolean;
  bowM: number;
  /** positions of the connection nodes along the side, 0..1 ascending */
  ts: number[];
  /** node index per position (-1: inside a corridor, left out) */
  nodes: number[];
}

/** An arterial crossing a motorway: where, and the arterial nodes either side of it. */
export interface MotorwayOverpass {
  motorway: number;
  /** arc length along the motorway, metres */
  s: number;
  /** arterial node on the right of the motorway's direction of increasing s */
  right: number;
  left: number;
  /** true for the arterials on the plan's border */
  border: boolean;
  /** the arterial's name */
  name: string;
}

/** One arm of an arterial crossing: a way ending (or starting) at the lattice node. */
export interface Arm {
  way: number;
  /** position of the way's next node away from the crossing */
  toward: Xy;
}

/** The lattice points and sides; `h(i, j)` runs east from point (i, j), `v(i, j)` north. */
export class Lattice {
  readonly points: Xy[] = [];
  readonly nodes: number[] = [];
  readonly hSides: Side[] = [];
  readonly vSides: Side[] = [];
  /** connection counts per column (for h sides) and per row (for v sides) */
  readonly colCounts: number[];
  readonly rowCounts: number[];
  /** ways meeting at each lattice point (for turn restrictions) */
  readonly arms: Arm[][] = [];
  readonly nsNames: string[] = [];
  readonly ewNames: string[] = [];

  constructor(
    private readonly ctx: PlanContext,
    riverY: (x: number) => number,
    dense: (index: number) => boolean,
  ) {
    const { rng, cells: c } = ctx;
    for (let i = 0; i <= c; i++)
      for (let j = 0; j <= c; j++) {
        const border = (k: number): boolean => k === 0 || k === c;
        const x = i * CELL_M + (border(i) ? 0 : rng.float(-LATTICE_JITTER_M, LATTICE_JITTER_M));
        let y = j * CELL_M + (border(j) ? 0 : rng.float(-LATTICE_JITTER_M, LATTICE_JITTER_M));
        const ry = riverY(x);
        if (Math.abs(y - ry) < RIVER_CLEARANCE_M) y = ry + (y >= ry ? RIVER_CLEARANCE_M : -RIVER_CLEARANCE_M);
        this.points.push({ x, y });
        this.nodes.push(-1);
        this.arms.push([]);
      }
    this.colCounts = Array.from({ length: c }, (_, i) => (dense(i) ? 11 : rng.int(8, 10)));
    this.rowCounts = Array.from({ length: c }, (_, j) => (dense(j) ? 11 : rng.int(8, 10)));
    for (let i = 0; i <= c; i++) this.nsNames.push(streetName(rng, 'arterial'));
    for (let j = 0; j <= c; j++) this.ewNames.push(streetName(rng, 'arterial'));
    for (let i = 0; i < c; i++)
      for (let j = 0; j <= c; j++)
        this.hSides.push(this.makeSide(this.index(i, j), this.index(i + 1, j), this.colCounts[i], j === 0 || j === c));
    for (let i = 0; i <= c; i++)
      for (let j = 0; j < c; j++)
        this.vSides.push(this.makeSide(this.index(i, j), this.index(i, j + 1), this.rowCounts[j], i === 0 || i === c));
  }

  /** Index of lattice point (i, j). */
  index(i: number, j: number): number {
    return i * (this.ctx.cells + 1) + j;
  }

  /** The east-running side from point (i, j). */
  h(i: number, j: number): Side {
    return this.hSides[i * (this.ctx.cells + 1) + j];
  }

  /** The north-running side from point (i, j). */
  v(i: number, j: number): Side {
    return this.vSides[i * this.ctx.cells + j];
  }

  /** Position at fraction t along a side (bowed). */
  sidePoint(side: Side, t: number): Xy {
    const a = this.points[side.a];
    const b = this.points[side.b];
    const len = Math.hypot(b.x - a.x, b.y - a.y) || 1;
    const bow = side.bowM * Math.sin(Math.PI * t);
    return {
      x: a.x + (b.x - a.x) * t + ((b.y - a.y) / len) * bow,
      y: a.y + (b.y - a.y) * t - ((b.x - a.x) / len) * bow,
    };
  }

  /**
   * Adds a connection node at the point where the straight line p–q crosses a border side and
   * returns it (the end of a motorway), or -1 when the line crosses no border side.
   */
  terminalOnBorder(p: Xy, q: Xy): number {
    for (const side of [...this.hSides, ...this.vSides]) {
      if (!side.border) continue;
      const t = crossFraction(this.points[side.a], this.points[side.b], p, q);
      if (t <= 0 || t >= 1) continue;
      let k = 0;
      while (k < side.ts.length && side.ts[k] < t) k++;
      const node = this.ctx.store.addNode(this.sidePoint(side, t));
      side.ts.splice(k, 0, t);
      side.nodes.splice(k, 0, node);
      return node;
    }
    return -1;
  }

  /** Creates the lattice nodes (all signalised) and the connection nodes outside the corridors. */
  createNodes(): void {
    const { store } = this.ctx;
    for (let k = 0; k < this.points.length; k++) this.nodes[k] = store.addNode(this.points[k]);
    for (const side of [...this.hSides, ...this.vSides])
      for (let k = 0; k < side.ts.length; k++) {
        if (side.nodes[k] >= 0) continue;
        const p = this.sidePoint(side, side.ts[k]);
        side.nodes[k] = isBlocked(this.ctx, p) ? -1 : store.addNode(p);
      }
    const c = this.ctx.cells;
    for (let i = 0; i <= c; i++)
      for (let j = 0; j <= c; j++) {
        const corner = (i === 0 || i === c) && (j === 0 || j === c);
        if (!corner) store.tagNode(this.nodes[this.index(i, j)], { highway: 'traffic_signals' });
      }
  }

  /** Adds every arterial as ways (one per side piece) and returns where they pass over motorways. */
  addArterials(downtown: (i: number, j: number) => boolean): MotorwayOverpass[] {
    const c = this.ctx.cells;
    const overpasses: MotorwayOverpass[] = [];
    for (let i = 0; i <= c; i++) {
      const tags = this.arterialTags(this.nsNames[i], i, c);
      for (let j = 0; j < c; j++) {
        const dt = downtown(Math.min(i, c - 1), j) || downtown(Math.max(i - 1, 0), j);
        this.addSide(this.v(i, j), dt ? this.downtownTags(tags) : tags, i % 4 === 2, i === 0 || i === c, overpasses);
      }
    }
    for (let j = 0; j <= c; j++) {
      const tags = this.arterialTags(this.ewNames[j], j, c);
      for (let i = 0; i < c; i++) {
        const dt = downtown(i, Math.min(j, c - 1)) || downtown(i, Math.max(j - 1, 0));
        this.addSide(this.h(i, j), dt ? this.downtownTags(tags) : tags, false, j === 0 || j === c, overpasses);
      }
    }
    return overpasses;
  }

  private makeSide(a: number, b: number, count: number, border: boolean): Side {
    const { rng } = this.ctx;
    const ts: number[] = [];
    for (let k = 1; k <= count; k++) ts.push((k + rng.float(-0.2, 0.2)) / (count + 1));
    return { a, b, border, bowM: border ? 0 : rng.float(-SIDE_BOW_M, SIDE_BOW_M), ts, nodes: ts.map(() => -1) };
  }

  private arterialTags(name: string, line: number, c: number): Tags {
    const { rng } = this.ctx;
    const primary = line % 3 === 0 && line !== 0 && line !== c;
    const tags: Tags = {
      highway: primary ? 'primary' : 'secondary',
      name,
      lanes: primary ? '4' : '2',
      surface: 'asphalt',
    };
    if (rng.chance(0.92)) tags.maxspeed = primary ? '45 mph' : '40 mph';
    return tags;
  }

  private downtownTags(tags: Tags): Tags {
    return { ...tags, maxspeed: '30 mph', 'parking:lane:both': 'no_stopping', sidewalk: 'both' };
  }

  private addSide(side: Side, tags: Tags, riverBridge: boolean, border: boolean, out: MotorwayOverpass[]): void {
    const { ctx } = this;
    const { store } = ctx;
    const seq = [this.nodes[side.a], ...side.nodes.filter((n) => n >= 0), this.nodes[side.b]];
    let run: number[] = [seq[0]];
    let runTags = tags;
    const flush = (): void => {
      if (run.length >= 2) {
        const way = store.addWay(run, runTags);
        if (run[0] === seq[0]) this.arms[side.a].push({ way, toward: store.position(run[1]) });
        if (run[run.length - 1] === seq[seq.length - 1])
          this.arms[side.b].push({ way, toward: store.position(run[run.length - 2]) });
      }
    };
    for (let k = 1; k < seq.length; k++) {
      const pa = store.position(seq[k - 1]);
      const pb = store.position(seq[k]);
      const river = ctx.river.crossing(pa, pb) !== null;
      if (river && !riverBridge) {
        flush();
        run = [seq[k]];
        continue;
      }
      let bridge = river;
      ctx.motorways.forEach((m, motorway) => {
        const x = m.crossing(pa, pb);
        if (!x) return;
        bridge = true;
        const d = m.line.directionAt(x.s);
        const rightIsA = (pa.x - pb.x) * d.y - (pa.y - pb.y) * d.x > 0;
        const [right, left] = rightIsA ? [seq[k - 1], seq[k]] : [seq[k], seq[k - 1]];
        out.push({ motorway, s: x.s, right, left, border, name: tags.name ?? '' });
      });
      if (!bridge) {
        run.push(seq[k]);
        continue;
      }
      flush();
      run = [seq[k - 1], seq[k]];
      runTags = { ...tags, bridge: 'yes', layer: '1' };
      flush();
      run = [seq[k]];
      runTags = tags;
    }
    flush();
  }
}
