/**
 * Ground truth of the control-delay validation, derived from SUMO's outputs only (no streetwise
 * code): the network (lanes, lengths, speed limits, connections and the signal links they belong
 * to), the 1 s floating-car data with lane and position, the driven routes (vehroute output) and
 * every signal switch (SaveTLSSwitchStates). See docs/sumo-validation.md for the definition.
 *
 * For every vehicle and every signal (SUMO traffic-light program, which covers one junction or a
 * cluster of joined junctions) on its path:
 *   stop line  = end of the last normal lane before the first link the signal controls,
 *   far side   = start of the first normal lane after the last link of the same signal (links of
 *                one signal separated by less than `--join` metres of normal road are one crossing),
 *   zone       = [stop line − upstream, far side + downstream] along the vehicle's own path,
 *   travel     = time at the zone exit − time at the zone entry (first passage, linear in the 1 s data),
 *   free flow  = Σ piece length / speed limit of its lane (junction-internal lanes: the limit of the
 *                lane the vehicle arrived on),
 *   delay      = max(0, travel − free flow),
 *   stopped    = below `--stop-speed` m/s for at least `--stop-s` s inside the zone; stops = the
 *                number of such runs,
 *   approach   = upstream / (time at the stop line − entry time),
 *   on green   = the state of the vehicle's link is G or g at entry time + free-flow time to the stop line.
 * Vehicles that were teleported (a gap in their 1 s record) are listed and left out entirely, and
 * so are vehicles whose record cannot be followed along their driven route (`unfollowed`: no
 * route, a route step without a connection, or under 90 % of their samples on the path).
 *
 *   npx tsx scripts/sumo/delay/truth.ts --dir <scenario work dir> [--upstream 150] [--downstream 50]
 * writes <dir>/truth.json.
 */
import { createReadStream, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { SaxesParser } from 'saxes';

const { values: args } = parseArgs({
  options: {
    dir: { type: 'string' },
    upstream: { type: 'string', default: '150' },
    downstream: { type: 'string', default: '50' },
    join: { type: 'string', default: '30' },
    'stop-speed': { type: 'string', default: '2' },
    'stop-s': { type: 'string', default: '2' },
  },
});
if (!args.dir) throw new Error('usage: truth.ts --dir <scenario work dir>');
const DIR = args.dir;
const UP_M = Number(args.upstream);
const DOWN_M = Number(args.downstream);
const JOIN_M = Number(args.join);
const STOP_MPS = Number(args['stop-speed']);
const STOP_S = Number(args['stop-s']);

async function eachTag(path: string, fn: (name: string, a: Record<string, string>) => void): Promise<void> {
  const p = new SaxesParser();
  p.on('opentag', (t) => fn(t.name, t.attributes as Record<string, string>));
  for await (const chunk of createReadStream(path, { encoding: 'utf8', highWaterMark: 1 << 20 }))
    p.write(chunk as string);
  p.close();
}
const t0 = Date.now();
const log = (m: string): void => console.log(`[truth ${((Date.now() - t0) / 1000).toFixed(0)} s] ${m}`);

// ---- 1. network
interface Lane {
  id: string;
  edge: string;
  internal: boolean;
  lengthM: number;
  speedMps: number;
}
interface Conn {
  from: string;
  to: string;
  fromLane: number;
  toLane: number;
  via?: string;
  tl?: string;
  linkIndex?: number;
  dir: string;
}
const lanes = new Map<string, Lane>();
const edgeLanes = new Map<string, Lane[]>();
const connsFrom = new Map<string, Conn[]>(); // by from edge
const tlJunctions = new Map<string, Array<{ id: string; lon: number; lat: number }>>();
{
  let edge = '';
  let internal = false;
  await eachTag(join(DIR, 'city.net.xml'), (name, a) => {
    if (name === 'edge') {
      edge = a.id;
      internal = a.function === 'internal';
    } else if (name === 'lane') {
      const l: Lane = { id: a.id, edge, internal, lengthM: Number(a.length), speedMps: Number(a.speed) };
      lanes.set(a.id, l);
      const arr = edgeLanes.get(edge) ?? [];
      arr.push(l);
      edgeLanes.set(edge, arr);
    } else if (name === 'connection') {
      const c: Conn = {
        from: a.from,
        to: a.to,
        fromLane: Number(a.fromLane),
        toLane: Number(a.toLane),
        via: a.via,
        dir: a.dir ?? '',
      };
      if (a.tl !== undefined) {
        c.tl = a.tl;
        c.linkIndex = Number(a.linkIndex);
      }
      const arr = connsFrom.get(a.from) ?? [];
      arr.push(c);
      connsFrom.set(a.from, arr);
    }
  });
  await eachTag(join(DIR, 'plain.nod.xml'), (name, a) => {
    if (name !== 'node' || !a.tl) return;
    const arr = tlJunctions.get(a.tl) ?? [];
    arr.push({ id: a.id, lon: Number(a.x), lat: Number(a.y) });
    tlJunctions.set(a.tl, arr);
  });
}
log(`network: ${lanes.size} lanes, ${tlJunctions.size} signals`);

// ---- 2. signal states: per signal, switch times and states
const tlsStates = new Map<string, { t: number[]; s: string[] }>();
await eachTag(join(DIR, 'tls-states.xml'), (name, a) => {
  if (name !== 'tlsState') return;
  let r = tlsStates.get(a.id);
  if (!r) tlsStates.set(a.id, (r = { t: [], s: [] }));
  r.t.push(Number(a.time));
  r.s.push(a.state);
});
function linkStateAt(tl: string, linkIndex: number, tS: number): string | undefined {
  const r = tlsStates.get(tl);
  if (!r || r.t.length === 0 || tS < r.t[0]) return undefined;
  let lo = 0,
    hi = r.t.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (r.t[mid] <= tS) lo = mid;
    else hi = mid - 1;
  }
  return r.s[lo][linkIndex];
}

