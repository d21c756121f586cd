/**
 * The generated metro "Greater Calvert": a seeded, deterministic metropolitan road network of a
 * requested size (directed routable edges), written as an OSM file (PBF or XML) that streetwise,
 * OSRM or any other OSM tool reads. The plan is a square of one-kilometre lattice cells:
 *   - signalised arterials along the lattice (overpasses at motorways, a bridge every fourth
 *     north–south line over the river);
 *   - a motorway ring and two motorways across it (two carriageways, diamond interchanges, eight-ramp
 *     system interchanges), ending at the plan's border;
 *   - a meandering river across the plan;
 *   - in each cell, local streets by distance from the centre: a dense downtown grid with one-way
 *     pairs, curb rules and parking lots; skewed grids with collectors and missing links; curving
 *     loops with cul-de-sacs; rural roads at the edge;
 *   - turn restrictions at a share of the arterial crossings; maxspeed on a share of the ways.
 * Same seed and size → byte-identical file. The size is reached by growing the plan a cell per
 * side at a time until the largest connected road network has at least the requested edges.
 */
import { M_PER_DEG } from '../../geo/index.js';
import type { OsmHeader } from '../../osm/index.js';
import { openOsmFile } from '../../osm/index.js';
import { createPrng } from '../prng.js';
import { addCellStreets, type CellPattern } from './cells.js';
import { Barrier, Polyline, type Xy } from './geometry.js';
import { Lattice } from './lattice.js';
import { type MotorwayLine, MotorwayNetwork } from './motorways.js';
import { CELL_M, MOTORWAY_CORRIDOR_M, type PlanContext, RIVER_CORRIDOR_M } from './plan-context.js';
import { type PlanCounts, type PlanFeatures, PlanStore } from './plan-store.js';

/** Name of the generated metro. */
export const METRO_NAME = 'Greater Calvert';
/** Default size: directed routable edges. */
export const DEFAULT_METRO_EDGES = 1_000_000;
/** Smallest size the generator accepts (a 4 × 4-cell plan). */
export const MIN_METRO_EDGES = 1_000;
/** Largest size the generator accepts. */
export const MAX_METRO_EDGES = 20_000_000;
/** Centre of the plan, degrees (a fictional metro in the US east: mph, America/New_York). */
const CENTRE_LAT = 40.05;
const CENTRE_LON = -76.95;
const M_PER_DEG_LON = M_PER_DEG * Math.cos((CENTRE_LAT * Math.PI) / 180);
/** Directed edges per lattice cell, on average (used for the first guess of the plan's size). */
const EDGES_PER_CELL = 300;
/** Fixed replication timestamp written to the file (2026-01-05T00:00:00Z), so files are identical. */
const FILE_TIMESTAMP_S = 1_767_571_200;

/** Options of the generator. */
export interface MetroOptions {
  /** PRNG seed (integer; default 1) */
  seed?: number;
  /** directed routable edges wanted (default DEFAULT_METRO_EDGES); the result has at least as many */
  edges?: number;
}

/** What was generated. */
export interface MetroSummary extends Omit<PlanCounts, 'features' | 'extent'>, PlanFeatures {
  name: string;
  seed: number;
  targetEdges: number;
  /** lattice cells per side; the plan is `cells` km square */
  cells: number;
  motorwayInterchanges: number;
  /** [minLat, minLon, maxLat, maxLon] declared in the file */
  bounds: [number, number, number, number];
  timeZone: string;
}

/** Plan position → [lat, lon] degrees. */
function toLatLon(cells: number): (p: Xy) => [number, number] {
  const half = (cells * CELL_M) / 2;
  return (p) => [CENTRE_LAT + (p.y - half) / M_PER_DEG, CENTRE_LON + (p.x - half) / M_PER_DEG_LON];
}

