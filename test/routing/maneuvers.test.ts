/**
 * Maneuvers agree with the summary: every road the summary names appears in the steps; ferries,
 * tunnels and roundabouts get their own maneuvers; unnamed roads are called by their ref or class.
 * A hand-built route with all of them (exact steps), then seeded routes on the demo city and the
 * real extracts.
 */
import { describe, expect, it } from 'vitest';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildGraph, EdgeFlag, RoadClass, type EdgeInput, type Graph } from '../../src/network/graph.js';
import { buildRegion, loadRegion } from '../../src/network/index.js';
import type { Region } from '../../src/network/region.js';
import { readOsmExtract } from '../../src/osm/index.js';
import { SpeedFeeds } from '../../src/traffic/feeds.js';
import { SpeedMode } from '../../src/traffic/model.js';
import { RoutingEngine, NO_CRITERIA } from '../../src/routing/engine.js';
import { assembleRoute } from '../../src/routing/assemble/route-view.js';
import type { OutputOptions } from '../../src/routing/assemble/route-view.js';
import { maneuverRoadName } from '../../src/routing/assemble/narrate.js';
import { createDemoRegion } from '../../src/demo/create-demo-region.js';

const OUTPUT: OutputOptions = {
  fields: new Set(['S', 'D']),
  incidentFields: new Set(['all']),
  units: 1,
  toleranceM: 0,
  speedBucketId: 1,
  collapseManeuvers: true,
};
const DEP = Date.UTC(2026, 10, 23, 3, 0, 0) / 1000;

//  0 ── Harbor Rd ── 1 ══ Harbor Ferry ══ 2 ── (service, no name) ── 3 ── Cliff Rd (tunnel) ── 4 ── 5 ┐
//                                                                                    Side St ── 6   ring 5→6→7→8→5
//                                                                                                7 ── Exit Ave ── 9
function ferryTunnelRoundabout(): Graph {
  const nodes = [
    [0, 0],
    [0, 0.003],
    [0, 0.013],
    [0, 0.015],
    [0, 0.0186],
    [0, 0.019],
    [-0.0005, 0.0195],
    [0, 0.02],
    [0.0005, 0.0195],
    [0, 0.0235],
    [-0.004, 0.0195],
  ].map(([lat, lon]) => ({ lat, lon }));
  const edges: EdgeInput[] = [];
  const two = (a: number, b: number, o: Partial<EdgeInput>) => {
    const i = edges.length;
    const base = { speedKph: 40, roadClass: RoadClass.residential, flags: EdgeFlag.routable, ...o };
    edges.push({ ...base, source: a, target: b, twin: i + 1 });
    edges.push({ ...base, source: b, target: a, twin: i });
  };
  two(0, 1, { name: 'Harbor Rd' });
  two(1, 2, {
    name: 'Harbor Ferry',
    roadClass: RoadClass.ferry,
    speedKph: 15,
    flags: EdgeFlag.routable | EdgeFlag.ferry,
  });
  two(2, 3, { roadClass: RoadClass.service });
  two(3, 4, { name: 'Cliff Rd', flags: EdgeFlag.routable | EdgeFlag.tunnel });
  two(4, 5, { name: 'Cliff Rd' });
  for (const [a, b] of [
    [5, 6],
    [6, 7],
    [7, 8],
    [8, 5],
  ])
    edges.push({
      source: a,
      target: b,
      speedKph: 25,
      roadClass: RoadClass.residential,
      flags: EdgeFlag.routable | EdgeFlag.roundabout | EdgeFlag.oneway,
    });
  two(7, 9, { name: 'Exit Ave' });
  two(6, 10, { name: 'Side St' });
  return buildGraph({ nodes, edges }).graph;
}

function route(
  g: Graph,
  a: { lat: number; lon: number },
  b: { lat: number; lon: number },
  eng = new RoutingEngine(g, new SpeedFeeds(), null, 'UTC'),
) {
  const [r] = eng.plan({
    waypoints: [a, b],
    departS: DEP,
    nowS: DEP,
    shortest: false,
    useTraffic: true,
    criteria: NO_CRITERIA,
    maxAlternates: 0,
    ambiguousOrigin: false,
  });
  return assembleRoute(eng, '1', r.legs, DEP, DEP, SpeedMode.current, [], OUTPUT);
}

/** Problems of a route view: summary roads missing from the steps, unnamed texts. */
function disagreements(view: ReturnType<typeof route>): string[] {
  const out: string[] = [];
  const stepRoads = new Set(view.maneuvers!.map((m) => m.roadName));
  for (const road of view.summary!.roads) {
    // refs in the summary carry a cardinal direction ("I-95 N")
    const base = stepRoads.has(road.name) ? road.name : road.name.replace(/ [NESW]$/, '');
    if (!stepRoads.has(base))
      out.push(`summary road "${road.name}" in no step: ${view.maneuvers!.map((m) => m.text).join(' | ')}`);
  }
  for (const m of view.maneuvers!)
    if (/unnamed/i.test(m.text) || m.roadName === '') out.push(`unnamed step: ${m.text}`);
  return out;
}

