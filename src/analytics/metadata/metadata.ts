/**
 * POST /v1/metadata/intersections: the catalog's intersections and movements, filtered by
 * area, locations (point/line + radius, polygons), namespace, data availability, field filters
 * and rank, projected onto the requested fields, paged.
 */
import type { Queryable } from '../../store/db.js';
import type { CatalogIntersection, CatalogMovement, IntersectionCatalog } from '../catalog/catalog.js';
import { invalid } from '../errors.js';
import { parseArea, type AreaTest } from '../geojson.js';
import {
  checkKeys,
  cursorAfter,
  isObj,
  readDateRanges,
  readFilters,
  readPaging,
  type DayRange,
  type Filter,
  type FilterOperator,
  type Paging,
} from '../request-common.js';
import { resolveScope } from '../scope.js';

/** Default intersections per page. */
export const METADATA_PAGE_SIZE_DEFAULT = 50;
/** Largest pageSize, and the hard ceiling of offset + pageSize. */
export const METADATA_MAX_ROWS = 10_000;

/** Selectable fields (dotted paths). */
export const METADATA_FIELDS = [
  'intersectionId',
  'name',
  'coordinates',
  'movements',
  'movements.id',
  'movements.name',
  'movements.rank',
  'movements.movementType',
  'movements.turnManeuvers',
  'movements.turnGroupId',
  ...['inbound', 'outbound'].flatMap((d) => [
    `movements.${d}`,
    ...['name', 'direction', 'altName', 'heading', 'geometry'].map((f) => `movements.${d}.${f}`),
  ]),
];

const EQ: readonly FilterOperator[] = ['EQUALS', 'IN_LIST'];
const ALL: readonly FilterOperator[] = [
  'EQUALS',
  'IN_LIST',
  'GREATER_THAN',
  'GREATER_THAN_OR_EQUAL',
  'LESS_THAN',
  'LESS_THAN_OR_EQUAL',
];
/** Filterable fields and their operators (reference §5). */
const FILTERABLE: Record<string, readonly FilterOperator[]> = {
  intersectionId: EQ,
  'movements.rank': ALL,
  'movements.movementType': EQ,
  'movements.turnManeuvers': EQ,
  'movements.inbound.direction': EQ,
  'movements.outbound.direction': EQ,
};

/** A validated IntersectionMetadataRequest. */
export interface MetadataRequest {
  fields: string[] | undefined;
  filters: Filter[] | undefined;
  areas: AreaTest[];
  geometry?: AreaTest;
  namespaces: string[];
  locations: Array<{ country?: string; state?: string; mapVersion?: string }> | undefined;
  dateRanges: DayRange[];
  includeGeometry: boolean;
  includeMovements: boolean;
  maxRank?: number;
  paging: Paging;
}

/** Top-level fields of an IntersectionMetadataRequest body. */
export const METADATA_REQUEST_FIELDS = [
  'nextCursor',
  'offset',
  'pageSize',
  'dateRanges',
  'geometry',
  'fields',
  'fieldFilters',
  'metadata',
  'locations',
  'includeGeometry',
  'includeMovements',
  'maxRank',
] as const;

/** Reads `fields`: names of METADATA_FIELDS; undefined when absent (every field). */
function readFields(v: unknown): string[] | undefined {
  if (v === undefined || v === null) return undefined;
  if (!Array.isArray(v)) throw invalid('fields', 'must be an array of { name }');
  return v.map((f, i) => {
    if (!isObj(f) || typeof f.name !== 'string' || !METADATA_FIELDS.includes(f.name))
      throw invalid(`fields[${i}].name`, `must be one of ${METADATA_FIELDS.join(', ')}`);
    checkKeys(f, ['name'], `fields[${i}]`);
    return f.name;
  });
}

