/**
 * Stage 1 of import: read an OSM file (PBF or XML) and keep what the network stage needs —
 * coordinates of all nodes, tagged nodes of interest, candidate road and ferry ways, parking
 * lots, water (for the basemap), multipolygon member ways, and turn restrictions. Tag interpretation for cars happens in
 * `road-tags.ts`; this module only filters.
 */
import { closeSync, openSync, readSync } from 'node:fs';
import { readPbfFile } from './pbf-reader.js';
import { readOsmXmlFile, readOsmXmlString } from './xml-reader.js';
import type { OsmHandler, OsmHeader, OsmNode, OsmRelation, OsmWay, ReadProgress, Tags } from './types.js';

/** Node coordinates by OSM id in typed arrays (sorted once, binary search lookup). */
export class NodeStore {
  private ids = new Float64Array(1024);
  private latE7 = new Int32Array(1024);
  private lonE7 = new Int32Array(1024);
  private n = 0;
  private sorted = true;

  /** Number of stored nodes. */
  get size(): number {
    return this.n;
  }

  /** Adds a node (degrees). */
  add(id: number, lat: number, lon: number): void {
    if (this.n === this.ids.length) {
      const cap = this.n * 2;
      const ids = new Float64Array(cap);
      ids.set(this.ids);
      this.ids = ids;
      const la = new Int32Array(cap);
      la.set(this.latE7);
      this.latE7 = la;
      const lo = new Int32Array(cap);
      lo.set(this.lonE7);
      this.lonE7 = lo;
    }
    if (this.n > 0 && id <= this.ids[this.n - 1]) this.sorted = false;
    this.ids[this.n] = id;
    this.latE7[this.n] = Math.round(lat * 1e7);
    this.lonE7[this.n] = Math.round(lon * 1e7);
    this.n++;
  }

  /** Sorts by id if the input was not sorted; call once after the last `add`. */
  finish(): void {
    if (this.sorted) return;
    const order = Array.from({ length: this.n }, (_, i) => i).sort((a, b) => this.ids[a] - this.ids[b]);
    const ids = new Float64Array(this.n),
      la = new Int32Array(this.n),
      lo = new Int32Array(this.n);
    order.forEach((o, i) => {
      ids[i] = this.ids[o];
      la[i] = this.latE7[o];
      lo[i] = this.lonE7[o];
    });
    this.ids = ids;
    this.latE7 = la;
    this.lonE7 = lo;
    this.sorted = true;
  }

  /** Index of node `id`, or -1 when absent. */
  indexOf(id: number): number {
    let lo = 0,
      hi = this.n - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      const v = this.ids[mid];
      if (v === id) return mid;
      if (v < id) lo = mid + 1;
      else hi = mid - 1;
    }
    return -1;
  }

  /** Latitude × 1e7 at index i. */
  latE7At(i: number): number {
    return this.latE7[i];
  }
  /** Longitude × 1e7 at index i. */
  lonE7At(i: number): number {
    return this.lonE7[i];
  }
}

/** What the network stage needs from one OSM file. */
export interface OsmExtract {
  header: OsmHeader;
  nodes: NodeStore;
  /** tags of nodes that matter: highway=traffic_signals|stop|give_way, barrier=*, amenity=parking */
  nodeTags: Map<number, Tags>;
  /** amenity=parking nodes (in file order) */
  parkingNodes: OsmNode[];
  /** ways with a highway tag or route=ferry (cars are decided later) */
  roadWays: OsmWay[];
  /** amenity=parking ways */
  parkingWays: OsmWay[];
  /** refs of untagged ways (possible multipolygon members), by way id */
  memberWayRefs: Map<number, number[]>;
  /** type=restriction relations */
  restrictions: OsmRelation[];
  /** amenity=parking multipolygon relations */
  parkingRelations: OsmRelation[];
  /** water areas and waterway lines (natural=water, waterway=*, landuse=reservoir|basin) */
  waterWays: OsmWay[];
  /** water multipolygon relations */
  waterRelations: OsmRelation[];
  /** data bounds [minLat, minLon, maxLat, maxLon] over all nodes */
  dataBounds: [number, number, number, number];
}

const NODE_HIGHWAY = new Set(['traffic_signals', 'stop', 'give_way']);
const WATERWAYS = new Set(['riverbank', 'dock', 'river', 'stream', 'canal', 'drain', 'ditch']);

