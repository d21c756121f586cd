/**
 * Words for a route: the runs of named road it follows, the summary (major roads with their
 * road class), the one-line description and turn-by-turn maneuvers. Format neutral.
 */
import { EdgeFlag, RoadClass, type Graph } from '../../network/graph.js';
import type { EdgeTiming } from '../path-cost.js';
import { signedTurnDeg } from '../../traffic/turn-costs.js';
import { bearingDeg } from '../../geo/index.js';

/** Display units: 0 English (mi, ft, mph), 1 metric (km, m, km/h). */
export type Units = 0 | 1;

/** A stretch of the route on one road (same display name). */
export interface RoadRun {
  name: string;
  /** most important road class on the run (lowest id) */
  roadClass: number;
  lengthM: number;
  /** index range into timings */
  from: number;
  to: number;
}

/** One turn-by-turn instruction. */
export interface Maneuver {
  text: string;
  /** depart, straight, slight left, left, sharp left, uturn, slight right, right, sharp right, ramp, roundabout, arrive */
  turnType: string;
  /** distance until the next maneuver, in the request's units (mi / km) */
  distance: number;
  roadName: string;
  /** where the maneuver happens [lat, lon] */
  point: [number, number];
}

const CARDINAL = ['N', 'E', 'S', 'W'];

/** Refs as displayed (`I 95` → `I-95`), per graph and ref id: computed once, not per edge. */
const refCache = new WeakMap<Graph, Array<string | undefined>>();

function formattedRef(g: Graph, id: number): string {
  let c = refCache.get(g);
  if (c === undefined) refCache.set(g, (c = new Array<string | undefined>(g.names.length)));
  let r = c[id];
  if (r === undefined) c[id] = r = g.names[id].replace(/^I ?(\d)/, 'I-$1');
  return r;
}

/** Display name of an edge: the ref for motorways/trunks, else the name, else the ref. */
export function displayName(g: Graph, e: number): string {
  const name = g.names[g.edgeNameId[e]];
  const ref = formattedRef(g, g.edgeRefId[e]);
  if (ref && g.edgeRoadClass[e] <= RoadClass.trunk) return ref;
  return name || ref;
}

/** Splits timings into runs of the same display name. */
export function roadRuns(g: Graph, timings: EdgeTiming[]): RoadRun[] {
  const runs: RoadRun[] = [];
  for (let i = 0; i < timings.length; i++) {
    const e = timings[i].edge;
    const name = displayName(g, e);
    const last = runs[runs.length - 1];
    if (last && last.name === name) {
      last.to = i;
      last.lengthM += timings[i].lengthM;
      last.roadClass = Math.min(last.roadClass, g.edgeRoadClass[e]);
    } else runs.push({ name, roadClass: g.edgeRoadClass[e], lengthM: timings[i].lengthM, from: i, to: i });
  }
  return runs;
}

function runDirection(g: Graph, timings: EdgeTiming[], run: RoadRun): string {
  const a = g.edgeSource[timings[run.from].edge];
  const b = g.edgeTarget[timings[run.to].edge];
  const br = bearingDeg(g.nodeLatE7[a] / 1e7, g.nodeLonE7[a] / 1e7, g.nodeLatE7[b] / 1e7, g.nodeLonE7[b] / 1e7);
  return CARDINAL[Math.round(br / 90) % 4];
}

/** The major roads of a route: the (up to 3) longest named runs (merged by name) in route order. */
export function majorRuns(g: Graph, timings: EdgeTiming[]): RoadRun[] {
  const runs = roadRuns(g, timings).filter((r) => r.name !== '');
  const merged = new Map<string, RoadRun>();
  for (const r of runs) {
    const m = merged.get(r.name);
    if (m) {
      m.lengthM += r.lengthM;
      m.roadClass = Math.min(m.roadClass, r.roadClass);
    } else merged.set(r.name, { ...r });
  }
  const total = runs.reduce((a, r) => a + r.lengthM, 0);
  // major roads: the longest runs, ignoring short pieces under 10 % of the route (the longest always counts)
  // and roads more than two classes below the route's most important one
  const bestClass = runs.reduce((a, r) => Math.min(a, r.roadClass), 99);
  return [...merged.values()]
    .sort((x, y) => y.lengthM - x.lengthM)
    .filter((r, i) => i === 0 || (r.lengthM >= 0.1 * total && r.roadClass <= bestClass + 2))
    .slice(0, 3)
    .sort((x, y) => x.from - y.from);
}

