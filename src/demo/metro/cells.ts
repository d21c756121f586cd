/**
 * The streets inside one cell of the arterial lattice, drawn in the cell's unit square (u east,
 * v north, mapped bilinearly onto the cell's four lattice points) and joined to the connection
 * nodes of the four sides:
 *   - grid: a skewed grid with a collector through the middle and missing links;
 *   - downtown: a dense grid with one-way pairs, signals or all-way stops at every crossing, curb
 *     parking rules and parking lots;
 *   - loops: a curving loop road with cul-de-sacs either side and a collector across it;
 *   - rural: one or two winding country roads with a few dead-end side roads.
 */
import type { Tags } from '../../osm/index.js';
import type { Xy } from './geometry.js';
import type { Lattice, Side } from './lattice.js';
import { ordinalStreet, streetName } from './names.js';
import { type PlanContext, type StreetPoint, addStreet, isBlocked } from './plan-context.js';

/** Kind of street pattern of a cell. */
export type CellPattern = 'grid' | 'downtown' | 'loops' | 'rural';

/** Probability that a grid segment is missing. */
const GRID_MISSING_P = 0.05;
/** Random shift of a grid node, metres. */
const NODE_JITTER_M = 6;

/** The cell (i, j) and what its streets join. */
interface Cell {
  i: number;
  j: number;
  corners: [Xy, Xy, Xy, Xy];
  bottom: Side;
  top: Side;
  left: Side;
  right: Side;
}

/** Draws the streets of cell (i, j) with the given pattern. */
export function addCellStreets(ctx: PlanContext, lattice: Lattice, i: number, j: number, pattern: CellPattern): void {
  const p = lattice.points;
  const cell: Cell = {
    i,
    j,
    corners: [
      p[lattice.index(i, j)],
      p[lattice.index(i + 1, j)],
      p[lattice.index(i + 1, j + 1)],
      p[lattice.index(i, j + 1)],
    ],
    bottom: lattice.h(i, j),
    top: lattice.h(i, j + 1),
    left: lattice.v(i, j),
    right: lattice.v(i + 1, j),
  };
  if (pattern === 'grid' || pattern === 'downtown') addGrid(ctx, cell, pattern === 'downtown');
  else if (pattern === 'loops') addLoops(ctx, cell);
  else addRural(ctx, cell);
}

/** Plan position of unit-square point (u, v) of the cell. */
function at(cell: Cell, u: number, v: number): Xy {
  const [a, b, c, d] = cell.corners;
  return {
    x: (1 - u) * (1 - v) * a.x + u * (1 - v) * b.x + u * v * c.x + (1 - u) * v * d.x,
    y: (1 - u) * (1 - v) * a.y + u * (1 - v) * b.y + u * v * c.y + (1 - u) * v * d.y,
  };
}

/** A new node at (u, v) moved up to `jitterM`, or -1 inside a corridor. */
function nodeAt(ctx: PlanContext, cell: Cell, u: number, v: number, jitterM = NODE_JITTER_M, tags?: Tags): number {
  const q = at(cell, u, v);
  const p = { x: q.x + ctx.rng.float(-jitterM, jitterM), y: q.y + ctx.rng.float(-jitterM, jitterM) };
  return isBlocked(ctx, p) ? -1 : ctx.store.addNode(p, tags);
}

/** Residential street tags; `maxspeed` on a share only (the rest take the country default). */
function localTags(ctx: PlanContext, name: string, taggedP = 0.45): Tags {
  const t: Tags = { highway: 'residential', name };
  if (ctx.rng.chance(taggedP)) t.maxspeed = '25 mph';
  return t;
}

function collectorTags(ctx: PlanContext, name: string): Tags {
  const t: Tags = { highway: 'tertiary', name, lanes: '2' };
  if (ctx.rng.chance(0.75)) t.maxspeed = ctx.rng.chance(0.5) ? '30 mph' : '35 mph';
  return t;
}

const METERED: Tags = {
  'parking:lane:both': 'parallel',
  'parking:condition:both': 'ticket',
  'parking:condition:both:maxstay': '2 hours',
  'parking:condition:both:time_interval': 'Mo-Sa 08:00-20:00',
  'parking:condition:both:charge': '2.00 USD/hour',
};
const METERED_LEFT: Tags = {
  'parking:lane:left': 'parallel',
  'parking:condition:left': 'ticket',
  'parking:condition:left:maxstay': '1 hour',
  'parking:lane:right': 'no_parking',
};
const NEW_SCHEME: Tags = {
  'parking:both': 'lane',
  'parking:both:orientation': 'diagonal',
  'parking:both:fee': 'yes',
  'parking:both:maxstay': '3 hours',
};