/** Water the basemap draws (network/water.ts interprets which are areas and which lines). */
function isWater(t: Tags): boolean {
  return t.natural === 'water' || WATERWAYS.has(t.waterway ?? '') || t.landuse === 'reservoir' || t.landuse === 'basin';
}

/** An OsmHandler that fills an OsmExtract; call `finish()` after reading. */
export function createExtractCollector(): { handler: OsmHandler; finish(): OsmExtract } {
  const ex: OsmExtract = {
    header: { bounds: null, timestampS: null, writingProgram: '' },
    nodes: new NodeStore(),
    nodeTags: new Map(),
    parkingNodes: [],
    roadWays: [],
    parkingWays: [],
    memberWayRefs: new Map(),
    restrictions: [],
    parkingRelations: [],
    waterWays: [],
    waterRelations: [],
    dataBounds: [90, 180, -90, -180],
  };
  const b = ex.dataBounds;
  const handler: OsmHandler = {
    header(h) {
      ex.header = h;
    },
    node(n) {
      ex.nodes.add(n.id, n.lat, n.lon);
      if (n.lat < b[0]) b[0] = n.lat;
      if (n.lon < b[1]) b[1] = n.lon;
      if (n.lat > b[2]) b[2] = n.lat;
      if (n.lon > b[3]) b[3] = n.lon;
      const t = n.tags;
      if (
        (t.highway !== undefined && NODE_HIGHWAY.has(t.highway)) ||
        t.barrier !== undefined ||
        t.amenity === 'parking'
      ) {
        ex.nodeTags.set(n.id, t);
      }
      if (t.amenity === 'parking') ex.parkingNodes.push({ id: n.id, lat: n.lat, lon: n.lon, tags: t });
    },
    way(w) {
      const t = w.tags;
      if (t.highway !== undefined || t.route === 'ferry') ex.roadWays.push({ id: w.id, refs: w.refs.slice(), tags: t });
      if (t.amenity === 'parking') ex.parkingWays.push({ id: w.id, refs: w.refs.slice(), tags: t });
      else if (isWater(t)) ex.waterWays.push({ id: w.id, refs: w.refs.slice(), tags: t });
      else if (t.highway === undefined && Object.keys(t).length === 0) ex.memberWayRefs.set(w.id, w.refs.slice());
    },
    relation(r) {
      const t = r.tags;
      if (t.type === 'restriction' || (t.type ?? '').startsWith('restriction:')) ex.restrictions.push(r);
      else if (t.amenity === 'parking' && t.type === 'multipolygon') ex.parkingRelations.push(r);
      else if (t.type === 'multipolygon' && isWater(t)) ex.waterRelations.push(r);
    },
  };
  return {
    handler,
    finish() {
      ex.nodes.finish();
      if (ex.nodes.size === 0) ex.dataBounds = [0, 0, 0, 0];
      return ex;
    },
  };
}

/** Format of an OSM file from its first bytes: PBF (length-prefixed `OSMHeader` blob) or XML. */
export function sniffOsmFormat(path: string): 'pbf' | 'xml' {
  const fd = openSync(path, 'r');
  let head: Buffer;
  try {
    head = Buffer.alloc(64);
    head = head.subarray(0, readSync(fd, head, 0, 64, 0));
  } finally {
    closeSync(fd);
  }
  if (head.length >= 4 && head.subarray(4).includes('OSMHeader')) return 'pbf';
  const text = head
    .toString('utf8')
    .replace(/^\uFEFF/, '')
    .trimStart();
  if (text.startsWith('<')) return 'xml';
  throw new Error(
    `${path}: not an OSM PBF or OSM XML file (compressed .osm.gz / .bz2 files must be decompressed first)`,
  );
}

/** Reads an OSM file (PBF or OSM XML, detected from its content). */
export function readOsmExtract(path: string, onProgress?: ReadProgress): OsmExtract {
  const c = createExtractCollector();
  if (sniffOsmFormat(path) === 'pbf') readPbfFile(path, c.handler, onProgress);
  else readOsmXmlFile(path, c.handler, onProgress);
  return c.finish();
}

/** Reads OSM XML from a string (tests and generated data). */
export function readOsmExtractFromXml(xml: string): OsmExtract {
  const c = createExtractCollector();
  readOsmXmlString(xml, c.handler);
  return c.finish();
}
