/**
 * Junction catalogue cross-check of the control-delay validation: every SUMO signal (a signal
 * program: one junction, or the junctions netconvert joined) against streetwise's signalized
 * intersections from the same OSM extract. A SUMO junction and one of ours are the same junction
 * when they share an OSM node (netconvert names a junction by its OSM node id, a joined one
 * `cluster_<id>_<id>…`), else when a node of ours lies within `--radius` m of the junction. Prints
 * the counts (1:1, one signal to several of ours, several signals to one of ours, unpaired on
 * either side) and every mismatch with the straight-line and along-the-road distances between the
 * parts, and writes them to `--out`. Needs only the network (`NET_ONLY=1 scenario.sh …`).
 *
 * Both sides are compared within the region's bounds: netconvert reads every way of the extract,
 * streetwise's importer cuts it to its bounds, so SUMO signals all of whose junctions lie outside
 * are counted apart and left out. Each of ours without a SUMO signal gets its cause: whether SUMO's
 * network holds its signal nodes as plain nodes (two neighbours at most, where netconvert's
 * `--tls.discard-simple` drops a signal), and what the node is on our map (`causeOf`).
 *
 *   npx tsx scripts/sumo/delay/catalogue.ts --dir <scenario dir> --pbf city.osm.pbf [--out catalogue.json]
 */
