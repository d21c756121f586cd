/**
 * GeoJSON areas of the analytics contract, parsed into a predicate over intersection positions.
 * Positions are accepted as standard arrays `[lon, lat(, alt)]` and as the contract's `LngLatAlt`
 * objects `{ longitude, latitude, altitude?, additionalElements? }`. Every subtype is supported:
 * Point, MultiPoint, LineString, MultiLineString, Polygon, MultiPolygon, GeometryCollection,
 * Feature, FeatureCollection; `crs` must name WGS 84; `bbox` further restricts the area.
 */
import { haversineM, pointInPolygon, projectOnSegment } from '../geo/index.js';
import { AnalyticsError } from './errors.js';

/** Tolerance around points and lines given without a radius, metres. */
export const DEFAULT_POINT_TOLERANCE_M = 25;

/** CRS names meaning WGS 84 longitude/latitude (the only accepted reference system). */
const WGS84_NAMES = new Set([
  'EPSG:4326',
  'urn:ogc:def:crs:EPSG::4326',
  'urn:ogc:def:crs:OGC:1.3:CRS84',
  'urn:ogc:def:crs:OGC::CRS84',
  'CRS84',
  'WGS84',
  'http://www.opengis.net/def/crs/OGC/1.3/CRS84',
  'http://www.opengis.net/def/crs/EPSG/0/4326',
]);

/** A predicate: does the area contain (lat, lon)? */
export type AreaTest = (lat: number, lon: number) => boolean;

type Pos = [number, number];

function fail(param: string, msg: string): never {
  throw new AnalyticsError('ANALYTICS_INVALID_GEOMETRY', `${param}: ${msg}`, param);
}