describe('maneuvers', () => {
  it('board and leave the ferry, enter the tunnel, and name the roundabout exit and the road beyond it', () => {
    const g = ferryTunnelRoundabout();
    const view = route(g, { lat: 0, lon: 0.0005 }, { lat: 0, lon: 0.023 });
    expect(view.maneuvers!.map((m) => [m.turnType, m.text.replace(/ and go .*/, ''), m.roadName])).toEqual([
      ['depart', 'Start on Harbor Rd heading east', 'Harbor Rd'],
      ['ferry', 'Take the Harbor Ferry', 'Harbor Ferry'],
      ['leave ferry', 'Leave the ferry onto the service road', 'service road'],
      ['tunnel', 'Continue into the tunnel on Cliff Rd', 'Cliff Rd'],
      ['roundabout', 'At the roundabout take the 2nd exit onto Exit Ave', 'Exit Ave'],
      ['arrive', 'Arrive at destination', 'Exit Ave'],
    ]);
    // km: the ferry crosses 0.01° of longitude at the equator; the roundabout step runs half the ring and Exit Ave
    expect(view.summary!.roads.map((r) => r.name)).toEqual(['Harbor Ferry', 'Cliff Rd', 'Exit Ave']);
    expect(view.maneuvers!.map((m) => m.distance)).toEqual([0.28, 1.11, 0.22, 0.44, 0.49, 0]);
    expect(disagreements(view)).toEqual([]);
  });

  it('calls an unnamed road by its ref, else by its class', () => {
    const { graph: g } = buildGraph({
      nodes: [
        { lat: 0, lon: 0 },
        { lat: 0, lon: 0.001 },
        { lat: 0, lon: 0.002 },
        { lat: 0, lon: 0.003 },
      ],
      edges: [
        { source: 0, target: 1, speedKph: 50, roadClass: RoadClass.secondary, ref: 'D 6007', flags: EdgeFlag.routable },
        { source: 1, target: 2, speedKph: 50, roadClass: RoadClass.service, flags: EdgeFlag.routable },
        { source: 2, target: 3, speedKph: 50, roadClass: RoadClass.primary, flags: EdgeFlag.routable | EdgeFlag.link },
      ],
    });
    expect([0, 1, 2].map((e) => maneuverRoadName(g, e))).toEqual(['D 6007', 'service road', 'ramp']);
  });

  it('on the demo city: 150 seeded routes name every summary road in their steps, the ferry included', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sw-maneuvers-'));
    let region: Region;
    try {
      region = loadRegion((await createDemoRegion(dir, { seed: 42 })).regionDir);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    const g = region.graph;
    const eng = new RoutingEngine(g, new SpeedFeeds(), null, region.meta.timeZone);
    const problems = seededRoutes(g, eng, 150, 20261125);
    expect(problems.ferryRoutes, 'some routes take the ferry').toBeGreaterThan(0);
    expect(problems.list).toEqual([]);
  });

  for (const name of ['monaco', 'baltimore']) {
    const pbf = `../shared/data/${name}.osm.pbf`;
    const present = existsSync(pbf);
    if (!present) {
      if (process.env.CI === 'true') throw new Error(`${pbf} is missing (required in CI)`);
      console.warn(`skipping ${name} maneuvers: ${pbf} not found`);
    }
    it.skipIf(!present)(
      `on ${name}: 150 seeded routes name every summary road in their steps, roundabouts and tunnels included`,
      () => {
        const region = buildRegion(readOsmExtract(pbf), { name });
        const eng = new RoutingEngine(region.graph, new SpeedFeeds(), null, region.meta.timeZone);
        const problems = seededRoutes(region.graph, eng, 150, 20261125);
        if (name === 'monaco') {
          expect(problems.roundaboutRoutes).toBeGreaterThan(0);
          expect(problems.tunnelRoutes).toBeGreaterThan(0);
        }
        expect(problems.list).toEqual([]);
      },
    );
  }
});

/** Routes between seeded random edge midpoints; collects disagreements and what kinds of road were crossed. */
function seededRoutes(g: Graph, eng: RoutingEngine, count: number, seed: number) {
  let s = seed >>> 0;
  const rnd = () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
  const routable: number[] = [];
  for (let e = 0; e < g.edgeCount; e++)
    if (g.edgeFlags[e] & EdgeFlag.routable && !(g.edgeFlags[e] & (EdgeFlag.reversible | EdgeFlag.destinationOnly)))
      routable.push(e);
  const at = (e: number) => ({
    lat: (g.nodeLatE7[g.edgeSource[e]] + g.nodeLatE7[g.edgeTarget[e]]) / 2e7,
    lon: (g.nodeLonE7[g.edgeSource[e]] + g.nodeLonE7[g.edgeTarget[e]]) / 2e7,
  });
  const out = { list: [] as string[], ferryRoutes: 0, roundaboutRoutes: 0, tunnelRoutes: 0 };
  for (let i = 0; i < count; i++) {
    let view: ReturnType<typeof route>;
    try {
      view = route(
        g,
        at(routable[Math.floor(rnd() * routable.length)]),
        at(routable[Math.floor(rnd() * routable.length)]),
        eng,
      );
    } catch {
      continue; // unroutable pair (e.g. snapped onto a dead end against its direction)
    }
    const types = new Set(view.maneuvers!.map((m) => m.turnType));
    if (types.has('ferry')) out.ferryRoutes++;
    if (types.has('roundabout')) out.roundaboutRoutes++;
    if (types.has('tunnel')) out.tunnelRoutes++;
    for (const p of disagreements(view)) out.list.push(`route ${i}: ${p}`);
    // a ferry or roundabout on the route always has its maneuver
    const texts = view.maneuvers!.map((m) => m.turnType);
    if (view.summary!.roads.some((r) => /ferry/i.test(r.name)) && !texts.includes('ferry'))
      out.list.push(`route ${i}: ferry in the summary, no ferry step`);
  }
  return out;
}
