/**
 * Real extracts from ../shared/data (skipped with a warning when absent, failing on CI):
 * Baltimore counts, bounds, signals, snapping and id stability; Monaco and Andorra import cleanly.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { interpretWay, readOsmExtract } from '../../src/osm/index.js';
import { edgeName, EdgeFlag, importRegion, loadRegion, locate, NodeFlag } from '../../src/network/index.js';
import type { ImportSummary, Region } from '../../src/network/index.js';

const DATA = '../shared/data';
const BALTIMORE = join(DATA, 'baltimore.osm.pbf');

function available(path: string): boolean {
  const ok = existsSync(path);
  if (!ok) {
    if (process.env.CI === 'true') throw new Error(`${path} is required on CI`);
    console.warn(`skipping: ${path} not found`);
  }
  return ok;
}

const tmp = mkdtempSync(join(tmpdir(), 'streetwise-import-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe.skipIf(!available(BALTIMORE))('Baltimore extract', () => {
  let summary: ImportSummary;
  let region: Region;
  beforeAll(async () => {
    summary = await importRegion(BALTIMORE, join(tmp, 'baltimore'), { name: 'baltimore' });
    region = loadRegion(join(tmp, 'baltimore'));
  }, 60_000);

  it('builds the expected graph, intersections, blocks and lots', () => {
    expect({
      nodes: summary.nodes,
      edges: summary.edges,
      routableEdges: summary.routableEdges,
      intersections: summary.intersections,
      signals: summary.signals,
      blocks: summary.blocks,
      lots: summary.lots,
      restrictions: summary.restrictions,
    }).toEqual(EXPECTED_BALTIMORE);
    expect(region.graph.nodeCount).toBe(summary.nodes);
    expect(region.graph.edgeCount).toBe(summary.edges);
    expect(region.meta).toMatchObject({
      name: 'baltimore',
      country: 'US',
      timeZone: 'America/New_York',
      source: 'baltimore.osm.pbf',
    });
  });

  it('has one signalized intersection per traffic-signal node on a drivable road', () => {
    const ex = readOsmExtract(BALTIMORE);
    const [minLat, minLon, maxLat, maxLon] = ex.header.bounds!;
    const signals = new Set<number>();
    for (const w of ex.roadWays) {
      if (!interpretWay(w.tags, 'US')) continue;
      for (const ref of w.refs) {
        if (ex.nodeTags.get(ref)?.highway !== 'traffic_signals') continue;
        const i = ex.nodes.indexOf(ref);
        const lat = ex.nodes.latE7At(i) / 1e7,
          lon = ex.nodes.lonE7At(i) / 1e7;
        if (lat >= minLat && lat <= maxLat && lon >= minLon && lon <= maxLon) signals.add(ref);
      }
    }
    const signalized = region.intersections.filter((x) => x.signalized);
    expect(signalized.length).toBe(signals.size);
    expect(new Set(signalized.map((x) => x.id))).toEqual(signals);
    for (const x of signalized)
      expect(region.graph.nodeFlags[x.node] & NodeFlag.trafficSignals).toBe(NodeFlag.trafficSignals);
  });

  it('keeps every edge endpoint and shape point inside the extract bounds', () => {
    const g = region.graph;
    const [minLat, minLon, maxLat, maxLon] = region.meta.bounds.map((v) => Math.round(v * 1e7));
    expect(region.meta.bounds).toEqual([39.2586, -76.6081, 39.3065, -76.5288]);
    let outside = 0;
    for (let e = 0; e < g.edgeCount; e++) {
      for (const n of [g.edgeSource[e], g.edgeTarget[e]]) {
        if (g.nodeLatE7[n] < minLat || g.nodeLatE7[n] > maxLat || g.nodeLonE7[n] < minLon || g.nodeLonE7[n] > maxLon)
          outside++;
      }
    }
    for (let i = 0; i < g.geomLatE7.length; i++) {
      if (g.geomLatE7[i] < minLat || g.geomLatE7[i] > maxLat || g.geomLonE7[i] < minLon || g.geomLonE7[i] > maxLon)
        outside++;
    }
    expect(outside).toBe(0);
  });

  it('never lets a block run across a change of street name, and keeps curb segments inside their block', () => {
    const g = region.graph;
    let mixed = 0,
      badCurb = 0;
    for (const b of region.blocks) {
      if (b.edges.some((e) => g.names[g.edgeNameId[e]] !== b.name)) mixed++;
      for (const side of ['left', 'right']) {
        const segs = b.curb.filter((c) => c.side === side);
        segs.forEach((c, i) => {
          if (c.startM < 0 || c.endM <= c.startM || c.endM > b.lengthM + 0.01 || (i > 0 && c.startM < segs[i - 1].endM))
            badCurb++;
        });
      }
    }
    expect(mixed).toBe(0);
    expect(badCurb).toBe(0);
    expect(region.blocks.filter((b) => b.curb.length > 0).length).toBeGreaterThan(100);
  });

  it('snaps a downtown coordinate to East Baltimore Street, and picks the direction matching a heading', () => {
    // East Baltimore Street between South President Street and South Central Avenue
    const snap = locate(region.graph, 39.2906, -76.60266);
    expect(snap).toBeDefined();
    expect(edgeName(region.graph, snap!.edge)).toBe('East Baltimore Street');
    expect(snap!.distanceM).toBeLessThan(10);
    expect(region.graph.edgeFlags[snap!.edge] & EdgeFlag.routable).toBe(EdgeFlag.routable);
    const east = locate(region.graph, 39.2906, -76.60266, { headingDeg: 80 })!;
    const west = locate(region.graph, 39.2906, -76.60266, { headingDeg: 260 })!;
    expect(edgeName(region.graph, east.edge)).toBe('East Baltimore Street');
    expect(Math.abs(((east.bearingDeg - 80 + 540) % 360) - 180)).toBeLessThan(45);
    expect(Math.abs(((west.bearingDeg - 260 + 540) % 360) - 180)).toBeLessThan(45);
  });

  it('gives identical ids and bundles when imported twice', async () => {
    await importRegion(BALTIMORE, join(tmp, 'baltimore-2'), { name: 'baltimore' });
    for (const file of ['graph.bin', 'intersections.bin', 'blocks.bin', 'lots.bin', 'water.bin']) {
      expect(readFileSync(join(tmp, 'baltimore-2', file)).equals(readFileSync(join(tmp, 'baltimore', file)))).toBe(
        true,
      );
    }
  }, 60_000);
});

/** Regression figures of the Baltimore import (update on purpose when import rules change). */
const EXPECTED_BALTIMORE = {
  nodes: 4764,
  edges: 11782,
  routableEdges: 11504,
  intersections: 3731,
  signals: 290,
  blocks: 4530,
  lots: 153,
  restrictions: 3,
};

for (const name of ['monaco', 'andorra']) {
  const path = join(DATA, `${name}.osm.pbf`);
  describe.skipIf(!available(path))(`${name} extract`, () => {
    it('imports without error into a loadable bundle', async () => {
      const s = await importRegion(path, join(tmp, name), { name });
      const r = loadRegion(join(tmp, name));
      expect(r.graph.edgeCount).toBe(s.edges);
      expect(s.routableEdges).toBeGreaterThan(s.edges * 0.8);
      expect(s.intersections).toBeGreaterThan(500);
      expect(s.lots).toBeGreaterThan(50);
      expect(r.meta.country).toBe(name === 'monaco' ? 'MC' : 'AD');
    }, 60_000);
  });
}
