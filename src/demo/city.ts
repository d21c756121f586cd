/**
 * The demo city "Port Calvert": generated deterministically from a seed as an OSM XML document
 * (imported like any other extract) plus an operator upload for its parking lots.
 * Same seed → byte-identical output; the structure (streets, ids, counts) does not depend on the
 * seed, only positions (a few metres of jitter), capacities, prices and reviews do.
 */
import { createPrng } from './prng.js';
import { OsmDocument } from './osm-document.js';
import { buildRoadNetwork, type RoadNetwork } from './road-network.js';
import { buildParkingLots } from './parking-lots.js';
import { buildParkingUpload, type ParkingUpload } from './parking-upload.js';
import { CITY_NAME, CITY_TIME_ZONE } from './layout.js';

/** Seed used when none is given. */
export const DEFAULT_DEMO_SEED = 42;

/** Options of the generator. */
export interface DemoCityOptions {
  /** PRNG seed (integer; taken modulo 2^32) */
  seed?: number;
}

/** Counts of what the generated city contains (all derived from the OSM document). */
export interface DemoCitySummary {
  name: string;
  seed: number;
  timeZone: string;
  /** [minLat, minLon, maxLat, maxLon] of all nodes, degrees */
  bounds: [number, number, number, number];
  nodes: number;
  ways: number;
  relations: number;
  /** ways with a highway=* tag */
  roadWays: number;
  /** distinct street names */
  streetNames: number;
  trafficSignals: number;
  stopSigns: number;
  giveWaySigns: number;
  onewayWays: number;
  motorwayWays: number;
  motorwayLinkWays: number;
  tollWays: number;
  ferryWays: number;
  bridgeWays: number;
  /** turn restriction relations by restriction value */
  restrictions: Record<string, number>;
  /** OSM ids of the notable elements (stable across seeds) */
  ids: {
    ferryWay: number;
    ferryTerminals: [number, number];
    tollWays: number[];
    /** relation id by restriction value */
    restrictions: Record<string, number>;
  };
  lotWays: number;
  lotNodes: number;
  /** road ways carrying any parking:* curb tag */
  curbParkingWays: number;
  uploadLots: number;
  uploadProducts: number;
}

/** Result of `generateDemoCity`. */
export interface DemoCity {
  /** the city as an OSM XML 0.6 document */
  osmXml: string;
  /** operator upload: `{ lots, products }` (see docs/demo.md) */
  parkingUpload: ParkingUpload;
  summary: DemoCitySummary;
}

/**
 * Generates the demo city from a seed.
 * @example const { osmXml, parkingUpload } = generateDemoCity({ seed: 7 });
 */
export function generateDemoCity(options: DemoCityOptions = {}): DemoCity {
  const seed = options.seed ?? DEFAULT_DEMO_SEED;
  if (!Number.isInteger(seed)) throw new Error(`demo seed must be an integer, got ${seed}`);
  const rng = createPrng(seed);
  const doc = new OsmDocument();
  const network = buildRoadNetwork(doc, rng);
  const lots = buildParkingLots(doc, rng);
  const parkingUpload = buildParkingUpload(lots, rng);
  const osmXml = doc.toXml(`streetwise-demo (Port Calvert, seed ${seed})`);
  return { osmXml, parkingUpload, summary: summarize(doc, seed, parkingUpload, network) };
}

function summarize(doc: OsmDocument, seed: number, upload: ParkingUpload, network: RoadNetwork): DemoCitySummary {
  const n = nodeCounts(doc);
  const w = wayCounts(doc);
  const restrictions: Record<string, number> = {};
  for (const r of doc.relations) {
    if (r.tags.type === 'restriction') restrictions[r.tags.restriction] = (restrictions[r.tags.restriction] ?? 0) + 1;
  }
  return {
    name: CITY_NAME,
    seed,
    timeZone: CITY_TIME_ZONE,
    bounds: n.bounds,
    nodes: doc.nodes.length,
    ways: doc.ways.length,
    relations: doc.relations.length,
    roadWays: w.roadWays,
    streetNames: w.streetNames,
    trafficSignals: n.trafficSignals,
    stopSigns: n.stopSigns,
    giveWaySigns: n.giveWaySigns,
    onewayWays: w.onewayWays,
    motorwayWays: w.motorwayWays,
    motorwayLinkWays: w.motorwayLinkWays,
    tollWays: w.tollWays,
    ferryWays: w.ferryWays,
    bridgeWays: w.bridgeWays,
    restrictions,
    ids: {
      ferryWay: network.ferryWay,
      ferryTerminals: network.ferryTerminals,
      tollWays: network.tollWays,
      restrictions: network.restrictions,
    },
    lotWays: w.lotWays,
    lotNodes: n.lotNodes,
    curbParkingWays: w.curbParkingWays,
    uploadLots: upload.lots.length,
    uploadProducts: upload.products.length,
  };
}

/** Bounds of the document's nodes and counts of its traffic-control and lot nodes. */
function nodeCounts(doc: OsmDocument) {
  let minLat = Infinity,
    minLon = Infinity,
    maxLat = -Infinity,
    maxLon = -Infinity;
  let trafficSignals = 0,
    stopSigns = 0,
    giveWaySigns = 0,
    lotNodes = 0;
  for (const n of doc.nodes) {
    minLat = Math.min(minLat, n.lat);
    maxLat = Math.max(maxLat, n.lat);
    minLon = Math.min(minLon, n.lon);
    maxLon = Math.max(maxLon, n.lon);
    if (n.tags.highway === 'traffic_signals') trafficSignals++;
    if (n.tags.highway === 'stop') stopSigns++;
    if (n.tags.highway === 'give_way') giveWaySigns++;
    if (n.tags.amenity === 'parking') lotNodes++;
  }
  const bounds: [number, number, number, number] = [minLat, minLon, maxLat, maxLon];
  return { bounds, trafficSignals, stopSigns, giveWaySigns, lotNodes };
}

/** Counts of the document's ways by kind, and of distinct street names. */
function wayCounts(doc: OsmDocument) {
  const names = new Set<string>();
  const c = {
    roadWays: 0,
    onewayWays: 0,
    motorwayWays: 0,
    motorwayLinkWays: 0,
    tollWays: 0,
    ferryWays: 0,
    bridgeWays: 0,
    lotWays: 0,
    curbParkingWays: 0,
  };
  for (const w of doc.ways) {
    const t = w.tags;
    if (t.highway) {
      c.roadWays++;
      names.add(t.name);
      if (Object.keys(t).some((k) => k.startsWith('parking:'))) c.curbParkingWays++;
    }
    if (t.oneway === 'yes') c.onewayWays++;
    if (t.highway === 'motorway') c.motorwayWays++;
    if (t.highway === 'motorway_link') c.motorwayLinkWays++;
    if (t.toll === 'yes') c.tollWays++;
    if (t.route === 'ferry') c.ferryWays++;
    if (t.bridge === 'yes') c.bridgeWays++;
    if (t.amenity === 'parking') c.lotWays++;
  }
  return { ...c, streetNames: names.size };
}