/** Checks the options and fills in the defaults. */
function resolve(options: MetroOptions): { seed: number; edges: number } {
  const seed = options.seed ?? 1;
  const edges = options.edges ?? DEFAULT_METRO_EDGES;
  if (!Number.isInteger(seed) || seed < 0 || seed > 2 ** 32 - 1)
    throw new Error(`metro seed must be an integer from 0 to ${2 ** 32 - 1}, got ${seed}`);
  if (!Number.isInteger(edges) || edges < MIN_METRO_EDGES || edges > MAX_METRO_EDGES)
    throw new Error(`metro edges must be an integer from ${MIN_METRO_EDGES} to ${MAX_METRO_EDGES}, got ${edges}`);
  return { seed, edges };
}

/**
 * Generates the metro and writes it to `path` (`.osm.pbf`: PBF, `.osm`: OSM XML), streamed.
 * @example const s = writeMetro('metro.osm.pbf', { seed: 1, edges: 1_000_000 }); console.log(s.directedEdges);
 */
export function writeMetro(path: string, options: MetroOptions = {}): MetroSummary {
  const { seed, edges } = resolve(options);
  let cells = Math.max(4, Math.round(Math.sqrt(edges / EDGES_PER_CELL)));
  let plan = planMetro(seed, cells);
  const guess = Math.max(4, Math.floor(cells * Math.sqrt(edges / Math.max(1, plan.counts.directedEdges))));
  if (guess !== cells) {
    cells = guess;
    plan = planMetro(seed, cells);
  }
  while (plan.counts.directedEdges < edges) {
    cells++;
    plan = planMetro(seed, cells);
  }
  const project = toLatLon(cells);
  const [x0, y0, x1, y1] = plan.counts.extent;
  const [minLat, minLon] = project({ x: x0 - 10, y: y0 - 10 });
  const [maxLat, maxLon] = project({ x: x1 + 10, y: y1 + 10 });
  const bounds: [number, number, number, number] = [minLat, minLon, maxLat, maxLon];
  const header: OsmHeader = {
    bounds,
    timestampS: FILE_TIMESTAMP_S,
    writingProgram: `streetwise metro (${METRO_NAME}, seed ${seed}, ${edges} edges)`,
  };
  plan.store.write(openOsmFile(path, header), project);
  const { features, extent: _extent, ...counts } = plan.counts;
  return {
    name: METRO_NAME,
    seed,
    targetEdges: edges,
    cells,
    motorwayInterchanges: plan.interchanges,
    bounds,
    timeZone: 'America/New_York',
    ...counts,
    ...features,
  };
}

/** The river's centre line y at x (a meander of two sine waves south of downtown), metres. */
function riverCurve(cells: number, seed: number, downtownSouthM: number): (x: number) => number {
  const rng = createPrng(seed ^ 0x5bd1e995);
  const y0 = Math.min(cells * CELL_M * 0.32, downtownSouthM - 1300);
  const p1 = rng.float(0, 2 * Math.PI);
  const p2 = rng.float(0, 2 * Math.PI);
  return (x) => y0 + 800 * Math.sin((2 * Math.PI * x) / 9000 + p1) + 300 * Math.sin((2 * Math.PI * x) / 3100 + p2);
}