/** Summary: the major roads (`majorRuns`); refs of primary and more important roads get a cardinal direction. */
export function summarize(
  g: Graph,
  timings: EdgeTiming[],
): { text: string; roads: Array<{ roadClass: number; name: string }> } {
  const roads = majorRuns(g, timings).map((r) => {
    const isRef = /\d/.test(r.name) && r.roadClass <= RoadClass.primary;
    return { roadClass: r.roadClass, name: isRef ? `${r.name} ${runDirection(g, timings, r)}` : r.name };
  });
  return { text: roads.map((r) => r.name).join(', '), roads };
}

/** One-line description: the summary roads joined by " to ". */
export function describe(summary: { roads: Array<{ name: string }> }): string {
  return summary.roads.map((r) => r.name).join(' to ');
}

/** Distance as instruction text: "0.3 mi" / "450 ft" or "1.2 km" / "300 m". */
export function formatDistance(lengthM: number, units: Units): string {
  if (units === 0) {
    const mi = lengthM / 1609.344;
    if (mi >= 0.1) return `${mi.toFixed(1)} mi`;
    return `${Math.max(0, Math.round((lengthM * 3.28084) / 10) * 10)} ft`;
  }
  if (lengthM >= 1000) return `${(lengthM / 1000).toFixed(1)} km`;
  return `${Math.max(0, Math.round(lengthM / 10) * 10)} m`;
}

function turnTypeOf(angle: number): string {
  const a = Math.abs(angle);
  const side = angle < 0 ? 'left' : 'right';
  if (a < 20) return 'straight';
  if (a < 45) return `slight ${side}`;
  if (a < 135) return side;
  if (a < 170) return `sharp ${side}`;
  return 'uturn';
}

/** What an unnamed road without a ref is called, by road class. */
const CLASS_LABEL = [
  'motorway',
  'trunk road',
  'primary road',
  'secondary road',
  'tertiary road',
  'minor road',
  'residential street',
  'living street',
  'service road',
  'ferry',
];

/** Name of an edge in maneuvers: its display name (name or ref), else its class ("service road", "ramp"). */
export function maneuverRoadName(g: Graph, e: number): string {
  const name = displayName(g, e);
  if (name !== '') return name;
  if (g.edgeFlags[e] & EdgeFlag.link) return 'ramp';
  return CLASS_LABEL[g.edgeRoadClass[e]] ?? 'road';
}

/** True when the edge has neither name nor ref (its maneuver name is a class label). */
function unnamed(g: Graph, e: number): boolean {
  return displayName(g, e) === '';
}

const ORDINAL = ['1st', '2nd', '3rd'];
const ordinal = (n: number) => ORDINAL[n - 1] ?? `${n}th`;

/** Tunnels shorter than this get no maneuver of their own (underpasses), metres. */
export const TUNNEL_MANEUVER_MIN_M = 50;

const VERB: Record<string, string> = {
  straight: 'Continue onto',
  'slight left': 'Bear left onto',
  'slight right': 'Bear right onto',
  left: 'Turn left onto',
  right: 'Turn right onto',
  'sharp left': 'Turn sharp left onto',
  'sharp right': 'Turn sharp right onto',
  uturn: 'Make a U-turn onto',
  ramp: 'Take the ramp onto',
};

/**
 * Turn-by-turn maneuvers. A maneuver starts at the origin, at each change of road name or turn of
 * at least 45° at a junction (20° when not collapsing), at ramps; roundabouts (one maneuver naming
 * the exit number and the road taken), ferries (boarding and leaving) and tunnels of at least
 * 50 m get their own; each waypoint adds an arrival. `collapse` merges minor maneuvers (name changes
 * that go straight on, steps under 30 m) into their neighbour — never one onto a road of
 * `keepNames` (the summary's roads), so every road the summary names appears in the steps.
 * Unnamed roads are called by their ref, else their class ("service road").
 */
