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
 *   npx tsx scripts/sumo/delay/catalogue.ts --dir <scenario dir> --pbf city.osm.pbf [--out catalogue.json]
 */
import { createReadStream, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { SaxesParser } from 'saxes';
import { catalogOf } from '../../../src/analytics/index.js';
import { haversineM } from '../../../src/geo/index.js';
import { buildRegion } from '../../../src/network/index.js';
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
const junctions: SumoJunction[] = [];
{
  const p = new SaxesParser();
  p.on('opentag', (tag) => {
    const a = tag.attributes as Record<string, string>;
    if (tag.name !== 'node' || !a.tl) return;
    const osmIds = a.id
      .split('_')
      .filter((x) => /^\d+$/.test(x))
      .map(Number);
    junctions.push({ id: a.id, tl: a.tl, lat: Number(a.y), lon: Number(a.x), osmIds });
  });
  for await (const chunk of createReadStream(join(args.dir, 'plain.nod.xml'), { encoding: 'utf8' }))
    p.write(chunk as string);
  p.close();
}

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
for (const j of junctions) {
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
// netconvert reads every way of the extract; streetwise's region is cut to the extract's bounds
const [minLat, minLon, maxLat, maxLon] = region.meta.bounds;
const outside = (t: string): boolean =>
  junctions
    .filter((j) => j.tl === t)
    .every((j) => j.lat < minLat || j.lat > maxLat || j.lon < minLon || j.lon > maxLon);
const joined = [...tlsOfOurs.entries()].filter(([, s]) => s.size > 1).map(([k]) => k);
const unpairedOurs = ours.filter((o) => !tlsOfOurs.has(o.key)).map((o) => o.key);
const oneToOne = tls.filter((t) => {
  const s = oursOfTl.get(t)!;
  return s.size === 1 && tlsOfOurs.get([...s][0])!.size === 1;
});
const splitJunctions = [...oursOfJunction.entries()].filter(([, s]) => s.size > 1).map(([j]) => j);
const figures = {
  sumoSignals: tls.length,
  sumoSignalJunctions: junctions.length,
  ourSignalized: ours.length,
  oneToOne: oneToOne.length,
  signalToSeveralOfOurs: split.length,
  severalSignalsToOneOfOurs: joined.length,
  unpairedSignals: unpairedTl.length,
  unpairedSignalsOutsideRegion: unpairedTl.filter(outside).length,
  unpairedOurs: unpairedOurs.length,
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
  unpairedOurs: unpairedOurs.map((k) => oursByKey.get(k)),
};
for (const s of detail.split) console.log(JSON.stringify(s));
for (const s of detail.joined) console.log('joined', JSON.stringify(s));
for (const s of detail.unpairedSignals) console.log('unpaired signal', JSON.stringify(s));
for (const s of detail.unpairedOurs) console.log('unpaired ours', JSON.stringify(s));
if (args.out) writeFileSync(args.out, JSON.stringify(detail, null, 1));
