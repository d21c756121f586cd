/**
 * Namespaces: named groups of intersection subscriptions held in three lists (provisioned,
 * pending, reviewRequired), each id in exactly one list, tied to a map version and a region.
 *
 * PATCH semantics (docs/analytics.md): for each list `replace` is applied first (the list becomes
 * exactly that), then `remove`, then `add` (appended, duplicates dropped). Putting an id into one
 * list takes it out of the other two. Ids the region's catalog does not know are never rejected:
 * they land in reviewRequired (the list for subscriptions that need a human look). A PATCH on an
 * unknown namespace creates it.
 */
import type { Db, Queryable } from '../../store/db.js';
import { AnalyticsError, invalid } from '../errors.js';

/** The three subscription lists, in the order they are processed. */
export const NAMESPACE_LISTS = ['provisioned', 'pending', 'reviewRequired'] as const;
/** One of the three lists. */
export type NamespaceList = (typeof NAMESPACE_LISTS)[number];

/** Valid namespace names: 1–64 characters of letters, digits, `_`, `.`, `-`. */
export const NAMESPACE_NAME_RE = /^[A-Za-z0-9_.-]{1,64}$/;

/** Country and state of a namespace. */
export interface NamespaceRegion {
  country: string;
  state: string;
}

/** A namespace as the API returns it. */
export interface NamespaceData {
  namespace: string;
  mapVersion: string;
  provisioned: string[];
  pending: string[];
  reviewRequired: string[];
  region: NamespaceRegion;
}

/** add / remove / replace of one list. */
export interface DeltaOperation {
  add?: string[];
  remove?: string[];
  replace?: string[];
}

/** Body of PATCH /v1/namespace/{namespace} (validated). */
export interface NamespaceUpdate {
  mapVersion?: string;
  region?: Partial<NamespaceRegion>;
  provisioned?: DeltaOperation;
  pending?: DeltaOperation;
  reviewRequired?: DeltaOperation;
}

/** What an update needs from the service: which ids exist, and defaults for a new namespace. */
export interface NamespaceEnv {
  isKnownIntersection: (id: string) => boolean;
  defaultMapVersion: string;
  defaultRegion: NamespaceRegion;
}

/** Throws ANALYTICS_INVALID_NAMESPACE unless `name` is a valid namespace name. */
export function checkNamespaceName(name: string): void {
  if (!NAMESPACE_NAME_RE.test(name)) {
    throw new AnalyticsError(
      'ANALYTICS_INVALID_NAMESPACE',
      `namespace: '${name}' is not a valid name (1–64 characters: letters, digits, _ . -)`,
      'namespace',
    );
  }
}