// ---- 3. driven routes
const routes = new Map<string, string[]>();
{
  let veh = '';
  await eachTag(join(DIR, 'vehroutes.xml'), (name, a) => {
    if (name === 'vehicle') veh = a.id;
    else if (name === 'route' && veh && a.edges) routes.set(veh, a.edges.split(' '));
  });
}
log(`routes: ${routes.size} vehicles`);

// ---- 4. 1 s FCD: lane, position, speed per vehicle
interface Track {
  t: number[];
  lane: string[];
  pos: number[];
  v: number[];
}
const tracks = new Map<string, Track>();
{
  let time = 0;
  await eachTag(join(DIR, 'fcd.xml'), (name, a) => {
    if (name === 'timestep') time = Number(a.time);
    else if (name === 'vehicle') {
      let tr = tracks.get(a.id);
      if (!tr) tracks.set(a.id, (tr = { t: [], lane: [], pos: [], v: [] }));
      tr.t.push(time);
      tr.lane.push(a.lane);
      tr.pos.push(Number(a.pos));
      tr.v.push(Number(a.speed));
    }
  });
}
log(`fcd: ${tracks.size} vehicles`);

// ---- 5. per vehicle: path of lanes with offsets, then crossings
interface Segment {
  lane: Lane;
  startM: number;
  conn?: Conn;
}
/** Path segments of a vehicle: its route's normal edges and the junction-internal lanes between them. */
function buildPath(route: string[], tr: Track): Segment[] | undefined {
  // lanes observed per edge (last observation) to pick the connection actually used
  const lastLaneOn = new Map<string, string>();
  const seenInternal = new Set<string>();
  for (const l of tr.lane) {
    const lane = lanes.get(l);
    if (!lane) return undefined;
    if (lane.internal) seenInternal.add(l);
    else lastLaneOn.set(lane.edge, l);
  }
  const segs: Segment[] = [];
  let s = 0;
  for (let i = 0; i < route.length; i++) {
    const edge = route[i];
    const observed = lastLaneOn.get(edge);
    const lane = observed ? lanes.get(observed)! : edgeLanes.get(edge)?.[0];
    if (!lane) return undefined;
    segs.push({ lane, startM: s });
    s += lane.lengthM;
    if (i + 1 === route.length) break;
    // internal lanes from this edge to the next one: the connection matching the observed lanes
    const next = route[i + 1];
    const cands = (connsFrom.get(edge) ?? []).filter((c) => c.to === next);
    if (cands.length === 0) return undefined;
    const fromIdx = Number(lane.id.slice(lane.id.lastIndexOf('_') + 1));
    const chainOf = (c: Conn): Conn[] => {
      const out: Conn[] = [c];
      let via = c.via;
      while (via) {
        const ve = lanes.get(via)!.edge;
        const nc = (connsFrom.get(ve) ?? []).find((x) => x.to === next && x.via !== undefined);
        if (!nc) break;
        out.push(nc);
        via = nc.via;
      }
      return out;
    };
    const nextObserved = lastLaneOn.get(next);
    const nextIdx = nextObserved ? Number(nextObserved.slice(nextObserved.lastIndexOf('_') + 1)) : -1;
    const score = (c: Conn): number =>
      (c.fromLane === fromIdx ? 4 : 0) +
      (chainOf(c).some((x) => x.via && seenInternal.has(x.via)) ? 2 : 0) +
      (c.toLane === nextIdx ? 1 : 0);
    const best = cands.reduce((a, b) => (score(b) > score(a) ? b : a));
    for (const c of chainOf(best)) {
      if (!c.via) continue;
      const vl = lanes.get(c.via)!;
      segs.push({ lane: vl, startM: s, conn: c });
      s += vl.lengthM;
    }
  }
  return segs;
}

