/**
 * Record layouts of the bundle's part files (`part-file.ts`): intersections and blocks field by
 * field (numbers as f64 or u32 so every value reads back identical, strings through the chunk's
 * table), lots and water areas/lines as one JSON text each. Each layout has its own version; a
 * file of another version is refused.
 */
import type { NodeId } from './graph.js';
import type { Block, CurbSegment, Intersection, Movement, OsmLot, TurnType } from './region.js';
import { PartKind, type RecordReader, type RecordWriter } from './part-file.js';
import type { WaterArea, WaterLine } from './water.js';

/** A bundle part: its file name, kind, layout version and codec. */
export interface PartCodec<T> {
  file: string;
  kind: PartKind;
  version: number;
  encode(w: RecordWriter, item: T): void;
  decode(r: RecordReader): T;
}

const TURN_TYPES: readonly TurnType[] = ['through', 'left', 'right', 'uturn'];
const TURN_CODE: Record<TurnType, number> = { through: 0, left: 1, right: 2, uturn: 3 };

function encodeMovement(w: RecordWriter, m: Movement): void {
  w.u32(m.id);
  w.u32(m.inEdge);
  w.u32(m.outEdge);
  w.u8(TURN_CODE[m.turnType] | (m.allowed ? 4 : 0));
  w.f64(m.inHeadingDeg);
  w.f64(m.outHeadingDeg);
  w.f64(m.turnAngleDeg);
  w.str(m.inName);
  w.str(m.outName);
}

function decodeMovement(r: RecordReader): Movement {
  const id = r.u32();
  const inEdge = r.u32();
  const outEdge = r.u32();
  const code = r.u8();
  return {
    id,
    inEdge,
    outEdge,
    turnType: TURN_TYPES[code & 3],
    inHeadingDeg: r.f64(),
    outHeadingDeg: r.f64(),
    turnAngleDeg: r.f64(),
    inName: r.str(),
    outName: r.str(),
    allowed: (code & 4) !== 0,
  };
}

/** `intersections.bin`: Intersection records with their movements. */
export const INTERSECTIONS_PART: PartCodec<Intersection> = {
  file: 'intersections.bin',
  kind: PartKind.intersections,
  version: 1,
  encode(w, ix) {
    w.f64(ix.id);
    w.u32(ix.node);
    w.f64(ix.lat);
    w.f64(ix.lon);
    w.str(ix.name);
    w.u8((ix.signalized ? 1 : 0) | (ix.stop ? 2 : 0) | (ix.giveWay ? 4 : 0));
    w.u32(ix.streetNames.length);
    for (const s of ix.streetNames) w.str(s);
    w.u32(ix.movements.length);
    for (const m of ix.movements) encodeMovement(w, m);
  },
  decode(r) {
    const id = r.f64();
    const node = r.u32();
    const lat = r.f64();
    const lon = r.f64();
    const name = r.str();
    const flags = r.u8();
    const streetNames: string[] = new Array(r.u32());
    for (let k = 0; k < streetNames.length; k++) streetNames[k] = r.str();
    const movements: Movement[] = new Array(r.u32());
    for (let k = 0; k < movements.length; k++) movements[k] = decodeMovement(r);
    return {
      id,
      node,
      lat,
      lon,
      name,
      streetNames,
      signalized: (flags & 1) !== 0,
      stop: (flags & 2) !== 0,
      giveWay: (flags & 4) !== 0,
      movements,
    };
  },
};

/** The node and street names of an intersection (for block addresses), without its movements. */
export interface IntersectionNames {
  node: NodeId;
  streetNames: string[];
}

/**
 * Decodes only the node and street names of an `intersections.bin` record, reading past the rest
 * (the field order of `INTERSECTIONS_PART`; a movement is `decodeMovement`'s fields): on a metro
 * the names are 33 MB of heap where the intersections with their movements are 614 MB.
 */
export function decodeIntersectionNames(r: RecordReader): IntersectionNames {
  r.f64(); // id
  const node = r.u32();
  r.f64(); // lat
  r.f64(); // lon
  r.str(); // name
  r.u8(); // flags
  const streetNames: string[] = new Array(r.u32());
  for (let k = 0; k < streetNames.length; k++) streetNames[k] = r.str();
  for (let k = r.u32(); k > 0; k--) {
    r.u32(); // id
    r.u32(); // inEdge
    r.u32(); // outEdge
    r.u8(); // turn type and allowed
    r.f64(); // inHeadingDeg
    r.f64(); // outHeadingDeg
    r.f64(); // turnAngleDeg
    r.str(); // inName
    r.str(); // outName
  }
  return { node, streetNames };
}

function encodeCurb(w: RecordWriter, c: CurbSegment): void {
  w.u8(c.side === 'left' ? 0 : 1);
  w.f64(c.startM);
  w.f64(c.endM);
  w.str(c.kind);
  w.str(c.condition);
  w.str(c.maxStay);
  w.f64(c.spaces);
  w.str(JSON.stringify(c.tags));
}

function decodeCurb(r: RecordReader): CurbSegment {
  return {
    side: r.u8() === 0 ? 'left' : 'right',
    startM: r.f64(),
    endM: r.f64(),
    kind: r.str(),
    condition: r.str(),
    maxStay: r.str(),
    spaces: r.f64(),
    tags: JSON.parse(r.str()) as Record<string, string>,
  };
}

/** `blocks.bin`: Block records with their edges, geometry and curb segments. */
export const BLOCKS_PART: PartCodec<Block> = {
  file: 'blocks.bin',
  kind: PartKind.blocks,
  version: 1,
  encode(w, b) {
    w.f64(b.id);
    w.str(b.name);
    w.u32(b.fromNode);
    w.u32(b.toNode);
    w.u32(b.edges.length);
    for (const e of b.edges) w.u32(e);
    w.u32(b.geometry.length);
    for (const [lat, lon] of b.geometry) {
      w.f64(lat);
      w.f64(lon);
    }
    w.f64(b.lengthM);
    w.u32(b.curb.length);
    for (const c of b.curb) encodeCurb(w, c);
  },
  decode(r) {
    const id = r.f64();
    const name = r.str();
    const fromNode = r.u32();
    const toNode = r.u32();
    const edges: number[] = new Array(r.u32());
    for (let k = 0; k < edges.length; k++) edges[k] = r.u32();
    const geometry: Array<[number, number]> = new Array(r.u32());
    for (let k = 0; k < geometry.length; k++) geometry[k] = [r.f64(), r.f64()];
    const lengthM = r.f64();
    const curb: CurbSegment[] = new Array(r.u32());
    for (let k = 0; k < curb.length; k++) curb[k] = decodeCurb(r);
    return { id, name, fromNode, toNode, edges, geometry, lengthM, curb };
  },
};

/** A JSON record part (few, irregular records). */
function jsonPart<T>(file: string, kind: PartKind): PartCodec<T> {
  return {
    file,
    kind,
    version: 1,
    encode: (w, item) => w.str(JSON.stringify(item)),
    decode: (r) => JSON.parse(r.str()) as T,
  };
}

/** `lots.bin`: OsmLot records as JSON. */
export const LOTS_PART: PartCodec<OsmLot> = jsonPart('lots.bin', PartKind.lots);

/** A water area or line of `water.bin`. */
export type WaterRecord = { area: WaterArea } | { line: WaterLine };

/** `water.bin`: water areas and lines as JSON. */
export const WATER_PART: PartCodec<WaterRecord> = jsonPart('water.bin', PartKind.water);