/** Reads `fieldFilters`: filterable fields, their operators, integers where the field is one. */
function readFieldFilters(v: unknown): Filter[] | undefined {
  if (v === undefined || v === null) return undefined;
  const filters = readFilters(v, 'fieldFilters');
  for (const f of filters) {
    const ops = FILTERABLE[f.name];
    if (!ops) throw invalid(`${f.param}.name`, `must be one of ${Object.keys(FILTERABLE).join(', ')}`);
    if (!ops.includes(f.operator)) throw invalid(`${f.param}.operator`, `${f.operator} is not allowed on ${f.name}`);
    if (f.name === 'movements.rank' || f.name === 'movements.movementType') {
      f.expressions.forEach((e, i) => {
        if (!/^\d+$/.test(e)) throw invalid(`${f.param}.expressions[${i}]`, `'${e}' must be an integer`);
      });
    }
  }
  return filters;
}

/** Reads `locations`: areas, each a geometry and an optional radius (whole metres 0–1000000). */
function readAreas(v: unknown): AreaTest[] {
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) throw invalid('locations', 'must be an array of { geometry, radiusInMeters }');
  return v.map((l, i) => {
    const p = `locations[${i}]`;
    if (!isObj(l)) throw invalid(p, 'must be { geometry, radiusInMeters }');
    checkKeys(l, ['geometry', 'radiusInMeters'], p);
    let r: number | undefined;
    if (l.radiusInMeters !== undefined && l.radiusInMeters !== null) {
      if (
        typeof l.radiusInMeters !== 'number' ||
        !Number.isInteger(l.radiusInMeters) ||
        l.radiusInMeters < 0 ||
        l.radiusInMeters > 1_000_000
      )
        throw invalid(`${p}.radiusInMeters`, 'must be an integer 0–1000000');
      r = l.radiusInMeters;
    }
    return parseArea(l.geometry, `${p}.geometry`, r);
  });
}

/** Reads the `locations` values of `metadata`: `{ country, state, mapVersion }`, the map version the one served. */
function readLocationValues(values: unknown[], mapVersion: string): NonNullable<MetadataRequest['locations']> {
  return values.map((v, i) => {
    const p = `metadata.value[${i}]`;
    if (!isObj(v)) throw invalid(p, 'must be { country, state, mapVersion }');
    checkKeys(v, ['country', 'state', 'mapVersion'], p);
    for (const k of ['country', 'state', 'mapVersion'] as const)
      if (v[k] !== undefined && typeof v[k] !== 'string') throw invalid(`${p}.${k}`, 'must be a string');
    if (v.mapVersion !== undefined && v.mapVersion !== mapVersion)
      throw invalid(
        `${p}.mapVersion`,
        `map version ${String(v.mapVersion)} is not served (this region is ${mapVersion})`,
      );
    return {
      country: v.country as string | undefined,
      state: v.state as string | undefined,
      mapVersion: v.mapVersion as string | undefined,
    };
  });
}

/** Reads `metadata`: one item, `namespace` (names) or `locations` (`readLocationValues`). */
function readMetadataItem(
  m: unknown,
  mapVersion: string,
): { namespaces: string[]; locations: MetadataRequest['locations'] } {
  const namespaces: string[] = [];
  if (m === undefined || m === null) return { namespaces, locations: undefined };
  if (!isObj(m)) throw invalid('metadata', 'must be one object { key, value, valueList }');
  checkKeys(m, ['key', 'value', 'valueList'], 'metadata');
  if (m.valueList !== undefined && typeof m.valueList !== 'boolean')
    throw invalid('metadata.valueList', 'must be a boolean');
  const values = m.valueList === true ? (Array.isArray(m.value) ? m.value : undefined) : [m.value];
  if (!values) throw invalid('metadata.value', 'must be an array when valueList is true');
  if (m.key === 'namespace') {
    values.forEach((v, i) => {
      if (typeof v !== 'string' || !/^[A-Za-z0-9_.-]{1,64}$/.test(v))
        throw invalid(`metadata.value[${i}]`, 'must be a namespace name');
      namespaces.push(v);
    });
    return { namespaces, locations: undefined };
  }
  if (m.key === 'locations') return { namespaces, locations: readLocationValues(values, mapVersion) };
  throw invalid('metadata.key', `unknown key '${String(m.key)}' (allowed: locations, namespace)`);
}