/** Tags of downtown line k: every third pair of lines is a one-way couplet. */
function downtownTags(ctx: PlanContext, name: string, k: number, mid: number): { tags: Tags; dir: 1 | -1 | 0 } {
  const dir = k % 3 === 1 ? 1 : k % 3 === 2 ? -1 : 0;
  const base: Tags =
    k === mid
      ? { highway: 'tertiary', name, lanes: '2', ...NEW_SCHEME }
      : { highway: 'residential', name, ...(dir === 0 ? METERED : METERED_LEFT) };
  if (ctx.rng.chance(0.8)) base.maxspeed = '25 mph';
  if (dir !== 0) Object.assign(base, { oneway: 'yes', lanes: '2' });
  return { tags: base, dir };
}

function addGrid(ctx: PlanContext, cell: Cell, downtown: boolean): void {
  const { rng, store } = ctx;
  const mx = cell.bottom.ts.length === cell.top.ts.length ? cell.bottom.ts.length : 0;
  const my = cell.left.ts.length === cell.right.ts.length ? cell.left.ts.length : 0;
  const grid: number[][] = [];
  for (let k = 0; k < mx; k++) {
    grid.push([]);
    const ub = cell.bottom.ts[k];
    const du = cell.top.ts[k] - ub;
    for (let l = 0; l < my; l++) {
      const vl = cell.left.ts[l];
      const dv = cell.right.ts[l] - vl;
      const u = (ub + du * vl) / (1 - du * dv);
      const v = vl + dv * u;
      let tags: Tags | undefined;
      if (downtown) tags = rng.chance(0.55) ? { highway: 'traffic_signals' } : { highway: 'stop', stop: 'all' };
      else if (k === mx >> 1 && l === my >> 1) tags = { highway: 'traffic_signals' };
      else if (rng.chance(0.06)) tags = { highway: 'stop', stop: 'all' };
      grid[k].push(nodeAt(ctx, cell, u, v, NODE_JITTER_M, tags));
    }
  }
  const dropP = downtown ? 0 : GRID_MISSING_P;
  const lineTags = (k: number, mid: number, globalIndex: number, ns: boolean): { tags: Tags; dir: 1 | -1 | 0 } => {
    if (downtown) return downtownTags(ctx, ns ? ordinalStreet(globalIndex) : streetName(rng, 'local'), k, mid);
    if (k === mid) return { tags: collectorTags(ctx, streetName(rng, 'collector')), dir: 0 };
    return { tags: localTags(ctx, streetName(rng, 'local')), dir: 0 };
  };
  for (let k = 0; k < mx; k++) {
    const pts = [cell.bottom.nodes[k], ...grid[k], cell.top.nodes[k]];
    const { tags, dir } = lineTags(k, mx >> 1, cell.i * 9 + k + 1, true);
    if (k === mx >> 1 && !downtown && cell.bottom.nodes[k] >= 0 && rng.chance(0.4))
      store.tagNode(cell.bottom.nodes[k], { highway: 'traffic_signals' });
    addStreet(ctx, dir === -1 ? pts.reverse() : pts, tags, dropP);
  }
  for (let l = 0; l < my; l++) {
    const pts = [cell.left.nodes[l], ...grid.map((col) => col[l]), cell.right.nodes[l]];
    const { tags, dir } = lineTags(l, my >> 1, cell.j * 9 + l + 1, false);
    if (l === my >> 1 && !downtown && cell.left.nodes[l] >= 0 && rng.chance(0.4))
      store.tagNode(cell.left.nodes[l], { highway: 'traffic_signals' });
    addStreet(ctx, dir === -1 ? pts.reverse() : pts, tags, dropP);
  }
  if (downtown) addLots(ctx, grid);
}

