import { describe, it, expect } from 'vitest';
import { readOsmExtractFromXml } from '../osm/index.js';
import { buildWater } from './water.js';

// Lat/lon on a 0.01° grid around (39.30, -76.60):
//
//   lake (way 10, closed, natural=water)        bay (relation 50, multipolygon natural=water):
//   1---2                                        outer = ways 20 + 21 (untagged, joined end to end)
//   |   |                                        inner = way 22 (an island)
//   4---3                                        river (way 30, waterway=river) — a line
//
// way 40 is a natural=water pond far outside the bounds; way 41 a park (not water).
const XML = `<?xml version="1.0"?><osm version="0.6">
<node id="1" lat="39.30" lon="-76.60"/><node id="2" lat="39.30" lon="-76.59"/><node id="3" lat="39.29" lon="-76.59"/><node id="4" lat="39.29" lon="-76.60"/>
<node id="11" lat="39.28" lon="-76.60"/><node id="12" lat="39.28" lon="-76.56"/><node id="13" lat="39.24" lon="-76.56"/><node id="14" lat="39.24" lon="-76.60"/>
<node id="21" lat="39.27" lon="-76.59"/><node id="22" lat="39.27" lon="-76.58"/><node id="23" lat="39.26" lon="-76.58"/>
<node id="31" lat="39.31" lon="-76.60"/><node id="32" lat="39.31" lon="-76.57"/>
<node id="41" lat="10.0" lon="10.0"/><node id="42" lat="10.0" lon="10.01"/><node id="43" lat="10.01" lon="10.0"/>
<way id="10"><nd ref="1"/><nd ref="2"/><nd ref="3"/><nd ref="4"/><nd ref="1"/><tag k="natural" v="water"/><tag k="name" v="Mill Pond"/></way>
<way id="20"><nd ref="11"/><nd ref="12"/><nd ref="13"/></way>
<way id="21"><nd ref="11"/><nd ref="14"/><nd ref="13"/></way>
<way id="22"><nd ref="21"/><nd ref="22"/><nd ref="23"/><nd ref="21"/></way>
<way id="30"><nd ref="31"/><nd ref="32"/><tag k="waterway" v="river"/><tag k="name" v="Calvert River"/></way>
<way id="40"><nd ref="41"/><nd ref="42"/><nd ref="43"/><nd ref="41"/><tag k="natural" v="water"/></way>
<way id="41"><nd ref="1"/><nd ref="2"/><nd ref="3"/><nd ref="1"/><tag k="leisure" v="park"/></way>
<relation id="50"><member type="way" ref="20" role="outer"/><member type="way" ref="21" role="outer"/><member type="way" ref="22" role="inner"/><tag k="type" v="multipolygon"/><tag k="natural" v="water"/><tag k="name" v="Back Bay"/></relation>
</osm>`;

describe('water of the basemap', () => {
  it('keeps water areas (closed ways, multipolygons with islands) and waterway lines within the bounds', () => {
    const water = buildWater(readOsmExtractFromXml(XML), [39.2, -76.7, 39.4, -76.5]);
    expect(water.areas).toEqual([
      {
        osm: 'w10',
        name: 'Mill Pond',
        polygons: [
          {
            outer: [
              [39.3, -76.6],
              [39.3, -76.59],
              [39.29, -76.59],
              [39.29, -76.6],
              [39.3, -76.6],
            ],
            inner: [],
          },
        ],
      },
      {
        osm: 'r50',
        name: 'Back Bay',
        polygons: [
          {
            outer: [
              [39.28, -76.6],
              [39.28, -76.56],
              [39.24, -76.56],
              [39.24, -76.6],
              [39.28, -76.6],
            ],
            inner: [
              [
                [39.27, -76.59],
                [39.27, -76.58],
                [39.26, -76.58],
                [39.27, -76.59],
              ],
            ],
          },
        ],
      },
    ]);
    expect(water.lines).toEqual([
      {
        osm: 'w30',
        name: 'Calvert River',
        kind: 'river',
        line: [
          [39.31, -76.6],
          [39.31, -76.57],
        ],
      },
    ]);
  });

  it('keeps everything when no bounds are given', () => {
    expect(buildWater(readOsmExtractFromXml(XML), null).areas.map((a) => a.osm)).toEqual(['w10', 'w40', 'r50']);
  });
});