/** Builds the whole plan for a square of `cells` × `cells` lattice cells. */
export function planMetro(seed: number, cells: number): { store: PlanStore; counts: PlanCounts; interchanges: number } {
  const sideM = cells * CELL_M;
  const centre = cells >> 1;
  const dtRadius = cells >= 12 ? 1 : 0;
  const riverY = riverCurve(cells, seed, (centre - dtRadius) * CELL_M);
  const riverPts: Xy[] = [];
  for (let x = 0; x <= sideM; x += 50) riverPts.push({ x, y: riverY(x) });
  const store = new PlanStore();
  const ctx: PlanContext = {
    store,
    rng: createPrng(seed),
    cells,
    river: new Barrier(new Polyline(riverPts), RIVER_CORRIDOR_M),
    motorways: [],
  };
  const downtown = (i: number, j: number): boolean =>
    Math.abs(i - centre) <= dtRadius && Math.abs(j - centre) <= dtRadius;
  const lattice = new Lattice(ctx, riverY, (k) => Math.abs(k - centre) <= dtRadius);
  const lines = motorwayLines(ctx, lattice);
  ctx.motorways = lines.map((m) => new Barrier(m.line, MOTORWAY_CORRIDOR_M));
  lattice.createNodes();
  const overpasses = lattice.addArterials(downtown);
  for (let i = 0; i < cells; i++)
    for (let j = 0; j < cells; j++) addCellStreets(ctx, lattice, i, j, cellPattern(ctx, i, j, downtown(i, j)));
  const motorways = new MotorwayNetwork(ctx, lines);
  motorways.addRiverBridges();
  motorways.addSystemInterchanges();
  motorways.addDiamonds(overpasses);
  motorways.addCarriageways();
  addRiver(ctx, riverPts);
  addRestrictions(ctx, lattice, downtown);
  return { store, counts: store.finish(), interchanges: motorways.interchanges };
}

/** The pattern of cell (i, j): denser streets near the centre, rural roads at the edge. */
function cellPattern(ctx: PlanContext, i: number, j: number, downtown: boolean): CellPattern {
  if (downtown) return 'downtown';
  const half = ctx.cells / 2;
  const r = Math.hypot(i + 0.5 - half, j + 0.5 - half) / half;
  const x = ctx.rng.next();
  if (r < 0.45) return x < 0.65 ? 'grid' : 'loops';
  if (r < 0.8) return x < 0.5 ? 'grid' : x < 0.95 ? 'loops' : 'rural';
  return x < 0.3 ? 'grid' : x < 0.8 ? 'loops' : 'rural';
}

/**
 * The motorway centre lines: one north–south and one east–west across the plan (ending at border
 * junctions), and from 8 cells per side a ring with rounded corners. Lines run along cell middles.
 */
function motorwayLines(ctx: PlanContext, lattice: Lattice): MotorwayLine[] {
  const c = ctx.cells;
  const sideM = c * CELL_M;
  const centre = c >> 1;
  const lines: MotorwayLine[] = [];
  const open = (from: Xy, to: Xy, ref: string, name: string): void => {
    const len = Math.hypot(to.x - from.x, to.y - from.y);
    const at = (s: number): Xy => ({
      x: from.x + ((to.x - from.x) * s) / len,
      y: from.y + ((to.y - from.y) * s) / len,
    });
    const startNode = lattice.terminalOnBorder(from, at(600));
    const endNode = lattice.terminalOnBorder(to, at(len - 600));
    const pts: Xy[] = [];
    for (let s = 250; s <= len - 250; s += 100) pts.push(at(s));
    lines.push({ line: new Polyline(pts), closed: false, ref, name, maxspeed: '55 mph', startNode, endNode });
  };
  if (c >= 4) {
    const x = (centre + 1.5) * CELL_M;
    open({ x, y: -200 }, { x, y: sideM + 200 }, 'I 83', 'Susquehanna Expressway');
    const y = (centre - 0.5) * CELL_M;
    open({ x: -200, y }, { x: sideM + 200, y }, 'I 76', 'Calvert Turnpike');
  }
  if (c >= 8) {
    const k = Math.min(centre - 1, Math.max(3, Math.round(0.3 * c)));
    lines.push({
      line: new Polyline(roundedSquare((centre - k + 0.5) * CELL_M, (centre + k + 0.5) * CELL_M, CELL_M / 2)),
      closed: true,
      ref: 'I 695',
      name: 'Calvert Beltway',
      maxspeed: '65 mph',
      startNode: -1,
      endNode: -1,
    });
  }
  return lines;
}