/** Parking lots in some downtown blocks: a 30 × 22 m outline at the block's centre. */
function addLots(ctx: PlanContext, grid: number[][]): void {
  const { rng, store } = ctx;
  for (let k = 0; k + 1 < grid.length; k++)
    for (let l = 0; l + 1 < grid[k].length; l++) {
      const corners = [grid[k][l], grid[k + 1][l], grid[k + 1][l + 1], grid[k][l + 1]];
      if (corners.some((n) => n < 0) || !rng.chance(0.18)) continue;
      const ps = corners.map((n) => store.position(n));
      const cx = ps.reduce((s, p) => s + p.x, 0) / 4;
      const cy = ps.reduce((s, p) => s + p.y, 0) / 4;
      const ring = [
        [-15, -11],
        [15, -11],
        [15, 11],
        [-15, 11],
      ].map(([dx, dy]) => store.addNode({ x: cx + dx, y: cy + dy }));
      const kind = rng.pick(['surface', 'multi-storey', 'underground']);
      const capacity = kind === 'surface' ? rng.int(20, 60) : rng.int(150, 600);
      store.addWay([...ring, ring[0]], {
        amenity: 'parking',
        parking: kind,
        capacity: String(capacity),
        fee: 'yes',
        access: 'yes',
        name: `${streetName(rng, 'local').split(' ')[0]} ${kind === 'surface' ? 'Lot' : 'Garage'}`,
        opening_hours: kind === 'surface' ? '24/7' : 'Mo-Sa 06:00-23:00',
      });
    }
}

/** Point of the rounded-square loop at angle θ, in unit coordinates, with inset `a`. */
function loopPoint(a: number, theta: number): [number, number] {
  const r = 0.5 - a;
  const c = Math.cos(theta);
  const s = Math.sin(theta);
  return [0.5 + r * Math.sign(c) * Math.abs(c) ** 0.4, 0.5 + r * Math.sign(s) * Math.abs(s) ** 0.4];
}

/** The connection node of `side` nearest to fraction t (or -1). */
function nearestConnection(side: Side, t: number): number {
  let best = -1;
  let bestD = Infinity;
  side.ts.forEach((st, k) => {
    if (side.nodes[k] >= 0 && Math.abs(st - t) < bestD) [best, bestD] = [side.nodes[k], Math.abs(st - t)];
  });
  return best;
}

function addLoops(ctx: PlanContext, cell: Cell): void {
  const { rng } = ctx;
  const a = rng.float(0.18, 0.26);
  const count = 4 * rng.int(8, 10);
  const loopNodes: number[] = [];
  const loopPts: StreetPoint[] = [];
  for (let k = 0; k < count; k++) {
    const [u, v] = loopPoint(a, (2 * Math.PI * k) / count);
    loopNodes.push(nodeAt(ctx, cell, u, v, 4));
  }
  for (let k = 0; k <= count; k++) {
    loopPts.push(loopNodes[k % count]);
    if (k < count) loopPts.push(at(cell, ...loopPoint(a, (2 * Math.PI * (k + 0.5)) / count)));
  }
  addStreet(ctx, loopPts, localTags(ctx, streetName(rng, 'local')), 0.03);
  // spokes to the middle connection of each side (east, north, west, south = angles 0, 90, 180, 270°)
  const sides: Array<[Side, number]> = [
    [cell.right, 0],
    [cell.top, count / 4],
    [cell.left, count / 2],
    [cell.bottom, (3 * count) / 4],
  ];
  for (const [side, k] of sides) {
    const conn = nearestConnection(side, 0.5);
    addStreet(ctx, [conn, loopNodes[k]], localTags(ctx, streetName(rng, 'local')));
  }
  // branches outward: cul-de-sacs, a quarter of them joining the arterial
  for (let k = 0; k < count; k++) {
    if (k % (count / 4) === 0 || loopNodes[k] < 0 || rng.chance(0.15)) continue;
    const [u, v] = loopPoint(a, (2 * Math.PI * k) / count);
    const du = u - 0.5;
    const dv = v - 0.5;
    const len = Math.hypot(du, dv);
    if (rng.chance(0.25)) {
      const side = Math.abs(du) > Math.abs(dv) ? (du > 0 ? cell.right : cell.left) : dv > 0 ? cell.top : cell.bottom;
      const conn = nearestConnection(side, Math.abs(du) > Math.abs(dv) ? v : u);
      addStreet(ctx, [loopNodes[k], conn], localTags(ctx, streetName(rng, 'local')));
      continue;
    }
    const reach = a * rng.float(0.5, 0.75);
    const unit = { x: du / len, y: dv / len };
    addCulDeSac(ctx, cell, loopNodes[k], u, v, unit, reach);
  }
  addLoopCollector(ctx, cell, loopNodes[(3 * count) / 4], loopNodes[count / 4], a);
}

