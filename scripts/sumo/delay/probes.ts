/**
 * Probe side of the control-delay validation: a share of SUMO's vehicles become probes pinging
 * every few seconds (optionally with position noise), fed through streetwise's normal path — the
 * importer's region from the same OSM extract, ping ingestion, HMM map matching, stored
 * trajectories, `buildFacts` — exactly as `streetwise ingest probes` does. Writes the facts with
 * the keys the comparison needs (OSM nodes of the intersection, OSM way and direction of the
 * inbound and outbound edges). See docs/sumo-validation.md.
 *
 * With `--timing` the signal timing comes from controller event logs, as a city's signal
 * controllers would give it: SUMO's record of every signal switch is written as Indiana hi-res
 * logs with a channel/phase map per intersection, and read back through streetwise's parsers.
 * Free flow comes from the probes' unimpeded speeds (`observedFreeFlow`) unless `--free-flow limit`.
 *
 *   npx tsx scripts/sumo/delay/probes.ts --dir <scenario dir> --pbf city.osm.pbf --out facts.json
 *       [--share 0.1] [--every 3] [--noise 0] [--seed 1] [--timing] [--free-flow observed|limit]
 *       [--trajectories cache.json]
 */
import { createReadStream, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { join } from 'node:path';
import { SaxesParser } from 'saxes';
import { DateTime } from 'luxon';
import { readFcdTracks } from './fcd.js';
import { readOsmExtract } from '../../../src/osm/index.js';
import { buildRegion } from '../../../src/network/index.js';
import { openPglite, runMigrations } from '../../../src/store/index.js';
import { allMigrations } from '../../../src/app/migrations.js';
import { ingestHere } from '../../../src/app/ingestion/intake.js';
import type { ProbeRecord } from '../../../src/probes/ingest/records.js';
import { readTrajectories } from '../../../src/probes/traversal-read.js';
import type { Trajectory } from '../../../src/probes/trajectory.js';
import { buildFacts, catalogOf, type SignalTiming } from '../../../src/analytics/index.js';
import { observedFreeFlow } from '../../../src/analytics/facts/free-flow.js';
import { parseChannelMap, parseEventLog } from '../../../src/analytics/signals/event-log.js';
import { type IntersectionLog, signalTimingFromLogs } from '../../../src/analytics/signals/measures.js';
import { haversineM } from '../../../src/geo/index.js';
import { createRng } from '../../../src/sim/prng.js';

const { values: args } = parseArgs({
  options: {
    dir: { type: 'string' },
    pbf: { type: 'string' },
    out: { type: 'string' },
    share: { type: 'string', default: '0.1' },
    every: { type: 'string', default: '3' },
    noise: { type: 'string', default: '0' },
    seed: { type: 'string', default: '1' },
    day: { type: 'string', default: '2026-11-16' },
    timing: { type: 'boolean', default: false },
    'free-flow': { type: 'string', default: 'observed' },
    trajectories: { type: 'string' },
  },
});
if (!args.dir || !args.pbf || !args.out)
  throw new Error('usage: probes.ts --dir <scenario dir> --pbf x.osm.pbf --out facts.json');
const SHARE = Number(args.share);
const EVERY_S = Number(args.every);
const NOISE_M = Number(args.noise);
const t0 = Date.now();
const log = (m: string): void => console.log(`[probes ${((Date.now() - t0) / 1000).toFixed(0)} s] ${m}`);

/** FNV-1a hash of a string, for per-vehicle choices independent of the reading order. */
function hash(s: string, seed: number): number {
  let h = (2166136261 ^ seed) >>> 0;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 16777619) >>> 0;
  return h;
}
const seed = Number(args.seed);
const isProbe = (id: string): boolean => hash(id, seed) / 4294967296 < SHARE;

const extract = readOsmExtract(args.pbf);
const region = buildRegion(extract, { name: 'sumo-delay', mapVersion: 'sumo-delay-20261116' });
const g = region.graph;
const tz = region.meta.timeZone;
// SUMO's clock is seconds of the local day; the probes' day is a Monday in the region's time zone.
const midnightS = DateTime.fromISO(args.day!, { zone: tz }).toSeconds();
log(`region: ${g.edgeCount} edges, ${region.intersections.length} intersections, time zone ${tz}`);