export function maneuvers(
  g: Graph,
  timings: EdgeTiming[],
  geometryPoints: Array<[number, number]>,
  edgeStart: number[],
  units: Units,
  collapse: boolean,
  legCount: number,
  keepNames: ReadonlySet<string> = new Set(),
): Maneuver[] {
  if (timings.length === 0) return [];
  const steps = stepsOf(g, timings, geometryPoints, edgeStart, collapse, legCount, keepNames);
  const toUnits = (m: number) => Math.round((units === 0 ? m / 1609.344 : m / 1000) * 100) / 100;
  const result: Maneuver[] = (collapse ? collapseSteps(steps) : steps).map((s) => ({
    text: stepText(s, geometryPoints, units),
    turnType: s.type,
    distance: toUnits(s.lengthM),
    roadName: s.name,
    point: geometryPoints[Math.min(s.at, geometryPoints.length - 1)],
  }));
  const end = geometryPoints[geometryPoints.length - 1];
  result.push({
    text: 'Arrive at destination',
    turnType: 'arrive',
    distance: 0,
    roadName: maneuverRoadName(g, timings[timings.length - 1].edge),
    point: end,
  });
  return result;
}

/** One maneuver before collapsing and rendering. */
interface Step {
  type: string;
  name: string;
  /** the name is a class label ("service road") */
  generic: boolean;
  /** index of its first geometry point */
  at: number;
  lengthM: number;
  leg: number;
  /** never merged into a neighbour */
  keep: boolean;
  /** roundabouts: exit number */
  exit?: number;
}

/** A step onto edge e starting at geometry point `at`. */
function stepOnto(g: Graph, e: number, type: string, at: number, leg: number, keep: boolean): Step {
  return { type, name: maneuverRoadName(g, e), generic: unnamed(g, e), at, lengthM: 0, leg, keep };
}

/** The steps of a route: a depart, one per maneuver along the edges, an arrival at each intermediate waypoint. */
function stepsOf(
  g: Graph,
  timings: EdgeTiming[],
  geometryPoints: Array<[number, number]>,
  edgeStart: number[],
  collapse: boolean,
  legCount: number,
  keepNames: ReadonlySet<string>,
): Step[] {
  const steps: Step[] = [stepOnto(g, timings[0].edge, 'depart', 0, 0, true)];
  for (let i = 0; i < timings.length; i++) {
    const t = timings[i];
    if (i > 0) {
      const next = stepAt(g, timings, i, steps[steps.length - 1], collapse);
      if (next !== null) {
        const keep = next.keep || keepNames.has(displayName(g, t.edge));
        steps.push({
          ...stepOnto(g, t.edge, next.type, edgeStart[i], t.leg, keep),
          ...(next.type === 'roundabout' ? { exit: 0 } : {}),
        });
      }
    }
    steps[steps.length - 1].lengthM += t.lengthM;
    const lastOfLeg = i === timings.length - 1 || timings[i + 1].leg !== t.leg;
    if (lastOfLeg && t.leg < legCount - 1) {
      // arrival at an intermediate waypoint
      steps.push(stepOnto(g, t.edge, 'waypoint', edgeStart[i + 1] ?? geometryPoints.length - 1, t.leg, true));
    }
  }
  return steps;
}

/**
 * The maneuver starting at timing i (> 0), or null when the route goes on within step `cur`. On a
 * roundabout, counts the exits passed into `cur`, and on leaving it names the exit and road taken.
 */
