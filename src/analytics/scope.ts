/**
 * The set of intersections a request may see: all of the served region's (never another region's
 * that shares the database), narrowed to the provisioned lists of the requested namespaces and to
 * a GeoJSON area.
 */
import type { Queryable } from '../store/db.js';
import type { IntersectionCatalog } from './catalog/catalog.js';
import type { AreaTest } from './geojson.js';
import { provisionedKeys } from './namespaces/namespaces.js';

/** Scope of a request: the visible intersection keys (all of them belong to the served region). */
export interface Scope {
  keys: string[];
}

/** Resolves the visible intersection keys. Throws ANALYTICS_NAMESPACE_NOT_FOUND for an unknown namespace. */
export async function resolveScope(
  db: Queryable,
  catalog: IntersectionCatalog,
  opts: { namespaces?: string[]; area?: AreaTest; namespaceParam?: string },
): Promise<Scope> {
  let keys: string[] | undefined;
  if (opts.namespaces && opts.namespaces.length > 0)
    keys = await provisionedKeys(db, opts.namespaces, opts.namespaceParam);
  if (opts.area) {
    const area = opts.area;
    const inArea = (k: string): boolean => {
      const c = catalog.byKey.get(k);
      return c !== undefined && area(c.intersection.lat, c.intersection.lon);
    };
    keys = keys
      ? keys.filter(inArea)
      : catalog.list.filter((c) => area(c.intersection.lat, c.intersection.lon)).map((c) => c.key);
  }
  // facts of other regions in the same database stay out: only this region's intersections
  return { keys: keys ? keys.filter((k) => catalog.byKey.has(k)) : catalog.list.map((c) => c.key) };
}