// ---- pings of the probe vehicles
const tracks = await readFcdTracks(join(args.dir, 'fcd.xml'), isProbe);
log(`probe vehicles: ${tracks.size}`);

function* records(): Generator<ProbeRecord> {
  for (const [id, tr] of tracks) {
    const rnd = createRng(hash(id, seed + 1)).next;
    const phase = Math.floor(rnd() * EVERY_S);
    const gauss = (): number => Math.sqrt(-2 * Math.log(1 - rnd())) * Math.cos(2 * Math.PI * rnd());
    for (let i = 0; i < tr.t.length; i++) {
      if ((Math.round(tr.t[i]) - phase) % EVERY_S !== 0) continue;
      let lat = tr.lat[i];
      let lon = tr.lon[i];
      let v = tr.v[i];
      if (NOISE_M > 0) {
        lat += (gauss() * NOISE_M) / 111_195;
        lon += (gauss() * NOISE_M) / (111_195 * Math.cos((lat * Math.PI) / 180));
        v = Math.max(0, v + gauss() * 0.3); // GPS Doppler speed: a few tenths of a m/s
      }
      yield { traceId: id, ping: { tS: midnightS + tr.t[i], lat, lon, speedKph: v * 3.6, headingDeg: tr.h[i] } };
    }
  }
}

// --trajectories <file>: the matched trajectories of an earlier run with the same options are read
// from the file when it exists (matching is most of the run's time), else written to it
const cacheFile = args.trajectories;
let pings = 0;
let trajectoryCount = 0;
let trajectories: Trajectory[] = [];
if (cacheFile && existsSync(cacheFile)) {
  ({ pings, trajectoryCount, trajectories } = JSON.parse(readFileSync(cacheFile, 'utf8')));
  log(`read ${trajectories.length} trajectories from ${cacheFile}`);
} else {
  const db = await openPglite();
  await runMigrations(db, allMigrations());
  const { ingest, processed: proc } = await ingestHere(db, region, records());
  log(`ingested ${ingest.inserted} pings; ${proc.trajectories} trajectories, ${proc.traversals} traversals`);
  for await (const t of readTrajectories(db)) trajectories.push(t);
  await db.close();
  pings = ingest.inserted;
  trajectoryCount = proc.trajectories;
  if (cacheFile) writeFileSync(cacheFile, JSON.stringify({ pings, trajectoryCount, trajectories }));
}
// ---- comparison keys: OSM way and direction of an edge ("<way>+" along the way's nodes, "<way>-" against)
const wayRefs = new Map<number, number[]>();
for (const w of extract.roadWays) wayRefs.set(w.id, w.refs);
function wayKey(e: number): string {
  const refs = wayRefs.get(g.edgeWayId[e]);
  if (!refs) return '';
  const a = refs.indexOf(g.nodeOsmId[g.edgeSource[e]]);
  const b = refs.lastIndexOf(g.nodeOsmId[g.edgeTarget[e]]);
  return `${g.edgeWayId[e]}${b > a ? '+' : '-'}`;
}
const catalog = catalogOf(region);
const timing = args.timing ? await signalTimingFromSumo() : undefined;
// free flow from what the probes do unimpeded (--free-flow limit: the speed limits alone)
const freeFlow = args['free-flow'] === 'limit' ? undefined : observedFreeFlow(g, trajectories);
if (freeFlow) log(`observed free flow on ${freeFlow.samples.filter((n) => n > 0).length} edges`);
const facts = buildFacts(region, trajectories, { signalTiming: timing, freeFlow });
log(`facts: ${facts.length}`);