/** Reads `maxRank`: an integer ≥ 1, or undefined. */
function readMaxRank(v: unknown): number | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 1) throw invalid('maxRank', 'must be an integer ≥ 1');
  return v;
}

/** Validates a metadata request body against the catalog's map version. */
export function parseMetadataRequest(body: unknown, mapVersion: string): MetadataRequest {
  if (!isObj(body)) throw invalid('body', 'a JSON object IntersectionMetadataRequest is required');
  checkKeys(body, METADATA_REQUEST_FIELDS, '');
  const fields = readFields(body.fields);
  const filters = readFieldFilters(body.fieldFilters);
  const areas = readAreas(body.locations);
  const geometry =
    body.geometry !== undefined && body.geometry !== null ? parseArea(body.geometry, 'geometry') : undefined;
  const { namespaces, locations } = readMetadataItem(body.metadata, mapVersion);
  const bool = (k: string, d: boolean): boolean => {
    if (body[k] === undefined || body[k] === null) return d;
    if (typeof body[k] !== 'boolean') throw invalid(k, 'must be a boolean');
    return body[k] as boolean;
  };
  const maxRank = readMaxRank(body.maxRank);
  const paging = readPaging(body, {
    pageSize: METADATA_PAGE_SIZE_DEFAULT,
    maxPageSize: METADATA_MAX_ROWS,
    noPagingMax: METADATA_MAX_ROWS,
  });
  return {
    fields,
    filters,
    areas,
    geometry,
    namespaces,
    locations,
    dateRanges: readDateRanges(body.dateRanges, 'dateRanges', false),
    includeGeometry: bool('includeGeometry', false),
    includeMovements: bool('includeMovements', true),
    maxRank,
    paging,
  };
}

function matches(f: Filter, value: string | number): boolean {
  let r: boolean;
  if (typeof value === 'number') {
    const xs = f.expressions.map(Number);
    switch (f.operator) {
      case 'EQUALS':
        r = value === xs[0];
        break;
      case 'IN_LIST':
        r = xs.includes(value);
        break;
      case 'GREATER_THAN':
        r = value > xs[0];
        break;
      case 'GREATER_THAN_OR_EQUAL':
        r = value >= xs[0];
        break;
      case 'LESS_THAN':
        r = value < xs[0];
        break;
      default:
        r = value <= xs[0];
    }
  } else {
    r = f.operator === 'IN_LIST' ? f.expressions.includes(value) : value === f.expressions[0];
  }
  return f.not ? !r : r;
}

function movementValue(m: CatalogMovement, name: string): string | number {
  switch (name) {
    case 'movements.rank':
      return m.rank;
    case 'movements.movementType':
      return m.movementType;
    case 'movements.turnManeuvers':
      return m.turnManeuvers;
    case 'movements.inbound.direction':
      return m.inbound.direction;
    default:
      return m.outbound.direction;
  }
}

function project(obj: Record<string, unknown>, fields: string[] | undefined, prefix: string): Record<string, unknown> {
  if (!fields) return obj;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(obj)) {
    const path = prefix ? `${prefix}.${k}` : k;
    const whole = fields.some((f) => f === path || path.startsWith(`${f}.`));
    if (whole) {
      out[k] = v;
      continue;
    }
    if (!fields.some((f) => f.startsWith(`${path}.`))) continue;
    if (Array.isArray(v)) out[k] = v.map((x) => project(x as Record<string, unknown>, fields, path));
    else if (isObj(v)) out[k] = project(v, fields, path);
  }
  return out;
}

