import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { writeMetro } from '../../src/demo/metro/metro.js';
import { GRAPH_FIELDS, buildRegion, importRegion, loadRegion } from '../../src/network/index.js';
import { readOsmExtract } from '../../src/osm/index.js';

// The old bundle wrote intersections and blocks as one JSON string each, which passes V8's
// largest string on a metro. The streaming import builds no string longer than a part chunk: with
// 4 KiB chunks, a generated region whose parts are hundreds of chunks long stands for a 1 M-edge
// metro with the default 1 MiB chunks (the longest string does not grow with the region).

const tmp = mkdtempSync(join(tmpdir(), 'sw-metro-stream-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('streaming import of a generated metro', () => {
  it('writes every part a chunk at a time and loads back what an in-memory build gives', async () => {
    const file = join(tmp, 'metro.osm.pbf');
    writeMetro(file, { seed: 9, edges: 20_000 });
    const spy = vi.spyOn(JSON, 'stringify');
    const dir = join(tmp, 'regions', 'metro');
    const summary = await importRegion(file, dir, { name: 'metro', partChunkBytes: 4096 });
    const longest = Math.max(...spy.mock.results.map((r) => String(r.value).length));
    spy.mockRestore();
    const loaded = loadRegion(dir);
    const built = buildRegion(readOsmExtract(file), { name: 'metro' });
    const oldBlocksJson = JSON.stringify(built.blocks).length;
    const oldIntersectionsJson = JSON.stringify(built.intersections).length;
    expect(summary.edges).toBeGreaterThanOrEqual(20_000);
    expect(oldBlocksJson).toBeGreaterThan(200 * 4096);
    expect(longest).toBeLessThan(Math.min(oldBlocksJson, oldIntersectionsJson) / 50);
    expect(loaded.intersections).toEqual(built.intersections);
    expect(loaded.blocks).toEqual(built.blocks);
    expect(loaded.lots).toEqual(built.lots);
    expect(loaded.water).toEqual(built.water);
    for (const [field] of GRAPH_FIELDS)
      expect(Array.from(loaded.graph[field] as ArrayLike<number>)).toEqual(
        Array.from(built.graph[field] as ArrayLike<number>),
      );
    expect(summary).toMatchObject({
      intersections: built.intersections.length,
      signals: built.intersections.filter((i) => i.signalized).length,
      blocks: built.blocks.length,
      lots: built.lots.length,
    });
  }, 120_000);
});