/**
 * Signal timing from controller logs written from SUMO's switch record: every SUMO signal becomes
 * a controller whose phase p is SUMO link p − 1, logged as an Indiana hi-res event log (Begin
 * Green, Begin Yellow, End Yellow, Begin Red Clearance) in `<dir>/signal-logs/<tl>.csv`; each of
 * our signalized intersections paired with a signal gets a channel/phase map naming the link of
 * each movement (same approach way, else same turn). Both are read back through streetwise's own
 * parsers and `signalTimingFromLogs`, as a city's logs would be.
 */
async function signalTimingFromSumo(): Promise<SignalTiming> {
  const eachTag = async (path: string, fn: (name: string, a: Record<string, string>) => void): Promise<void> => {
    const p = new SaxesParser();
    p.on('opentag', (t) => fn(t.name, t.attributes as Record<string, string>));
    for await (const chunk of createReadStream(path, { encoding: 'utf8', highWaterMark: 1 << 20 }))
      p.write(chunk as string);
    p.close();
  };
  const sumoWay = (e: string): string => {
    const m = /^(-?)(\d+)/.exec(e);
    return m ? `${m[2]}${m[1] === '-' ? '-' : '+'}` : e;
  };
  const links = new Map<string, Array<{ toWay: string; dir: string; linkIndex: number }>>(); // by tl|fromWay
  await eachTag(join(args.dir!, 'city.net.xml'), (name, a) => {
    if (name !== 'connection' || a.tl === undefined || a.from.startsWith(':')) return;
    const k = `${a.tl}|${sumoWay(a.from)}`;
    const arr = links.get(k) ?? [];
    arr.push({ toWay: sumoWay(a.to), dir: a.dir, linkIndex: Number(a.linkIndex) });
    links.set(k, arr);
  });
  // ---- the controllers' logs
  const logDir = join(args.dir!, 'signal-logs');
  mkdirSync(logDir, { recursive: true });
  const csvOf = new Map<string, string[]>();
  const lastClass = new Map<string, string>();
  const stamp = (simS: number): string =>
    DateTime.fromSeconds(midnightS + simS, { zone: tz }).toFormat('yyyy-MM-dd HH:mm:ss.S');
  await eachTag(join(args.dir!, 'tls-states.xml'), (name, a) => {
    if (name !== 'tlsState') return;
    let lines = csvOf.get(a.id);
    if (!lines) csvOf.set(a.id, (lines = ['Timestamp,EventCode,EventParam']));
    const ts = stamp(Number(a.time));
    const prev = lastClass.get(a.id) ?? '';
    let next = '';
    for (let li = 0; li < a.state.length && li < 255; li++) {
      const c = a.state[li];
      const cls = c === 'G' || c === 'g' ? 'G' : c === 'y' || c === 'Y' ? 'Y' : 'R';
      next += cls;
      const was = prev[li] ?? '';
      if (cls === was) continue;
      const phase = li + 1;
      if (cls === 'G') lines.push(`${ts},1,${phase}`);
      else if (cls === 'Y') lines.push(`${ts},8,${phase}`);
      else {
        if (was === 'G') lines.push(`${ts},8,${phase}`);
        if (was !== '') lines.push(`${ts},9,${phase}`, `${ts},10,${phase}`);
      }
    }
    lastClass.set(a.id, next);
  });
  for (const [tl, lines] of csvOf)
    writeFileSync(join(logDir, `${tl.replace(/[^\w.-]/g, '_')}.csv`), `${lines.join('\n')}\n`);
  // pair our signalized intersections with SUMO's signals: shared OSM node, or a junction within 30 m
  const tlJunctions = new Map<string, Array<{ ids: number[]; lat: number; lon: number }>>();
  await eachTag(join(args.dir!, 'plain.nod.xml'), (name, a) => {
    if (name !== 'node' || !a.tl) return;
    const arr = tlJunctions.get(a.tl) ?? [];
    arr.push({
      ids: a.id
        .split('_')
        .filter((x) => /^\d+$/.test(x))
        .map(Number),
      lat: Number(a.y),
      lon: Number(a.x),
    });
    tlJunctions.set(a.tl, arr);
  });
  const DIR: Record<string, string[]> = { T: ['s'], L: ['l', 'L'], R: ['r', 'R'], U: ['t'] };
  const logs = new Map<string, IntersectionLog>();
  const parsed = new Map<string, ReturnType<typeof parseEventLog>>();
  for (const ci of catalog.list) {
    if (!ci.intersection.signalized) continue;
    let best: { tl: string; d: number } | undefined;
    for (const [tl, js] of tlJunctions) {
      for (const j of js) {
        for (const n of ci.nodes) {
          const d = j.ids.includes(g.nodeOsmId[n])
            ? 0
            : haversineM(j.lat, j.lon, g.nodeLatE7[n] / 1e7, g.nodeLonE7[n] / 1e7);
          if (d <= 30 && (!best || d < best.d)) best = { tl, d };
        }
      }
    }
    if (!best || !csvOf.has(best.tl)) continue;
    const byPhase = new Map<number, string[]>();
    for (const m of ci.movements) {
      const cands = links.get(`${best.tl}|${wayKey(m.movement.inEdge)}`) ?? [];
      const outWay = wayKey(m.movement.outEdge);
      const pick =
        cands.find((c) => c.toWay === outWay) ?? cands.find((c) => DIR[m.turnManeuvers].includes(c.dir)) ?? cands[0];
      if (!pick || pick.linkIndex >= 255) continue;
      const arr = byPhase.get(pick.linkIndex + 1) ?? [];
      arr.push(m.id);
      byPhase.set(pick.linkIndex + 1, arr);
    }
    if (byPhase.size === 0) continue;
    const mapJson = {
      intersectionId: ci.key,
      phases: [...byPhase.entries()].map(([phase, movements]) => ({ phase, movements })),
      detectors: [],
    };
    let events = parsed.get(best.tl);
    if (!events) {
      const file = join(logDir, `${best.tl.replace(/[^\w.-]/g, '_')}.csv`);
      parsed.set(best.tl, (events = parseEventLog(readFileSync(file, 'utf8'), tz)));
    }
    const map = parseChannelMap(mapJson, new Set(ci.movements.map((m) => m.id)));
    logs.set(ci.key, { map, events });
  }
  writeFileSync(join(logDir, 'maps.json'), JSON.stringify([...logs.values()].map((l) => l.map)));
  log(`controller logs: ${csvOf.size} signals, ${logs.size} intersections mapped`);
  return signalTimingFromLogs(logs);
}
const intersections = catalog.list.map((ci) => ({
  key: ci.key,
  name: ci.name,
  signalized: ci.intersection.signalized,
  nodes: (ci.nodes ?? [ci.intersection.node]).map((n) => ({
    osmId: g.nodeOsmId[n],
    lat: g.nodeLatE7[n] / 1e7,
    lon: g.nodeLonE7[n] / 1e7,
  })),
}));
const out = facts.map((f) => ({
  vehicle: f.traceId,
  key: f.intersectionKey,
  movementId: f.movementId,
  inWay: wayKey(f.inEdge),
  outWay: wayKey(f.outEdge),
  turn: catalog.movementById.get(f.movementId)?.turnManeuvers ?? '',
  entryS: f.entryS - midnightS,
  exitS: f.exitS - midnightS,
  travelS: f.travelTimeS,
  freeFlowS: f.freeFlowS,
  freeFlowSource: f.freeFlowSource,
  delayS: f.controlDelayS,
  stopped: f.stopped,
  stopS: f.stopDurationS,
  stops: f.stopCount ?? 0,
  approachKph: f.approachSpeedKph,
  zoneM: f.zoneLengthM,
  zoneStart: f.zoneStart,
  zoneEnd: f.zoneEnd,
  onGreen: f.arrivedOnGreen ?? null,
}));
writeFileSync(
  args.out,
  JSON.stringify({
    params: { share: SHARE, everyS: EVERY_S, noiseM: NOISE_M, seed, timing: args.timing ? 1 : 0 },
    probeVehicles: [...tracks.keys()],
    pings,
    trajectories: trajectoryCount,
    intersections,
    facts: out,
  }),
);
log(`wrote ${args.out}`);