function isObj(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Reads one position ([lon, lat, alt?] or LngLatAlt) as [lat, lon]. */
export function readPosition(v: unknown, param: string): Pos {
  let lon: unknown;
  let lat: unknown;
  if (Array.isArray(v)) {
    if (v.length < 2) fail(param, 'a position needs at least [lon, lat]');
    [lon, lat] = v;
    for (const x of v)
      if (typeof x !== 'number' || !Number.isFinite(x)) fail(param, 'position elements must be numbers');
  } else if (isObj(v)) {
    lon = v.longitude;
    lat = v.latitude;
    if (v.altitude !== undefined && typeof v.altitude !== 'number') fail(param, 'altitude must be a number');
    if (
      v.additionalElements !== undefined &&
      (!Array.isArray(v.additionalElements) || v.additionalElements.some((x) => typeof x !== 'number'))
    ) {
      fail(param, 'additionalElements must be an array of numbers');
    }
  } else {
    fail(param, 'a position is [lon, lat(, alt)] or { longitude, latitude, altitude }');
  }
  if (typeof lon !== 'number' || typeof lat !== 'number' || !Number.isFinite(lon) || !Number.isFinite(lat))
    fail(param, 'longitude and latitude must be numbers');
  if (lat < -90 || lat > 90 || lon < -180 || lon > 180) fail(param, `position out of range (lon ${lon}, lat ${lat})`);
  return [lat, lon];
}

function readList(v: unknown, param: string, min: number): Pos[] {
  if (!Array.isArray(v)) fail(param, 'coordinates must be an array of positions');
  const pts = v.map((p, i) => readPosition(p, `${param}[${i}]`));
  if (pts.length < min) fail(param, `at least ${min} positions required`);
  return pts;
}

function readRings(v: unknown, param: string): Pos[][] {
  if (!Array.isArray(v) || v.length === 0) fail(param, 'a polygon is an array of linear rings');
  return v.map((r, i) => readList(r, `${param}[${i}]`, 4));
}

function nearLine(line: Pos[], radiusM: number): AreaTest {
  return (lat, lon) => {
    if (line.length === 1) return haversineM(lat, lon, line[0][0], line[0][1]) <= radiusM;
    for (let i = 1; i < line.length; i++) {
      if (projectOnSegment(lat, lon, line[i - 1][0], line[i - 1][1], line[i][0], line[i][1]).distanceM <= radiusM)
        return true;
    }
    return false;
  };
}

function polygonTest(rings: Pos[][], radiusM: number): AreaTest {
  const [outer, ...holes] = rings;
  return (lat, lon) => {
    if (pointInPolygon(lat, lon, outer) && !holes.some((h) => pointInPolygon(lat, lon, h))) return true;
    return radiusM > 0 && rings.some((r) => nearLine(r, radiusM)(lat, lon));
  };
}

function checkCrs(crs: unknown, param: string): void {
  if (crs === undefined || crs === null) return;
  if (!isObj(crs)) fail(`${param}.crs`, 'must be an object { type, properties }');
  if (crs.type !== 'name' && crs.type !== 'link') fail(`${param}.crs.type`, 'must be name or link');
  const props = crs.properties;
  if (props !== undefined && !isObj(props)) fail(`${param}.crs.properties`, 'must be an object');
  if (crs.type === 'link')
    fail(
      `${param}.crs`,
      'linked reference systems are not supported; use { type: "name", properties: { name: "EPSG:4326" } }',
    );
  const name = isObj(props) ? props.name : undefined;
  if (typeof name !== 'string' || !WGS84_NAMES.has(name))
    fail(`${param}.crs.properties.name`, 'only WGS 84 (EPSG:4326 / CRS84) is supported');
}

function bboxTest(bbox: unknown, param: string): AreaTest | undefined {
  if (bbox === undefined || bbox === null) return undefined;
  if (
    !Array.isArray(bbox) ||
    (bbox.length !== 4 && bbox.length !== 6) ||
    bbox.some((x) => typeof x !== 'number' || !Number.isFinite(x))
  ) {
    fail(`${param}.bbox`, 'must be [west, south, east, north] or with altitudes [w, s, minAlt, e, n, maxAlt]');
  }
  const b = bbox as number[];
  const [w, s, e, n] = b.length === 4 ? b : [b[0], b[1], b[3], b[4]];
  if (s > n) fail(`${param}.bbox`, 'south must not exceed north');
  // west > east crosses the antimeridian
  return (lat, lon) => lat >= s && lat <= n && (w <= e ? lon >= w && lon <= e : lon >= w || lon <= e);
}

/**
 * Parses a GeoJSON object into an area test. `radiusM` buffers points, lines and polygon edges
 * (points and lines without a radius get `DEFAULT_POINT_TOLERANCE_M`).
 */
export function parseArea(v: unknown, param: string, radiusM?: number): AreaTest {
  if (!isObj(v)) fail(param, 'must be a GeoJSON object with a type');
  checkCrs(v.crs, param);
  const bbox = bboxTest(v.bbox, param);
  const r = radiusM ?? DEFAULT_POINT_TOLERANCE_M;
  let test: AreaTest;
  switch (v.type) {
    case 'Point':
      test = nearLine([readPosition(v.coordinates, `${param}.coordinates`)], r);
      break;
    case 'MultiPoint': {
      const pts = readList(v.coordinates, `${param}.coordinates`, 1);
      test = (lat, lon) => pts.some((p) => haversineM(lat, lon, p[0], p[1]) <= r);
      break;
    }
    case 'LineString':
      test = nearLine(readList(v.coordinates, `${param}.coordinates`, 2), r);
      break;
    case 'MultiLineString': {
      if (!Array.isArray(v.coordinates)) fail(`${param}.coordinates`, 'must be an array of lines');
      const lines = v.coordinates.map((l, i) => nearLine(readList(l, `${param}.coordinates[${i}]`, 2), r));
      test = (lat, lon) => lines.some((t) => t(lat, lon));
      break;
    }
    case 'Polygon':
      test = polygonTest(readRings(v.coordinates, `${param}.coordinates`), radiusM ?? 0);
      break;
    case 'MultiPolygon': {
      if (!Array.isArray(v.coordinates)) fail(`${param}.coordinates`, 'must be an array of polygons');
      const polys = v.coordinates.map((p, i) => polygonTest(readRings(p, `${param}.coordinates[${i}]`), radiusM ?? 0));
      test = (lat, lon) => polys.some((t) => t(lat, lon));
      break;
    }
    case 'GeometryCollection': {
      if (!Array.isArray(v.geometries)) fail(`${param}.geometries`, 'must be an array');
      const parts = v.geometries.map((g, i) => parseArea(g, `${param}.geometries[${i}]`, radiusM));
      test = (lat, lon) => parts.some((t) => t(lat, lon));
      break;
    }
    case 'Feature': {
      if (v.properties !== undefined && v.properties !== null && !isObj(v.properties))
        fail(`${param}.properties`, 'must be an object');
      if (v.id !== undefined && typeof v.id !== 'string' && typeof v.id !== 'number')
        fail(`${param}.id`, 'must be a string');
      if (v.geometry === null || v.geometry === undefined) {
        test = () => false;
        break;
      }
      test = parseArea(v.geometry, `${param}.geometry`, radiusM);
      break;
    }
    case 'FeatureCollection': {
      if (!Array.isArray(v.features)) fail(`${param}.features`, 'must be an array');
      const parts = v.features.map((f, i) => {
        if (!isObj(f) || f.type !== 'Feature') fail(`${param}.features[${i}]`, 'must be a Feature');
        return parseArea(f, `${param}.features[${i}]`, radiusM);
      });
      test = (lat, lon) => parts.some((t) => t(lat, lon));
      break;
    }
    default:
      fail(
        `${param}.type`,
        'must be one of Point, MultiPoint, LineString, MultiLineString, Polygon, MultiPolygon, GeometryCollection, Feature, FeatureCollection',
      );
  }
  return bbox ? (lat, lon) => bbox(lat, lon) && test(lat, lon) : test;
}