export interface TruthCrossing {
  vehicle: string;
  tl: string;
  approachEdge: string;
  exitEdge: string;
  linkIndex: number;
  dir: string;
  entryS: number;
  exitS: number;
  stopLineS: number;
  travelS: number;
  freeFlowS: number;
  delayS: number;
  stopped: boolean;
  stopS: number;
  /** runs below the stop speed of at least the stop duration in the zone */
  stops: number;
  approachKph: number;
  arrivalS: number;
  onGreen: boolean | null;
  zoneM: number;
}

const crossings: TruthCrossing[] = [];
const teleported: string[] = [];
/** vehicles whose record the truth cannot follow along their route (left out on both sides, as teleported ones) */
const unfollowed: string[] = [];
const unfollowedWhy = { noRoute: 0, noPath: 0, offPath: 0 };
for (const [veh, tr] of tracks) {
  // a teleport takes the vehicle off the network: a gap in its 1 s record
  let gap = false;
  for (let i = 1; i < tr.t.length; i++)
    if (tr.t[i] - tr.t[i - 1] > 1.001) {
      gap = true;
      break;
    }
  if (gap) {
    teleported.push(veh);
    continue;
  }
  const route = routes.get(veh);
  if (!route) {
    unfollowed.push(veh);
    unfollowedWhy.noRoute++;
    continue;
  }
  const segs = buildPath(route, tr);
  if (!segs) {
    unfollowed.push(veh);
    unfollowedWhy.noPath++;
    continue;
  }
  // distance along the path of every observation (segments are visited in order; an observation
  // on a parallel junction-internal lane counts on the internal edge of the chosen link)
  const obsT: number[] = [];
  const obsD: number[] = [];
  const obsV: number[] = [];
  let k = 0;
  for (let i = 0; i < tr.t.length; i++) {
    const edge = lanes.get(tr.lane[i])!.edge;
    let j = k;
    while (j < segs.length && segs[j].lane.edge !== edge) j++;
    if (j === segs.length) continue;
    k = j;
    let x = segs[k].startM + Math.min(tr.pos[i], segs[k].lane.lengthM);
    if (obsD.length > 0 && x < obsD[obsD.length - 1]) x = obsD[obsD.length - 1];
    obsT.push(tr.t[i]);
    obsD.push(x);
    obsV.push(tr.v[i]);
  }
  if (obsT.length < 2 || obsT.length < 0.9 * tr.t.length) {
    unfollowed.push(veh);
    unfollowedWhy.offPath++;
    continue;
  }
  const d = obsD;
  const timeAt = (x: number): number | undefined => {
    if (x < d[0] || x > d[d.length - 1]) return undefined;
    let lo = 0,
      hi = d.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (d[mid] >= x) hi = mid;
      else lo = mid + 1;
    }
    if (lo === 0 || d[lo] === x) return obsT[lo];
    return obsT[lo - 1] + ((x - d[lo - 1]) / (d[lo] - d[lo - 1])) * (obsT[lo] - obsT[lo - 1]);
  };
  const freeFlow = (a: number, b: number): number => {
    let ff = 0;
    let limit = segs[0].lane.speedMps;
    for (const sg of segs) {
      if (!sg.lane.internal) limit = sg.lane.speedMps;
      const ov = Math.min(sg.startM + sg.lane.lengthM, b) - Math.max(sg.startM, a);
      if (ov > 0) ff += ov / limit;
    }
    return ff;
  };
  // crossings: runs of links of one signal
  for (let i = 0; i < segs.length; i++) {
    const c = segs[i].conn;
    if (!c || c.tl === undefined || (i > 0 && segs[i - 1].conn && segs[i - 1].lane.internal)) continue;
    const tl = c.tl;
    // the segment just before is the approach lane
    const approach = segs[i - 1];
    let last = i;
    let j = i + 1;
    let normalSince = 0;
    for (; j < segs.length; j++) {
      const sg = segs[j];
      if (!sg.lane.internal) {
        normalSince += sg.lane.lengthM;
        if (normalSince > JOIN_M) break;
        continue;
      }
      if (sg.conn?.tl !== undefined && sg.conn.tl !== tl) break;
      if (sg.conn?.tl === tl || (sg.lane.internal && last === j - 1)) {
        last = j;
        normalSince = 0;
      }
    }
    // next normal segment after `last`
    let exitIdx = last + 1;
    while (exitIdx < segs.length && segs[exitIdx].lane.internal) exitIdx++;
    if (exitIdx >= segs.length) continue;
    const sStop = segs[i].startM;
    const sFar = segs[exitIdx].startM;
    const sIn = sStop - UP_M;
    const sOut = sFar + DOWN_M;
    const tIn = timeAt(sIn);
    const tOut = timeAt(sOut);
    const tStop = timeAt(sStop);
    i = last; // continue after this crossing
    if (tIn === undefined || tOut === undefined || tStop === undefined) continue;
    const ff = freeFlow(sIn, sOut);
    // slow time inside the zone: 1 s intervals with both ends below the threshold
    let stopS = 0;
    let stops = 0;
    let run = 0;
    for (let q = 1; q < obsT.length; q++) {
      if (obsT[q] <= tIn || obsT[q - 1] >= tOut) continue;
      if (obsV[q] < STOP_MPS && obsV[q - 1] < STOP_MPS) run += Math.min(obsT[q], tOut) - Math.max(obsT[q - 1], tIn);
      else {
        if (run >= STOP_S) {
          stopS += run;
          stops++;
        }
        run = 0;
      }
    }
    if (run >= STOP_S) {
      stopS += run;
      stops++;
    }
    const arrivalS = tIn + freeFlow(sIn, sStop);
    const state = linkStateAt(tl, c.linkIndex!, arrivalS);
    crossings.push({
      vehicle: veh,
      tl,
      approachEdge: approach.lane.edge,
      exitEdge: segs[exitIdx].lane.edge,
      linkIndex: c.linkIndex!,
      dir: c.dir,
      entryS: tIn,
      exitS: tOut,
      stopLineS: tStop,
      travelS: tOut - tIn,
      freeFlowS: ff,
      delayS: Math.max(0, tOut - tIn - ff),
      stopped: stopS > 0,
      stopS,
      stops,
      approachKph: (UP_M / Math.max(1e-9, tStop - tIn)) * 3.6,
      arrivalS,
      onGreen: state === undefined ? null : state === 'G' || state === 'g',
      zoneM: sOut - sIn,
    });
  }
}
log(
  `crossings: ${crossings.length}; teleported vehicles left out: ${teleported.length}; vehicles the truth cannot follow (left out): ${unfollowed.length} ${JSON.stringify(unfollowedWhy)}`,
);
const signals = [...tlJunctions.entries()].map(([tl, junctions]) => ({ tl, junctions }));
writeFileSync(
  join(DIR, 'truth.json'),
  JSON.stringify({
    params: { upstreamM: UP_M, downstreamM: DOWN_M, joinM: JOIN_M, stopSpeedMps: STOP_MPS, stopMinS: STOP_S },
    vehicles: tracks.size,
    teleported,
    inconsistent: unfollowed.length,
    unfollowed,
    signals,
    crossings,
  }),
);
log('wrote truth.json');
