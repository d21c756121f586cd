import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import FlatQueue from 'flatqueue';
import { EdgeFlag, NodeFlag, edgeName, loadRegion, locate, type Graph, type Region } from '../../src/network/index.js';
import { demoLandmarks } from '../../src/demo/landmarks.js';
import { createDemoRegion, type DemoRegionResult } from '../../src/demo/create-demo-region.js';
import type { ParkingUpload } from '../../src/demo/parking-upload.js';

// The demo city goes through the same importer as any extract; these tests read the region
// bundle back from disk and check it is what the services need.
//
//   downtown ──(Harbor Ferry, 2 min)──────────── Southport        fastest
//   downtown ──(I 900, tolled Harbor Bridge)───── Southport        without the ferry
//   downtown ──(Old Mill Rd, Old Mill Bridge)──── Southport        without ferry and tolls

let dir: string;
let result: DemoRegionResult;
let region: Region;
let upload: ParkingUpload;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'sw-demo-import-'));
  result = await createDemoRegion(dir, { seed: 42 });
  region = loadRegion(result.regionDir);
  upload = JSON.parse(readFileSync(result.uploadPath, 'utf8')) as ParkingUpload;
});

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

function countEdges(g: Graph, flag: number): number {
  let n = 0;
  for (let e = 0; e < g.edgeCount; e++) if (g.edgeFlags[e] & flag) n++;
  return n;
}

/** Fastest path by free-flow travel time (length / speed), skipping edges with any flag in `avoid`. */
function fastest(g: Graph, from: number, to: number, avoid: number): { timeS: number; edges: number[] } | undefined {
  const timeS = new Float64Array(g.nodeCount).fill(Infinity);
  const via = new Int32Array(g.nodeCount).fill(-1);
  const queue = new FlatQueue<number>();
  timeS[from] = 0;
  queue.push(from, 0);
  while (queue.length > 0) {
    const t = queue.peekValue()!;
    const a = queue.pop()!;
    if (t > timeS[a]) continue;
    if (a === to) break;
    for (let e = g.firstOut[a]; e < g.firstOut[a + 1]; e++) {
      if (g.edgeFlags[e] & avoid) continue;
      const b = g.edgeTarget[e];
      const tb = t + g.edgeLengthM[e] / (g.edgeSpeedKph[e] / 3.6);
      if (tb < timeS[b]) {
        timeS[b] = tb;
        via[b] = e;
        queue.push(b, tb);
      }
    }
  }
  if (!Number.isFinite(timeS[to])) return undefined;
  const edges: number[] = [];
  for (let n = to; n !== from; n = g.edgeSource[via[n]]) edges.unshift(via[n]);
  return { timeS: timeS[to], edges };
}

function intersectionOf(a: string, b: string): number {
  const x = region.intersections.find((i) => i.streetNames.includes(a) && i.streetNames.includes(b));
  if (!x) throw new Error(`no intersection of ${a} and ${b}`);
  return x.node;
}