function renderMovement(m: CatalogMovement, withGeometry: boolean): Record<string, unknown> {
  const dir = (d: CatalogMovement['inbound']) => ({
    name: d.name,
    direction: d.direction,
    altName: d.altName,
    heading: d.heading,
    ...(withGeometry ? { geometry: { type: 'LineString', coordinates: d.coordinates } } : {}),
  });
  return {
    id: m.id,
    name: m.name,
    rank: m.rank,
    inbound: dir(m.inbound),
    outbound: dir(m.outbound),
    movementType: m.movementType,
    turnManeuvers: m.turnManeuvers,
    turnGroupId: m.turnGroupId,
  };
}

/** Result of a metadata query: the page of items and the total before paging. */
export interface MetadataResult {
  totalCount: number;
  data: Array<Record<string, unknown>>;
  nextCursor: Record<string, string>;
}

/**
 * Answers a metadata request. Without fieldFilters only rank-1 (or ≤ maxRank) movements that are
 * not U-turns are listed; with movement filters, intersections left without movements are dropped.
 */
export async function queryMetadata(
  db: Queryable,
  catalog: IntersectionCatalog,
  req: MetadataRequest,
): Promise<MetadataResult> {
  const scope = await resolveScope(db, catalog, {
    namespaces: req.namespaces,
    area: req.geometry,
    namespaceParam: 'metadata.value',
  });
  let candidates: CatalogIntersection[] = scope.keys
    ? scope.keys.map((k) => catalog.byKey.get(k)).filter((c): c is CatalogIntersection => !!c)
    : catalog.list;
  if (req.areas.length > 0)
    candidates = candidates.filter((c) => req.areas.some((a) => a(c.intersection.lat, c.intersection.lon)));
  if (req.dateRanges.length > 0) {
    const params: unknown[] = [];
    const cond = req.dateRanges
      .map((r) => {
        params.push(r.startDate, r.endDate);
        return `local_day BETWEEN $${params.length - 1}::date AND $${params.length}::date`;
      })
      .join(' OR ');
    const withData = new Set(
      (
        await db.query<{ k: string }>(`SELECT DISTINCT intersection_key AS k FROM analytics_fact WHERE ${cond}`, params)
      ).rows.map((r) => r.k),
    );
    candidates = candidates.filter((c) => withData.has(c.key));
  }
  const filters = req.filters ?? [];
  const ixFilters = filters.filter((f) => f.name === 'intersectionId');
  const mvFilters = filters.filter((f) => f.name !== 'intersectionId');
  candidates = candidates.filter((c) => ixFilters.every((f) => matches(f, c.key)));
  const keepMovement = (m: CatalogMovement): boolean => {
    if (req.maxRank !== undefined && m.rank > req.maxRank) return false;
    if (!req.filters) return (req.maxRank !== undefined || m.rank === 1) && m.turnManeuvers !== 'U';
    return mvFilters.every((f) => matches(f, movementValue(m, f.name)));
  };
  const items = candidates
    .map((c) => ({ c, movements: c.movements.filter(keepMovement) }))
    .filter((x) => mvFilters.length === 0 || x.movements.length > 0);
  const p = req.paging;
  const limit = Math.max(0, Math.min(p.limit, METADATA_MAX_ROWS - p.position));
  const page = items.slice(p.position, p.position + limit);
  const data = page.map(({ c, movements }) => {
    const item: Record<string, unknown> = {
      intersectionId: c.key,
      name: c.name,
      coordinates: [{ lat: c.intersection.lat, lon: c.intersection.lon }],
    };
    if (req.includeMovements) item.movements = movements.map((m) => renderMovement(m, req.includeGeometry));
    return project(item, req.fields, '');
  });
  const more = p.paged && p.position + page.length < Math.min(items.length, METADATA_MAX_ROWS);
  return { totalCount: items.length, data, nextCursor: more ? cursorAfter(p, page.length) : {} };
}
