/**
 * The PBF and XML readers see the same entities: one fixture written both ways imports into
 * byte-identical bundles, and the PBF header's bounds clip the graph like XML <bounds>.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readOsmExtract } from '../../src/osm/index.js';
import type { OsmHandler } from '../../src/osm/index.js';
import { readPbfFile } from '../../src/osm/pbf-reader.js';
import { importRegion } from '../../src/network/index.js';
import { OsmFixture } from './osm-fixture.js';

const tmp = mkdtempSync(join(tmpdir(), 'streetwise-formats-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

// 1 ——— 2 ——— 3 ——— 4(outside bounds)     2 is a signal; 5 is a parking node; r7 a no_u_turn
const fixture = new OsmFixture()
  .withBounds([39.289, -76.601, 39.295, -76.5945])
  .gridNode(1, 0, 0)
  .gridNode(2, 0, 1, { highway: 'traffic_signals' })
  .gridNode(3, 0, 2)
  .gridNode(4, 0, 3)
  .gridNode(6, 1, 1)
  .gridNode(5, 2, 2, { amenity: 'parking', name: 'Café Lot & Co', capacity: '40' })
  .way(10, [1, 2, 3, 4], { highway: 'secondary', name: 'Main St', maxspeed: '30 mph' })
  .way(11, [2, 6], { highway: 'residential', name: 'Side St' })
  .relation(
    7,
    [
      ['way', 10, 'from'],
      ['node', 2, 'via'],
      ['way', 10, 'to'],
    ],
    { type: 'restriction', restriction: 'no_u_turn' },
  );

describe('PBF and XML readers', () => {
  it('decode the same entities with the same ids, coordinates, tags and members', () => {
    const pbfPath = join(tmp, 'f.osm.pbf');
    writeFileSync(pbfPath, fixture.pbf());
    const seen: string[] = [];
    const h: OsmHandler = {
      header: (x) => seen.push(`bounds ${x.bounds?.join(',')}`),
      node: (n) => seen.push(`n${n.id} ${n.lat} ${n.lon} ${JSON.stringify(n.tags)}`),
      way: (w) => seen.push(`w${w.id} ${w.refs.join(',')} ${JSON.stringify(w.tags)}`),
      relation: (r) => seen.push(`r${r.id} ${JSON.stringify(r.members)} ${JSON.stringify(r.tags)}`),
    };
    readPbfFile(pbfPath, h);
    expect(seen).toEqual([
      'bounds 39.289,-76.601,39.295,-76.5945',
      'n1 39.29 -76.6 {}',
      'n2 39.29 -76.598 {"highway":"traffic_signals"}',
      'n3 39.29 -76.596 {}',
      'n4 39.29 -76.594 {}',
      'n5 39.294 -76.596 {"amenity":"parking","name":"Café Lot & Co","capacity":"40"}',
      'n6 39.292 -76.598 {}',
      'w10 1,2,3,4 {"highway":"secondary","name":"Main St","maxspeed":"30 mph"}',
      'w11 2,6 {"highway":"residential","name":"Side St"}',
      'r7 [{"type":"way","ref":10,"role":"from"},{"type":"node","ref":2,"role":"via"},{"type":"way","ref":10,"role":"to"}] {"type":"restriction","restriction":"no_u_turn"}',
    ]);
    const ex = readOsmExtract(pbfPath);
    expect(ex.header.bounds).toEqual([39.289, -76.601, 39.295, -76.5945]);
  });

  it('import into byte-identical bundles, clipped to the declared bounds', async () => {
    const pbfPath = join(tmp, 'g.osm.pbf');
    const xmlPath = join(tmp, 'g.osm');
    writeFileSync(pbfPath, fixture.pbf());
    writeFileSync(xmlPath, fixture.xml());
    const a = await importRegion(pbfPath, join(tmp, 'a'), { name: 'g' });
    const b = await importRegion(xmlPath, join(tmp, 'b'), { name: 'g' });
    expect(a.nodes).toBe(4); // 1, 2, 3, 6: node 4 lies outside the bounds
    // no_u_turn on a way through the via node: the U-turn in each direction (1→2→1, 3→2→3)
    expect([a.edges, a.intersections, a.signals, a.lots, a.restrictions]).toEqual([6, 1, 1, 1, 2]);
    for (const f of ['graph.bin', 'intersections.bin', 'blocks.bin', 'lots.bin', 'water.bin']) {
      expect(readFileSync(join(tmp, 'a', f)).equals(readFileSync(join(tmp, 'b', f)))).toBe(true);
    }
    expect(b).toMatchObject({ nodes: a.nodes, edges: a.edges });
  });
});
