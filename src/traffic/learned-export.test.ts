import { describe, expect, it } from 'vitest';
import { buildGraph, EdgeFlag, RoadClass } from '../network/graph.js';
import {
  type LearnedBinRow,
  binLabel,
  learnedSpeedsCsv,
  osmNodesOfEdge,
  osrmSegmentSpeeds,
  parseWeekTime,
} from './learned-export.js';

// OSM nodes 11 -- 12 -- 13 -- 14 along way 900 (12 and 13 are shape points, not graph nodes),
// and 14 -- 15 along way 901 (no shape points). Graph nodes: 11 (0), 14 (1), 15 (2).
//
//   11 ---- 12 ---- 13 ---- 14 ---- 15
//   |<------ way 900 ------>|<-901->|
function graph() {
  const base = { speedKph: 50, roadClass: RoadClass.secondary, flags: EdgeFlag.routable };
  const { graph: g, edgeIdOf } = buildGraph({
    nodes: [
      { lat: 39.3, lon: -76.6, osmId: 11 },
      { lat: 39.3, lon: -76.597, osmId: 14 },
      { lat: 39.3, lon: -76.596, osmId: 15 },
    ],
    edges: [
      {
        ...base,
        source: 0,
        target: 1,
        wayId: 900,
        shape: [
          [39.3, -76.599],
          [39.3, -76.598],
        ],
        twin: 1,
      },
      {
        ...base,
        source: 1,
        target: 0,
        wayId: 900,
        shape: [
          [39.3, -76.598],
          [39.3, -76.599],
        ],
        twin: 0,
      },
      { ...base, source: 1, target: 2, wayId: 901 },
    ],
  });
  return { g, east: edgeIdOf[0], west: edgeIdOf[1], tail: edgeIdOf[2] };
}

const row = (edgeId: number, wayId: number, binOfWeek: number, samples: number, learnedKph: number): LearnedBinRow => ({
  edgeId,
  wayId,
  fromOsmNodeId: 0,
  toOsmNodeId: 0,
  binOfWeek,
  samples,
  meanKph: learnedKph,
  learnedKph,
  typicalKph: 40,
});

describe('learned speed export', () => {
  it("lists an edge's OSM nodes from its way when it has shape points, in travel direction", () => {
    const { g, east, west, tail } = graph();
    const ways = new Map([[900, [11, 12, 13, 14]]]);
    expect(osmNodesOfEdge(g, east, ways)).toEqual([11, 12, 13, 14]);
    expect(osmNodesOfEdge(g, west, ways)).toEqual([14, 13, 12, 11]);
    expect(osmNodesOfEdge(g, tail)).toEqual([14, 15]);
    expect(osmNodesOfEdge(g, east)).toBeUndefined();
  });

  it("writes OSRM's segment-speed file: from_osm_id,to_osm_id,speed_kmh per consecutive node pair, sample-weighted", () => {
    const { g, east, west, tail } = graph();
    // east: 3 samples at 30 km/h and 1 at 50 -> (90 + 50) / 4 = 35
    const rows = [
      row(east, 900, 32, 3, 30),
      row(east, 900, 33, 1, 50),
      row(west, 900, 32, 2, 44.6),
      row(tail, 901, 32, 1, 12.4),
    ];
    const withWays = osrmSegmentSpeeds(rows, g, new Map([[900, [11, 12, 13, 14]]]));
    const lines = withWays.csv.trimEnd().split('\n');
    // the documented format: two OSM node ids and a whole speed in km/h, no header
    for (const l of lines) expect(l).toMatch(/^\d+,\d+,\d+$/);
    expect(lines.sort()).toEqual(
      ['11,12,35', '12,13,35', '13,14,35', '13,12,45', '12,11,45', '14,13,45', '14,15,12'].sort(),
    );
    expect(withWays).toMatchObject({ edges: 3, segments: 7, edgesWithoutNodes: 0 });
    // without the way's node list the shaped edges are left out, never written as a 11,14 pair
    const alone = osrmSegmentSpeeds(rows, g);
    expect(alone.csv).toBe('14,15,12\n');
    expect(alone.edgesWithoutNodes).toBe(2);
  });

  it('writes one CSV line per edge and bin, with the bin as day and local time', () => {
    const csv = learnedSpeedsCsv([{ ...row(4, 900, 32, 3, 30), fromOsmNodeId: 11, toOsmNodeId: 14, meanKph: 28.5 }]);
    expect(csv).toBe(
      'edge_id,way_id,from_osm_node_id,to_osm_node_id,bin_of_week,day_time,samples,mean_kph,learned_kph,typical_kph\n' +
        '4,900,11,14,32,Mon 08:00,3,28.5,30,40\n',
    );
    expect(binLabel(671)).toBe('Sun 23:45');
    expect(parseWeekTime('Mon 08:00')).toBe(32);
    expect(parseWeekTime('friday 17:15')).toBe(4 * 96 + 69);
    expect(parseWeekTime('Mon 08:10')).toBeUndefined();
  });
});
