/**
 * Predicted speed profiles: for each road-class group and urban context, a factor of free-flow
 * speed per 15-minute bin of the week (672 bins, bin 0 = Monday 00:00 local). Weekdays have an AM
 * peak around 08:00 and a stronger PM peak around 17:30 (Friday earlier and longer), weekends a
 * mild midday hump, nights run at free flow. Depths grow with road importance and urban context.
 */
import { RoadClass, type Graph } from '../network/graph.js';
import { BINS_PER_WEEK } from './feeds.js';

/** Number of profile groups: 5 class groups × 2 contexts (rural, urban). */
export const PROFILE_GROUPS = 10;

/** Class group of a road class: 0 motorway/trunk, 1 primary/secondary, 2 tertiary/unclassified, 3 local, 4 ferry. */
export function classGroup(roadClass: number): number {
  if (roadClass <= RoadClass.trunk) return 0;
  if (roadClass <= RoadClass.secondary) return 1;
  if (roadClass <= RoadClass.unclassified) return 2;
  if (roadClass === RoadClass.ferry) return 4;
  return 3;
}

/** Peak depth (fraction of free-flow speed lost at the worst weekday bin) per class group, urban. */
const URBAN_PEAK_DEPTH = [0.5, 0.4, 0.28, 0.12, 0];
/** Daytime baseline slowdown (fraction) per class group, urban (friction, pedestrians, parking). */
const URBAN_DAY_BASE = [0.08, 0.12, 0.1, 0.06, 0];
/** Rural contexts keep this share of the urban depths. */
const RURAL_SHARE = 0.4;

/** Ratio of free-flow speed to the posted limit per road class (signals are costed separately). */
const FREE_FLOW_RATIO: Record<number, number> = {
  [RoadClass.motorway]: 1.0,
  [RoadClass.trunk]: 0.97,
  [RoadClass.primary]: 0.95,
  [RoadClass.secondary]: 0.93,
  [RoadClass.tertiary]: 0.9,
  [RoadClass.unclassified]: 0.88,
  [RoadClass.residential]: 0.85,
  [RoadClass.living_street]: 0.7,
  [RoadClass.service]: 0.7,
  [RoadClass.ferry]: 1.0,
};

function gauss(x: number, mu: number, sigma: number): number {
  const z = (x - mu) / sigma;
  return Math.exp(-0.5 * z * z);
}

/** Congestion intensity 0..1 at local `hour` (fractional) of `day` (0 = Monday … 6 = Sunday). */
export function congestionIntensity(day: number, hour: number): number {
  if (day <= 4) {
    const friday = day === 4;
    const am = gauss(hour, 8.0, 0.9) * (friday ? 0.85 : 1);
    const pm = gauss(hour, friday ? 16.75 : 17.5, friday ? 1.6 : 1.25) * (friday ? 1.05 : 1);
    const midday = 0.3 * gauss(hour, 12.75, 1.5);
    return Math.min(1, am + pm + midday);
  }
  if (day === 5) return 0.35 * gauss(hour, 13.5, 2.5);
  return 0.2 * gauss(hour, 14, 2.5);
}

/** Share of "daytime" activity 0..1 at a local hour (smooth 06:00 rise, 22:00 fall). */
function daytime(hour: number): number {
  const up = 1 / (1 + Math.exp(-(hour - 6.5) * 2));
  const down = 1 / (1 + Math.exp((hour - 21.5) * 2));
  return up * down;
}

/**
 * Builds the factor table: `factors[group * 672 + bin]` = speed / free-flow speed at the middle
 * of the bin. Groups are `classGroup * 2 + (urban ? 1 : 0)`.
 */
export function buildPredictedFactors(): Float32Array {
  const out = new Float32Array(PROFILE_GROUPS * BINS_PER_WEEK);
  for (let cg = 0; cg < 5; cg++) {
    for (let urban = 0; urban < 2; urban++) {
      const share = urban ? 1 : RURAL_SHARE;
      const depth = URBAN_PEAK_DEPTH[cg] * share;
      const base = URBAN_DAY_BASE[cg] * share;
      const g = cg * 2 + urban;
      for (let b = 0; b < BINS_PER_WEEK; b++) {
        const day = Math.floor(b / 96);
        const hour = ((b % 96) + 0.5) / 4;
        const f = 1 - depth * congestionIntensity(day, hour) - base * daytime(hour);
        out[g * BINS_PER_WEEK + b] = Math.max(0.2, f);
      }
    }
  }
  return out;
}

/** Free-flow speed of an edge, km/h: the posted/default limit times a class ratio. */
export function freeFlowSpeedKph(g: Graph, e: number): number {
  const ratio = FREE_FLOW_RATIO[g.edgeRoadClass[e]] ?? 0.85;
  return Math.max(5, g.edgeSpeedKph[e] * ratio);
}

/** Cell size of the urban-density grid, degrees of latitude (~550 m). */
const URBAN_CELL_DEG = 0.005;

/**
 * Marks nodes as urban from node density: a node is urban when its ~550 m cell and the 8
 * neighbouring cells hold at least `minNodes` graph nodes (street-grid density of a built-up area).
 */
export function urbanNodes(g: Graph, minNodes = 120): Uint8Array {
  const cells = new Map<number, number>();
  const key = (cy: number, cx: number) => cy * 1_000_003 + cx;
  const cy = new Int32Array(g.nodeCount);
  const cx = new Int32Array(g.nodeCount);
  for (let n = 0; n < g.nodeCount; n++) {
    const lat = g.nodeLatE7[n] / 1e7;
    const lon = g.nodeLonE7[n] / 1e7;
    cy[n] = Math.floor(lat / URBAN_CELL_DEG);
    cx[n] = Math.floor((lon * Math.cos((lat * Math.PI) / 180)) / URBAN_CELL_DEG);
    const k = key(cy[n], cx[n]);
    cells.set(k, (cells.get(k) ?? 0) + 1);
  }
  const out = new Uint8Array(g.nodeCount);
  for (let n = 0; n < g.nodeCount; n++) {
    let total = 0;
    for (let dy = -1; dy <= 1; dy++)
      for (let dx = -1; dx <= 1; dx++) total += cells.get(key(cy[n] + dy, cx[n] + dx)) ?? 0;
    out[n] = total >= minNodes ? 1 : 0;
  }
  return out;
}