function isObj(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function checkKeys(v: Record<string, unknown>, allowed: readonly string[], param: string): void {
  for (const k of Object.keys(v))
    if (!allowed.includes(k))
      throw invalid(param ? `${param}.${k}` : k, `unknown field (allowed: ${allowed.join(', ')})`);
}

function idList(v: unknown, param: string): string[] {
  if (!Array.isArray(v)) throw invalid(param, 'must be an array of intersection ids');
  return v.map((x, i) => {
    if (typeof x !== 'string' || x.length === 0 || x.length > 128)
      throw invalid(`${param}[${i}]`, 'must be a non-empty string (≤ 128 characters)');
    return x;
  });
}

function readRegion(v: unknown, param: string): Partial<NamespaceRegion> {
  if (!isObj(v)) throw invalid(param, 'must be an object { country, state }');
  checkKeys(v, ['country', 'state'], param);
  const out: Partial<NamespaceRegion> = {};
  for (const k of ['country', 'state'] as const) {
    if (v[k] === undefined) continue;
    if (typeof v[k] !== 'string') throw invalid(`${param}.${k}`, 'must be a string');
    out[k] = v[k] as string;
  }
  return out;
}

function readMapVersion(v: unknown, param: string): string {
  if (typeof v !== 'string' || !/^\d{8}$/.test(v)) throw invalid(param, 'must be a YYYYMMDD string');
  return v;
}

/** Top-level fields of a NamespaceUpdateRequest body (PATCH). */
export const NAMESPACE_UPDATE_FIELDS = ['mapVersion', 'region', 'namespace', ...NAMESPACE_LISTS] as const;
/** Top-level fields of a NamespaceSearchRequest body. */
export const NAMESPACE_SEARCH_FIELDS = ['namespaces', 'mapVersion', 'region'] as const;

/** Validates a PATCH body. */
export function parseNamespaceUpdate(body: unknown, pathName: string): NamespaceUpdate {
  if (!isObj(body)) throw invalid('body', 'a JSON object NamespaceUpdateRequest is required');
  checkKeys(body, NAMESPACE_UPDATE_FIELDS, '');
  if (body.namespace !== undefined && body.namespace !== pathName)
    throw invalid('namespace', 'must match the path parameter when given');
  const out: NamespaceUpdate = {};
  if (body.mapVersion !== undefined) out.mapVersion = readMapVersion(body.mapVersion, 'mapVersion');
  if (body.region !== undefined) out.region = readRegion(body.region, 'region');
  for (const list of NAMESPACE_LISTS) {
    const d = body[list];
    if (d === undefined) continue;
    if (!isObj(d)) throw invalid(list, 'must be a DeltaOperation { add, remove, replace }');
    checkKeys(d, ['add', 'remove', 'replace'], list);
    const op: DeltaOperation = {};
    for (const k of ['add', 'remove', 'replace'] as const) if (d[k] !== undefined) op[k] = idList(d[k], `${list}.${k}`);
    out[list] = op;
  }
  // An id put into two different lists by one request has no single outcome.
  const target = new Map<string, NamespaceList>();
  for (const list of NAMESPACE_LISTS) {
    for (const id of [...(out[list]?.replace ?? []), ...(out[list]?.add ?? [])]) {
      const other = target.get(id);
      if (other && other !== list)
        throw invalid(`${list}.add`, `intersection ${id} is also put into ${other} by this request`);
      target.set(id, list);
    }
  }
  return out;
}

async function load(q: Queryable, name: string, lock: boolean): Promise<NamespaceData | undefined> {
  const ns = await q.query<{ name: string; map_version: string; country: string; state: string }>(
    `SELECT name, map_version, country, state FROM analytics_namespace WHERE name = $1${lock ? ' FOR UPDATE' : ''}`,
    [name],
  );
  if (ns.rows.length === 0) return undefined;
  const r = ns.rows[0];
  const data: NamespaceData = {
    namespace: r.name,
    mapVersion: r.map_version,
    provisioned: [],
    pending: [],
    reviewRequired: [],
    region: { country: r.country, state: r.state },
  };
  const members = await q.query<{ intersection_key: string; list: NamespaceList }>(
    'SELECT intersection_key, list FROM analytics_namespace_member WHERE namespace = $1 ORDER BY list, position',
    [name],
  );
  for (const m of members.rows) data[m.list].push(m.intersection_key);
  return data;
}

/** Reads one namespace, or undefined. */
export function findNamespace(db: Queryable, name: string): Promise<NamespaceData | undefined> {
  return load(db, name, false);
}

/** Deletes a namespace and all its subscriptions. Throws ANALYTICS_NAMESPACE_NOT_FOUND. */
export async function deleteNamespace(db: Db, name: string): Promise<void> {
  checkNamespaceName(name);
  const res = await db.query('DELETE FROM analytics_namespace WHERE name = $1', [name]);
  if (res.rowCount === 0)
    throw new AnalyticsError('ANALYTICS_NAMESPACE_NOT_FOUND', `namespace '${name}' not found`, 'namespace');
}

/** Applies replace → remove → add per list to `lists` (mutated); see the module comment. */
export function applyDelta(lists: Record<NamespaceList, string[]>, update: NamespaceUpdate): void {
  const takeOut = (id: string, except: NamespaceList): void => {
    for (const l of NAMESPACE_LISTS) if (l !== except) lists[l] = lists[l].filter((x) => x !== id);
  };
  for (const l of NAMESPACE_LISTS) {
    const rep = update[l]?.replace;
    if (!rep) continue;
    lists[l] = [...new Set(rep)];
    for (const id of lists[l]) takeOut(id, l);
  }
  for (const l of NAMESPACE_LISTS) {
    const rem = update[l]?.remove;
    if (rem) lists[l] = lists[l].filter((x) => !rem.includes(x));
  }
  for (const l of NAMESPACE_LISTS) {
    for (const id of update[l]?.add ?? []) {
      takeOut(id, l);
      if (!lists[l].includes(id)) lists[l].push(id);
    }
  }
}

/**
 * Updates (or creates) namespace `name`. Returns the new state and a message that says how many
 * unknown ids were routed to reviewRequired.
 */
export async function updateNamespace(
  db: Db,
  name: string,
  update: NamespaceUpdate,
  env: NamespaceEnv,
): Promise<{ data: NamespaceData; message: string }> {
  checkNamespaceName(name);
  return db.transaction(async (tx) => {
    const created =
      (
        await tx.query(
          `INSERT INTO analytics_namespace (name, map_version, country, state) VALUES ($1, $2, $3, $4) ON CONFLICT (name) DO NOTHING`,
          [
            name,
            update.mapVersion ?? env.defaultMapVersion,
            update.region?.country ?? env.defaultRegion.country,
            update.region?.state ?? env.defaultRegion.state,
          ],
        )
      ).rowCount > 0;
    const cur = (await load(tx, name, true))!;
    const lists = { provisioned: cur.provisioned, pending: cur.pending, reviewRequired: cur.reviewRequired };
    applyDelta(lists, update);
    let unknown = 0;
    for (const l of ['provisioned', 'pending'] as const) {
      const moved = lists[l].filter((id) => !env.isKnownIntersection(id));
      if (moved.length === 0) continue;
      unknown += moved.length;
      lists[l] = lists[l].filter((id) => env.isKnownIntersection(id));
      for (const id of moved) if (!lists.reviewRequired.includes(id)) lists.reviewRequired.push(id);
    }
    const mapVersion = update.mapVersion ?? cur.mapVersion;
    const region = {
      country: update.region?.country ?? cur.region.country,
      state: update.region?.state ?? cur.region.state,
    };
    await tx.query(
      'UPDATE analytics_namespace SET map_version = $2, country = $3, state = $4, updated_at = now() WHERE name = $1',
      [name, mapVersion, region.country, region.state],
    );
    await tx.query('DELETE FROM analytics_namespace_member WHERE namespace = $1', [name]);
    const keys: string[] = [];
    const which: string[] = [];
    const pos: number[] = [];
    for (const l of NAMESPACE_LISTS)
      lists[l].forEach((id, i) => {
        keys.push(id);
        which.push(l);
        pos.push(i);
      });
    if (keys.length > 0) {
      await tx.query(
        `INSERT INTO analytics_namespace_member (namespace, intersection_key, list, position)
         SELECT $1, k, l, p FROM unnest($2::text[], $3::text[], $4::int[]) AS u(k, l, p)`,
        [name, keys, which, pos],
      );
    }
    const data: NamespaceData = { namespace: name, mapVersion, ...lists, region };
    let message = created ? 'Namespace created' : 'Namespace updated';
    if (unknown > 0) message += `; ${unknown} unknown intersection id(s) moved to reviewRequired`;
    return { data, message };
  });
}

/** Body of POST /v1/namespace/search (validated). */
export interface NamespaceSearch {
  namespaces: string[];
  mapVersion?: string;
  region?: Partial<NamespaceRegion>;
}

/** Validates a search body. */
export function parseNamespaceSearch(body: unknown): NamespaceSearch {
  if (!isObj(body)) throw invalid('body', 'a JSON object NamespaceSearchRequest is required');
  checkKeys(body, NAMESPACE_SEARCH_FIELDS, '');
  const out: NamespaceSearch = { namespaces: [] };
  if (body.namespaces !== undefined) {
    if (!Array.isArray(body.namespaces)) throw invalid('namespaces', 'must be an array of names');
    out.namespaces = body.namespaces.map((n, i) => {
      if (typeof n !== 'string' || !NAMESPACE_NAME_RE.test(n))
        throw invalid(`namespaces[${i}]`, 'must be a valid namespace name');
      return n;
    });
  }
  if (body.mapVersion !== undefined) out.mapVersion = readMapVersion(body.mapVersion, 'mapVersion');
  if (body.region !== undefined) out.region = readRegion(body.region, 'region');
  return out;
}

/** Namespaces matching the search (exact names, map version, country/state), ordered by name. */
export async function searchNamespaces(db: Db, s: NamespaceSearch): Promise<NamespaceData[]> {
  const where: string[] = [];
  const params: unknown[] = [];
  if (s.namespaces.length > 0) {
    params.push(s.namespaces);
    where.push(`name = ANY($${params.length}::text[])`);
  }
  if (s.mapVersion) {
    params.push(s.mapVersion);
    where.push(`map_version = $${params.length}`);
  }
  if (s.region?.country !== undefined) {
    params.push(s.region.country);
    where.push(`lower(country) = lower($${params.length})`);
  }
  if (s.region?.state !== undefined) {
    params.push(s.region.state);
    where.push(`lower(state) = lower($${params.length})`);
  }
  const names = await db.query<{ name: string }>(
    `SELECT name FROM analytics_namespace ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY name`,
    params,
  );
  const out: NamespaceData[] = [];
  for (const r of names.rows) out.push((await load(db, r.name, false))!);
  return out;
}

/**
 * Union of the provisioned ids of `names`, in name then list order. Throws
 * ANALYTICS_NAMESPACE_NOT_FOUND naming the first unknown namespace.
 */
export async function provisionedKeys(db: Queryable, names: readonly string[], param = 'namespace'): Promise<string[]> {
  const found = await db.query<{ name: string }>('SELECT name FROM analytics_namespace WHERE name = ANY($1::text[])', [
    names,
  ]);
  const have = new Set(found.rows.map((r) => r.name));
  for (const n of names)
    if (!have.has(n))
      throw new AnalyticsError('ANALYTICS_NAMESPACE_NOT_FOUND', `${param}: namespace '${n}' not found`, param);
  const rows = await db.query<{ intersection_key: string }>(
    `SELECT DISTINCT intersection_key FROM analytics_namespace_member WHERE namespace = ANY($1::text[]) AND list = 'provisioned' ORDER BY intersection_key`,
    [names],
  );
  return rows.rows.map((r) => r.intersection_key);
}