describe('demo region imported through importRegion', () => {
  it('is one routable graph in America/New_York with every edge in the largest component', () => {
    const g = region.graph;
    expect(region.meta.name).toBe('demo');
    expect(region.meta.timeZone).toBe('America/New_York');
    expect(region.meta.country).toBe('US');
    expect(g.edgeCount).toBeGreaterThan(300);
    expect(countEdges(g, EdgeFlag.routable)).toBe(g.edgeCount);
    expect(result.imported.routableEdges).toBe(g.edgeCount);
  });

  it('keeps the 42 signals, the toll bridge, express and HOV lanes, the ferry and the three turn restrictions', () => {
    const g = region.graph;
    let signals = 0;
    for (let n = 0; n < g.nodeCount; n++) if (g.nodeFlags[n] & NodeFlag.trafficSignals) signals++;
    expect(signals).toBe(42);
    expect(region.intersections.filter((i) => i.signalized).length).toBe(42);
    // one directed edge per carriageway on the bridge and the express lanes, the ferry both ways
    expect(countEdges(g, EdgeFlag.toll)).toBe(3);
    expect(countEdges(g, EdgeFlag.express)).toBe(1);
    expect(countEdges(g, EdgeFlag.hov)).toBe(1);
    expect(countEdges(g, EdgeFlag.ferry)).toBe(2);
    expect(g.restrictionFrom.length).toBe(3);
    const forbidden = region.intersections.flatMap((i) => i.movements).filter((m) => !m.allowed);
    // no_left_turn and no_right_turn forbid one movement each, only_straight_on forbids left and right
    expect(forbidden.length).toBe(4);
    expect(forbidden.some((m) => m.inName === 'Grand Ave' && m.outName === 'Center St' && m.turnType === 'left')).toBe(
      true,
    );
  });

  it('reads maxspeed in mph', () => {
    const g = region.graph;
    const grand = [...Array(g.edgeCount).keys()].find((e) => edgeName(g, e) === 'Grand Ave')!;
    expect(g.edgeSpeedKph[grand]).toBeCloseTo(30 * 1.609344, 1);
    const fwy = [...Array(g.edgeCount).keys()].find((e) => edgeName(g, e) === 'Harbor Expressway')!;
    expect(g.edgeSpeedKph[fwy]).toBeCloseTo(55 * 1.609344, 1);
  });

  it('routes across the river by ferry, else over the toll bridge, else round by Old Mill Rd', () => {
    const g = region.graph;
    const from = intersectionOf('Eutaw St', 'Water St');
    const to = intersectionOf('Cedar St', 'Harbor View Rd');
    const best = fastest(g, from, to, 0)!;
    const noFerry = fastest(g, from, to, EdgeFlag.ferry)!;
    const noFerryNoToll = fastest(g, from, to, EdgeFlag.ferry | EdgeFlag.toll)!;
    const uses = (p: { edges: number[] }, flag: number): boolean => p.edges.some((e) => g.edgeFlags[e] & flag);
    expect(uses(best, EdgeFlag.ferry)).toBe(true);
    expect(uses(noFerry, EdgeFlag.ferry)).toBe(false);
    expect(uses(noFerry, EdgeFlag.toll)).toBe(true);
    expect(uses(noFerryNoToll, EdgeFlag.toll)).toBe(false);
    expect(noFerryNoToll.edges.some((e) => edgeName(g, e) === 'Old Mill Rd')).toBe(true);
    expect(best.timeS).toBeLessThan(noFerry.timeS);
    expect(noFerry.timeS).toBeLessThan(noFerryNoToll.timeS);
  });

  it('has an intersection of the named streets at each intersection landmark, and snaps there', () => {
    for (const l of Object.values(demoLandmarks()).filter((x) => x.streets)) {
      const near = region.intersections.find(
        (i) => Math.hypot((i.lat - l.lat) * 111_022, (i.lon - l.lon) * 86_255) < 5,
      );
      expect(near, l.name).toBeDefined();
      expect(near!.streetNames, l.name).toEqual(expect.arrayContaining(l.streets!));
      const snap = locate(region.graph, l.lat, l.lon);
      expect(snap!.distanceM, l.name).toBeLessThan(5);
      expect(near!.streetNames, l.name).toContain(edgeName(region.graph, snap!.edge));
    }
  });

  it('has blocks with curb parking: metered 2-hour parallel parking and no-parking sides', () => {
    expect(region.blocks.length).toBeGreaterThan(100);
    const withCurb = region.blocks.filter((b) => b.curb.some((c) => c.spaces > 0));
    expect(withCurb.length).toBeGreaterThan(80);
    const center = region.blocks.find(
      (b) =>
        b.name === 'Center St' &&
        b.curb.some((c) => c.kind === 'parallel' && c.condition === 'ticket' && c.maxStay === '2 hours'),
    );
    expect(center).toBeDefined();
    const calvert = region.blocks.find((b) => b.name === 'Calvert St')!;
    expect(calvert.curb.map((c) => c.kind).sort()).toEqual(['no_parking', 'parallel']);
    expect(region.blocks.some((b) => b.name === 'Park St' && b.curb.every((c) => c.kind === 'diagonal'))).toBe(true);
  });

  it('has the 9 lots, each matched by one lot of the operator upload with the same name and capacity', () => {
    expect(region.lots.length).toBe(9);
    expect(upload.lots.length).toBe(9);
    for (const u of upload.lots) {
      const lot = region.lots.find((l) => l.osmType === u.osm_type && l.osmId === u.osm_id);
      expect(lot, u.alias).toBeDefined();
      expect(lot!.name).toBe(u.name);
      expect(lot!.capacity).toBe(u.spacesTotal);
      expect(lot!.capacityDisabled).toBe(u.handicapSpacesTotal);
    }
    const areas = region.lots.filter((l) => l.outline !== null);
    expect(areas.length).toBe(7);
  });
});