/** A closed counter-clockwise square [lo, hi]² with corners rounded to radius r (first point repeated). */
function roundedSquare(lo: number, hi: number, r: number): Xy[] {
  const pts: Xy[] = [];
  const corners: Array<[number, number, number]> = [
    [hi - r, lo + r, -90],
    [hi - r, hi - r, 0],
    [lo + r, hi - r, 90],
    [lo + r, lo + r, 180],
  ];
  for (const [cx, cy, a0] of corners) {
    for (let a = a0; a <= a0 + 90; a += 10) {
      const rad = (a * Math.PI) / 180;
      pts.push({ x: cx + r * Math.cos(rad), y: cy + r * Math.sin(rad) });
    }
  }
  pts.push(pts[0]);
  // straight sides sampled every 100 m between the arcs
  const out: Xy[] = [pts[0]];
  for (let i = 1; i < pts.length; i++) {
    const a = pts[i - 1];
    const b = pts[i];
    const n = Math.max(1, Math.ceil(Math.hypot(b.x - a.x, b.y - a.y) / 100));
    for (let k = 1; k <= n; k++) out.push({ x: a.x + ((b.x - a.x) * k) / n, y: a.y + ((b.y - a.y) * k) / n });
  }
  return out;
}

/** The river as a line (`waterway=river`) and its water area (100 m wide). */
function addRiver(ctx: PlanContext, pts: readonly Xy[]): void {
  const { store } = ctx;
  const tags = { name: 'Calvert River' };
  const line = pts.map((p) => store.addNode(p));
  for (let k = 0; k + 1 < line.length; k += 200)
    store.addWay(line.slice(k, Math.min(line.length, k + 201)), { ...tags, waterway: 'river' });
  const bank = (side: 1 | -1): number[] =>
    pts.map((p, k) => {
      const q = pts[Math.min(k + 1, pts.length - 1)];
      const o = pts[Math.max(k - 1, 0)];
      const len = Math.hypot(q.x - o.x, q.y - o.y) || 1;
      return store.addNode({ x: p.x + (side * 50 * (q.y - o.y)) / len, y: p.y - (side * 50 * (q.x - o.x)) / len });
    });
  const north = bank(-1);
  const south = bank(1).reverse();
  store.addWay([...north, ...south, north[0]], { ...tags, natural: 'water', water: 'river' });
}

/** Turn restrictions at a share of the arterial crossings (more downtown). */
function addRestrictions(ctx: PlanContext, lattice: Lattice, downtown: (i: number, j: number) => boolean): void {
  const { rng, store } = ctx;
  const c = ctx.cells;
  for (let i = 1; i < c; i++)
    for (let j = 1; j < c; j++) {
      const via = lattice.nodes[lattice.index(i, j)];
      const arms = lattice.arms[lattice.index(i, j)];
      if (arms.length < 3) continue;
      const p = store.position(via);
      const dt = downtown(i, j) || downtown(i - 1, j - 1);
      const x = rng.next();
      const from = arms[rng.int(0, arms.length - 1)];
      if (x < (dt ? 0.3 : 0.08)) {
        // the arm turning most to the left of the approach
        const inX = p.x - from.toward.x;
        const inY = p.y - from.toward.y;
        let best = from;
        let bestCross = 0;
        for (const arm of arms) {
          const cross = (inX * (arm.toward.y - p.y) - inY * (arm.toward.x - p.x)) / Math.hypot(inX, inY);
          if (arm !== from && cross > bestCross) [best, bestCross] = [arm, cross];
        }
        if (best === from) continue;
        store.addRelation(
          [
            { type: 'way', index: from.way, role: 'from' },
            { type: 'node', index: via, role: 'via' },
            { type: 'way', index: best.way, role: 'to' },
          ],
          { type: 'restriction', restriction: 'no_left_turn' },
        );
      } else if (x > 0.97) {
        store.addRelation(
          [
            { type: 'way', index: from.way, role: 'from' },
            { type: 'node', index: via, role: 'via' },
            { type: 'way', index: from.way, role: 'to' },
          ],
          { type: 'restriction', restriction: 'no_u_turn' },
        );
      }
    }
}