/** The collector across a loop (south to north) with cul-de-sacs either side. */
function addLoopCollector(ctx: PlanContext, cell: Cell, south: number, north: number, a: number): void {
  const { rng } = ctx;
  const steps = 6;
  const pts: number[] = [south];
  const mids: Array<[number, number, number]> = [];
  for (let s = 1; s <= steps; s++) {
    const v = a + ((1 - 2 * a) * s) / (steps + 1);
    const u = 0.5 + rng.float(-0.03, 0.03);
    const n = nodeAt(ctx, cell, u, v, 4);
    pts.push(n);
    mids.push([n, u, v]);
  }
  pts.push(north);
  addStreet(ctx, pts, collectorTags(ctx, streetName(rng, 'collector')));
  for (const [n, u, v] of mids) {
    if (n < 0) continue;
    for (const dir of [-1, 1]) {
      if (!rng.chance(0.8)) continue;
      const reach = (0.5 - a) * rng.float(0.5, 0.8);
      addCulDeSac(ctx, cell, n, u, v, { x: dir, y: rng.float(-0.3, 0.3) }, reach);
    }
  }
}

/**
 * A cul-de-sac from node `from` at (u, v) heading `dir` (unit coordinates) for `reach`: two curving
 * segments, and on half of them a short court off the middle node.
 */
function addCulDeSac(ctx: PlanContext, cell: Cell, from: number, u: number, v: number, dir: Xy, reach: number): void {
  const { rng } = ctx;
  if (from < 0) return;
  const side = { x: -dir.y, y: dir.x };
  const wob = rng.float(-0.02, 0.02);
  const mid = nodeAt(ctx, cell, u + dir.x * reach * 0.5 + side.x * wob, v + dir.y * reach * 0.5 + side.y * wob, 3);
  const end = nodeAt(ctx, cell, u + dir.x * reach, v + dir.y * reach, 3);
  const bend = at(cell, u + dir.x * reach * 0.75 - side.x * wob, v + dir.y * reach * 0.75 - side.y * wob);
  addStreet(ctx, [from, mid, bend, end], localTags(ctx, streetName(rng, 'cul-de-sac')));
  if (mid < 0 || !rng.chance(0.5)) return;
  const s = rng.chance(0.5) ? 1 : -1;
  const tip = nodeAt(
    ctx,
    cell,
    u + dir.x * reach * 0.5 + side.x * s * reach * 0.4,
    v + dir.y * reach * 0.5 + side.y * s * reach * 0.4,
    3,
  );
  addStreet(ctx, [mid, tip], localTags(ctx, streetName(rng, 'cul-de-sac')));
}

function addRural(ctx: PlanContext, cell: Cell): void {
  const { rng } = ctx;
  const both = rng.chance(0.5);
  const horizontal = both || rng.chance(0.5);
  const centre = nodeAt(ctx, cell, 0.5 + rng.float(-0.08, 0.08), 0.5 + rng.float(-0.08, 0.08), 10);
  const road = (from: Side, to: Side, alongU: boolean): void => {
    const pts: StreetPoint[] = [nearestConnection(from, 0.5)];
    const side: number[] = [];
    for (const f of [0.125, 0.25, 0.375, 0.5, 0.625, 0.75, 0.875]) {
      const wob = rng.float(-0.1, 0.1);
      const [u, v] = alongU ? [f, 0.5 + wob] : [0.5 + wob, f];
      if (f === 0.5) pts.push(centre);
      else if (f === 0.25 || f === 0.75) {
        const n = nodeAt(ctx, cell, u, v, 10);
        pts.push(n);
        side.push(n);
      } else pts.push(at(cell, u, v));
    }
    pts.push(nearestConnection(to, 0.5));
    const tags: Tags = { highway: 'unclassified', name: streetName(rng, 'country') };
    if (rng.chance(0.5)) tags.maxspeed = '45 mph';
    addStreet(ctx, pts, tags);
    for (const n of side) {
      if (n < 0 || !rng.chance(0.6)) continue;
      const p = ctx.store.position(n);
      const dir = rng.chance(0.5) ? 1 : -1;
      const reachM = rng.float(200, 350);
      const q = alongU
        ? { x: p.x + rng.float(-60, 60), y: p.y + dir * reachM }
        : { x: p.x + dir * reachM, y: p.y + rng.float(-60, 60) };
      const end = isBlocked(ctx, q) ? -1 : ctx.store.addNode(q);
      const mid = { x: (p.x + q.x) / 2 + rng.float(-25, 25), y: (p.y + q.y) / 2 + rng.float(-25, 25) };
      addStreet(ctx, [n, mid, end], localTags(ctx, streetName(rng, 'cul-de-sac'), 0.3));
    }
  };
  if (horizontal) road(cell.left, cell.right, true);
  if (both || !horizontal) road(cell.bottom, cell.top, false);
}