function stepAt(
  g: Graph,
  timings: EdgeTiming[],
  i: number,
  cur: Step,
  collapse: boolean,
): { type: string; keep: boolean } | null {
  const prev = timings[i - 1].edge;
  const e = timings[i].edge;
  const node = g.edgeSource[e];
  const ef = g.edgeFlags[e];
  const pf = g.edgeFlags[prev];
  if (pf & EdgeFlag.roundabout && ef & EdgeFlag.roundabout) {
    // still on the roundabout: count the exits passed at this node
    if (cur.type === 'roundabout') {
      for (let k = g.firstOut[node]; k < g.firstOut[node + 1]; k++) {
        const f = g.edgeFlags[k];
        if (f & EdgeFlag.routable && !(f & EdgeFlag.roundabout)) cur.exit = (cur.exit ?? 0) + 1;
      }
    }
    return null;
  }
  if (pf & EdgeFlag.roundabout && cur.type === 'roundabout') {
    // leaving it: the roundabout maneuver names the exit taken and the road beyond
    cur.exit = (cur.exit ?? 0) + 1;
    cur.name = maneuverRoadName(g, e);
    cur.generic = unnamed(g, e);
    return null;
  }
  const angle = signedTurnDeg(g.edgeBearingIn[prev], g.edgeBearingOut[e]);
  const turn = turnTypeOf(angle);
  if (timings[i].leg !== timings[i - 1].leg)
    return { type: turn === 'uturn' || g.edgeTwin[prev] === e ? 'uturn' : turn, keep: false };
  if (g.edgeTwin[prev] === e) return { type: 'uturn', keep: false };
  if (ef & EdgeFlag.roundabout) return { type: 'roundabout', keep: true };
  if (ef & EdgeFlag.ferry && !(pf & EdgeFlag.ferry)) return { type: 'ferry', keep: true };
  if (pf & EdgeFlag.ferry && !(ef & EdgeFlag.ferry)) return { type: 'leave ferry', keep: true };
  if (ef & EdgeFlag.link && !(pf & EdgeFlag.link)) return { type: 'ramp', keep: false };
  const degree = g.firstOut[node + 1] - g.firstOut[node] + (g.firstIn[node + 1] - g.firstIn[node]);
  const junction = degree > 2 || g.edgeTwin[prev] === e;
  if (junction && Math.abs(angle) >= (collapse ? 45 : 20)) return { type: turn, keep: false };
  if (ef & EdgeFlag.tunnel && !(pf & EdgeFlag.tunnel) && tunnelLengthFrom(g, timings, i) >= TUNNEL_MANEUVER_MIN_M)
    return { type: 'tunnel', keep: true };
  if (displayName(g, e) !== (cur.generic ? '' : cur.name)) return { type: 'straight', keep: false };
  return null;
}

/** Length of the tunnel starting at timing i, metres. */
function tunnelLengthFrom(g: Graph, timings: EdgeTiming[], i: number): number {
  let m = 0;
  for (let k = i; k < timings.length && g.edgeFlags[timings[k].edge] & EdgeFlag.tunnel; k++) m += timings[k].lengthM;
  return m;
}

/** Merges minor steps (name changes that go straight on, steps under 30 m) into the step before, unless kept. */
function collapseSteps(steps: Step[]): Step[] {
  const out: Step[] = [];
  for (const s of steps) {
    const prev = out[out.length - 1];
    if (
      prev &&
      prev.type !== 'waypoint' &&
      !s.keep &&
      s.type !== 'uturn' &&
      (s.type === 'straight' || s.lengthM < 30)
    ) {
      prev.lengthM += s.lengthM;
      continue;
    }
    out.push(s);
  }
  return out;
}

/** The instruction text of a step. */
function stepText(s: Step, geometryPoints: Array<[number, number]>, units: Units): string {
  const road = s.generic ? `the ${s.name}` : s.name;
  const dist = formatDistance(s.lengthM, units);
  switch (s.type) {
    case 'depart': {
      const a = geometryPoints[0];
      const b = geometryPoints[Math.min(geometryPoints.length - 1, 1)];
      const dir = ['north', 'east', 'south', 'west'][Math.round(bearingDeg(a[0], a[1], b[0], b[1]) / 90) % 4];
      return `Start on ${road} heading ${dir} and go ${dist}`;
    }
    case 'waypoint':
      return `Arrive at waypoint ${s.leg + 2}, then continue on ${road} and go ${dist}`;
    case 'roundabout':
      return `At the roundabout take the ${ordinal(Math.max(1, s.exit ?? 1))} exit onto ${road} and go ${dist}`;
    case 'ferry':
      if (s.generic) return `Take the ferry and go ${dist}`;
      return /ferry/i.test(s.name) ? `Take the ${s.name} and go ${dist}` : `Take the ${s.name} ferry and go ${dist}`;
    case 'leave ferry':
      return `Leave the ferry onto ${road} and go ${dist}`;
    case 'tunnel':
      return `Continue into the tunnel on ${road} and go ${dist}`;
    default:
      return `${VERB[s.type]} ${road} and go ${dist}`;
  }
}