import { createReadStream, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { SaxesParser } from 'saxes';
import { catalogOf } from '../../../src/analytics/index.js';
import { haversineM } from '../../../src/geo/index.js';
import { NodeFlag, RoadClass, buildRegion } from '../../../src/network/index.js';
import type { Graph, NodeId } from '../../../src/network/index.js';
import { readOsmExtract } from '../../../src/osm/index.js';

const { values: args } = parseArgs({
  options: {
    dir: { type: 'string' },
    pbf: { type: 'string' },
    out: { type: 'string' },
    radius: { type: 'string', default: '30' },
  },
});
if (!args.dir || !args.pbf) throw new Error('usage: catalogue.ts --dir <scenario dir> --pbf x.osm.pbf [--out x.json]');
const RADIUS_M = Number(args.radius);

interface SumoJunction {
  id: string;
  tl: string;
  lat: number;
  lon: number;
  osmIds: number[];
}
const osmIdsOf = (id: string): number[] =>
  id
    .split('_')
    .filter((x) => /^\d+$/.test(x))
    .map(Number);
async function readPlain(file: string, onTag: (name: string, a: Record<string, string>) => void): Promise<void> {
  const p = new SaxesParser();
  p.on('opentag', (tag) => onTag(tag.name, tag.attributes as Record<string, string>));
  for await (const chunk of createReadStream(join(args.dir!, file), { encoding: 'utf8' })) p.write(chunk as string);
  p.close();
}
const junctions: SumoJunction[] = [];
/** SUMO node of each OSM node on SUMO's network (a joined junction holds several) */
const sumoNodeOfOsm = new Map<number, string>();
await readPlain('plain.nod.xml', (name, a) => {
  if (name !== 'node') return;
  for (const id of osmIdsOf(a.id)) sumoNodeOfOsm.set(id, a.id);
  if (a.tl) junctions.push({ id: a.id, tl: a.tl, lat: Number(a.y), lon: Number(a.x), osmIds: osmIdsOf(a.id) });
});
/** distinct neighbouring nodes of each SUMO node (either direction) */
const sumoNeighbours = new Map<string, Set<string>>();
await readPlain('plain.edg.xml', (name, a) => {
  if (name !== 'edge' || a.from === a.to) return;
  for (const [x, y] of [
    [a.from, a.to],
    [a.to, a.from],
  ]) {
    const set = sumoNeighbours.get(x) ?? new Set<string>();
    set.add(y);
    sumoNeighbours.set(x, set);
  }
});
const sumoTlNodes = new Set(junctions.map((j) => j.id));

const region = buildRegion(readOsmExtract(args.pbf), { name: 'catalogue', mapVersion: 'catalogue-20261127' });
const g = region.graph;
const catalog = catalogOf(region);
const ours = catalog.list
  .filter((c) => c.intersection.signalized)
  .map((c) => ({
    key: c.key,
    name: c.name,
    nodes: c.nodes.map((n) => ({
      node: n,
      osmId: g.nodeOsmId[n],
      lat: g.nodeLatE7[n] / 1e7,
      lon: g.nodeLonE7[n] / 1e7,
    })),
  }));
const byOsm = new Map<number, (typeof ours)[number]>();
for (const ix of ours) for (const n of ix.nodes) byOsm.set(n.osmId, ix);

// netconvert reads every way of the extract; streetwise's region is cut to the extract's bounds:
// a SUMO signal all of whose junctions lie outside them has no counterpart to look for
const [minLat, minLon, maxLat, maxLon] = region.meta.bounds;
const isOutside = (j: SumoJunction): boolean => j.lat < minLat || j.lat > maxLat || j.lon < minLon || j.lon > maxLon;
const outsideTls = [...new Set(junctions.map((j) => j.tl))].filter((t) =>
  junctions.filter((j) => j.tl === t).every(isOutside),
);
const compared = junctions.filter((j) => !outsideTls.includes(j.tl));

/** Shortest distance along the road between two node sets (either direction of travel), metres, up to 300. */
function roadDistanceM(a: number[], b: number[]): number | null {
  const target = new Set(b);
  const dist = new Map<number, number>(a.map((n) => [n, 0]));
  const queue = [...a];
  while (queue.length > 0) {
    let bi = 0;
    for (let i = 1; i < queue.length; i++) if (dist.get(queue[i])! < dist.get(queue[bi])!) bi = i;
    const n = queue.splice(bi, 1)[0];
    const d = dist.get(n)!;
    if (target.has(n)) return Math.round(d * 10) / 10;
    const relax = (m: number, len: number): void => {
      if (d + len > 300 || d + len >= (dist.get(m) ?? Infinity)) return;
      if (!dist.has(m)) queue.push(m);
      dist.set(m, d + len);
    };
    for (let e = g.firstOut[n]; e < g.firstOut[n + 1]; e++) relax(g.edgeTarget[e], g.edgeLengthM[e]);
    for (let k = g.firstIn[n]; k < g.firstIn[n + 1]; k++)
      relax(g.edgeSource[g.inEdges[k]], g.edgeLengthM[g.inEdges[k]]);
  }
  return null;
}

// ---- pairs: SUMO junction → our intersections
const oursOfTl = new Map<string, Set<string>>();
const tlsOfOurs = new Map<string, Set<string>>();
const oursOfJunction = new Map<string, Set<string>>();
for (const j of compared) {
  const hit = new Set<string>();
  for (const id of j.osmIds) {
    const ix = byOsm.get(id);
    if (ix) hit.add(ix.key);
  }
  if (hit.size === 0)
    for (const ix of ours)
      if (ix.nodes.some((n) => haversineM(j.lat, j.lon, n.lat, n.lon) <= RADIUS_M)) hit.add(ix.key);
  oursOfJunction.set(j.id, hit);
  const set = oursOfTl.get(j.tl) ?? new Set<string>();
  for (const k of hit) {
    set.add(k);
    const t = tlsOfOurs.get(k) ?? new Set<string>();
    t.add(j.tl);
    tlsOfOurs.set(k, t);
  }
  oursOfTl.set(j.tl, set);
}
const oursByKey = new Map(ours.map((o) => [o.key, o]));
const describe = (keys: string[]): object => {
  const parts = keys.map((k) => oursByKey.get(k)!);
  const pairs: object[] = [];
  for (let i = 0; i < parts.length; i++)
    for (let k = i + 1; k < parts.length; k++) {
      let straight = Infinity;
      for (const a of parts[i].nodes)
        for (const b of parts[k].nodes) straight = Math.min(straight, haversineM(a.lat, a.lon, b.lat, b.lon));
      pairs.push({
        a: parts[i].key,
        b: parts[k].key,
        straightM: Math.round(straight * 10) / 10,
        roadM: roadDistanceM(
          parts[i].nodes.map((n) => n.node),
          parts[k].nodes.map((n) => n.node),
        ),
      });
    }
  return { ours: parts.map((p) => ({ key: p.key, name: p.name, osmNodes: p.nodes.map((n) => n.osmId) })), pairs };
};

const tls = [...oursOfTl.keys()].sort();
const split = tls.filter((t) => oursOfTl.get(t)!.size > 1);
const unpairedTl = tls.filter((t) => oursOfTl.get(t)!.size === 0);
const joined = [...tlsOfOurs.entries()].filter(([, s]) => s.size > 1).map(([k]) => k);
const unpairedOurs = ours.filter((o) => !tlsOfOurs.has(o.key)).map((o) => o.key);
const oneToOne = tls.filter((t) => {
  const s = oursOfTl.get(t)!;
  return s.size === 1 && tlsOfOurs.get([...s][0])!.size === 1;
});
const splitJunctions = [...oursOfJunction.entries()].filter(([, s]) => s.size > 1).map(([j]) => j);

/** Distinct road neighbours of node `n` on our map; with `mainOnly`, over roads above `service` only. */
function neighbourCount(gr: Graph, n: NodeId, mainOnly: boolean): number {
  const seen = new Set<number>();
  for (let e = gr.firstOut[n]; e < gr.firstOut[n + 1]; e++)
    if (!mainOnly || gr.edgeRoadClass[e] < RoadClass.service) seen.add(gr.edgeTarget[e]);
  for (let k = gr.firstIn[n]; k < gr.firstIn[n + 1]; k++) {
    const e = gr.inEdges[k];
    if (!mainOnly || gr.edgeRoadClass[e] < RoadClass.service) seen.add(gr.edgeSource[e]);
  }
  seen.delete(n);
  return seen.size;
}
/** Whether every road at `n` above `service` is one road (each pair shares a name or a ref): a road splitting into its carriageways. */
function oneRoad(gr: Graph, n: NodeId): boolean {
  const ids: Array<[number, number]> = [];
  for (let e = gr.firstOut[n]; e < gr.firstOut[n + 1]; e++)
    if (gr.edgeRoadClass[e] < RoadClass.service) ids.push([gr.edgeNameId[e], gr.edgeRefId[e]]);
  for (let k = gr.firstIn[n]; k < gr.firstIn[n + 1]; k++) {
    const e = gr.inEdges[k];
    if (gr.edgeRoadClass[e] < RoadClass.service) ids.push([gr.edgeNameId[e], gr.edgeRefId[e]]);
  }
  return ids.every(([na, ra]) => ids.every(([nb, rb]) => (na !== 0 && na === nb) || (ra !== 0 && ra === rb)));
}
/**
 * What one of ours without a SUMO signal is, on our map: a signal with no junction within the
 * approach distance (a mid-block signal, e.g. a pedestrian crossing); a junction only with roads of
 * class `service` (driveways, alleys, parking aisles: SUMO's network leaves them out, netconvert's
 * OSM type map opening highway=service to delivery vehicles only); a road splitting into its two
 * carriageways; approach signals of a junction whose own node has none.
 */
function causeOf(o: (typeof ours)[number]): string {
  const nodes = o.nodes.map((n) => n.node);
  if (nodes.every((n) => neighbourCount(g, n, false) < 3)) return 'signal away from junctions';
  const main = nodes.filter((n) => neighbourCount(g, n, true) >= 3);
  if (main.length === 0) return 'junction with service roads only';
  if (main.every((n) => oneRoad(g, n))) return 'one road splitting into its carriageways';
  if (main.every((n) => (g.nodeFlags[n] & NodeFlag.trafficSignals) === 0))
    return 'approach signals, none on the junction';
  return 'other';
}
/** Whether SUMO's network holds every signal node of `o` it has as a plain node (no signal, two neighbours at most). */
function plainOnSumo(o: (typeof ours)[number]): boolean {
  const sumoIds = o.nodes
    .filter((n) => (g.nodeFlags[n.node] & NodeFlag.trafficSignals) !== 0)
    .map((n) => sumoNodeOfOsm.get(n.osmId))
    .filter((x): x is string => x !== undefined);
  return sumoIds.length > 0 && sumoIds.every((id) => !sumoTlNodes.has(id) && (sumoNeighbours.get(id)?.size ?? 0) <= 2);
}
const causes = new Map(unpairedOurs.map((k) => [k, causeOf(oursByKey.get(k)!)]));
const byCause: Record<string, number> = {};
for (const c of causes.values()) byCause[c] = (byCause[c] ?? 0) + 1;
const figures = {
  sumoSignals: tls.length,
  sumoSignalJunctions: compared.length,
  sumoSignalsOutsideRegion: outsideTls.length,
  ourSignalized: ours.length,
  oneToOne: oneToOne.length,
  signalToSeveralOfOurs: split.length,
  severalSignalsToOneOfOurs: joined.length,
  unpairedSignals: unpairedTl.length,
  unpairedOurs: unpairedOurs.length,
  unpairedOursPlainOnSumo: unpairedOurs.filter((k) => plainOnSumo(oursByKey.get(k)!)).length,
  unpairedOursByCause: byCause,
  junctionsToSeveralOfOurs: splitJunctions.length,
};
console.log(JSON.stringify(figures));
const detail = {
  figures,
  split: split.map((t) => ({
    tl: t,
    junctions: junctions.filter((j) => j.tl === t).map((j) => j.id),
    ...describe([...oursOfTl.get(t)!]),
  })),
  joined: joined.map((k) => ({ key: k, tls: [...tlsOfOurs.get(k)!] })),
  unpairedSignals: unpairedTl.map((t) => junctions.filter((j) => j.tl === t)),
  outsideRegion: outsideTls.map((t) => junctions.filter((j) => j.tl === t)),
  unpairedOurs: unpairedOurs.map((k) => ({
    ...oursByKey.get(k)!,
    cause: causes.get(k),
    plainOnSumo: plainOnSumo(oursByKey.get(k)!),
  })),
};
for (const s of detail.split) console.log(JSON.stringify(s));
for (const s of detail.joined) console.log('joined', JSON.stringify(s));
for (const s of detail.unpairedSignals) console.log('unpaired signal', JSON.stringify(s));
for (const s of detail.outsideRegion) console.log('outside the region', JSON.stringify(s));
for (const s of detail.unpairedOurs) console.log('unpaired ours', JSON.stringify(s));
if (args.out) writeFileSync(args.out, JSON.stringify(detail, null, 1));
