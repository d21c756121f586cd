/**
 * Free-flow speeds from what unimpeded probe vehicles do. The free-flow time of a crossing's zone
 * is Σ piece length / free-flow speed of its edge; the speed of an edge is:
 *
 *  - `observed`: the median of the unimpeded probe speeds on the edge — reported ping speeds of at
 *    least `UNIMPEDED_SHARE` of the edge's 90th percentile (slower pings are queued, turning or
 *    pulling away) — when at least `FREE_FLOW_MIN_SAMPLES` of them were seen (the HCM's free-flow
 *    speed is the mean speed of vehicles that nothing slows; the median resists the odd fast one),
 *    where it is above the limit below;
 *  - else `tag`: the way's `maxspeed`;
 *  - else `default`: the country's legal limit for the road class (src/osm/country.ts).
 *
 * An observed speed below the limit does not lower free flow: on a short link the pings that pass
 * the unimpeded test still include vehicles pulling away from or slowing for the junction itself,
 * so a lower median is no evidence that drivers choose a lower speed. One above the limit is
 * evidence that the limit (often a legal default guessed from the road class) is too low.
 *
 * The observed speeds are recomputed from every stored traversal by `refreshFreeFlow` (the
 * operator's `analytics refresh`) and read by the fact builders (`storedFreeFlow`).
 * See docs/analytics.md, *Free flow*.
 */
import type { EdgeId, Graph } from '../../network/graph.js';
import type { Region } from '../../network/region.js';
import type { Trajectory } from '../../probes/trajectory.js';
import type { Queryable } from '../../store/db.js';

/** Unimpeded pings an edge needs before its observed speed is used. */
export const FREE_FLOW_MIN_SAMPLES = 20;
/** A ping slower than this share of the edge's 90th-percentile ping speed is impeded. */
export const UNIMPEDED_SHARE = 0.7;

/** Where an edge's free-flow speed comes from. */
export type FreeFlowSource = 'observed' | 'tag' | 'default';

/** Observed free-flow speeds per edge. */
export interface FreeFlowSpeeds {
  /** km/h per edge; NaN where fewer than `FREE_FLOW_MIN_SAMPLES` unimpeded pings were seen */
  observedKph: Float32Array;
  /** unimpeded pings behind each observed speed */
  samples: Uint32Array;
}

function quantile(sorted: readonly number[], q: number): number {
  const pos = (sorted.length - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - lo);
}

/**
 * Observed free-flow speeds of the edges of `g` from the reported ping speeds of `trajectories`.
 *
 * @example
 * const freeFlow = observedFreeFlow(region.graph, trajectories);
 * const facts = buildFacts(region, trajectories, { freeFlow });
 */
export function observedFreeFlow(
  g: Graph,
  trajectories: Iterable<Trajectory>,
  minSamples = FREE_FLOW_MIN_SAMPLES,
): FreeFlowSpeeds {
  const speeds = new Map<EdgeId, number[]>();
  for (const t of trajectories)
    for (const tr of t.traversals)
      for (const p of tr.pings) {
        if (p.speedKph === undefined || !(p.speedKph >= 0)) continue;
        let arr = speeds.get(tr.edge);
        if (arr === undefined) speeds.set(tr.edge, (arr = []));
        arr.push(p.speedKph);
      }
  const observedKph = new Float32Array(g.edgeCount).fill(Number.NaN);
  const samples = new Uint32Array(g.edgeCount);
  for (const [e, arr] of speeds) {
    if (arr.length < minSamples) continue;
    arr.sort((a, b) => a - b);
    const floor = UNIMPEDED_SHARE * quantile(arr, 0.9);
    const free = arr.filter((v) => v >= floor && v > 0);
    if (free.length < minSamples) continue;
    observedKph[e] = quantile(free, 0.5);
    samples[e] = free.length;
  }
  return { observedKph, samples };
}

/** Free-flow speed of edge `e`, km/h, and where it comes from: the observed speed where it exceeds the limit. */
export function freeFlowKphOf(g: Graph, e: EdgeId, freeFlow?: FreeFlowSpeeds): [number, FreeFlowSource] {
  const limit = g.edgeSpeedKph[e];
  const observed = freeFlow?.observedKph[e];
  if (observed !== undefined && observed > limit) return [observed, 'observed'];
  return [limit, g.edgeSpeedTagged[e] ? 'tag' : 'default'];
}

/**
 * Recomputes the observed free-flow speeds of `region`'s map version from every stored probe
 * traversal's pings (the rule of `observedFreeFlow`, in SQL) into `analytics_free_flow`
 * (migration 422). Returns the number of edges with an observed speed.
 */
export async function refreshFreeFlow(db: Queryable, region: Region): Promise<number> {
  const mapVersion = region.meta.mapVersion;
  await db.query('DELETE FROM analytics_free_flow WHERE region = $1 AND map_version = $2', [
    region.meta.name,
    mapVersion,
  ]);
  const r = await db.query(
    `INSERT INTO analytics_free_flow (region, map_version, edge_id, speed_kph, samples)
     WITH s AS (
       SELECT t.edge_id, (p->>'speedKph')::float8 AS v
       FROM probe_traversals t CROSS JOIN LATERAL jsonb_array_elements(t.pings) AS p
       WHERE t.map_version = $2 AND p ? 'speedKph'),
     q AS (
       SELECT edge_id, percentile_cont(0.9) WITHIN GROUP (ORDER BY v) AS p90
       FROM s GROUP BY edge_id HAVING count(*) >= $3)
     SELECT $1, $2, s.edge_id, percentile_cont(0.5) WITHIN GROUP (ORDER BY s.v), count(*)
     FROM s JOIN q ON q.edge_id = s.edge_id
     WHERE s.v >= $4 * q.p90 AND s.v > 0
     GROUP BY s.edge_id HAVING count(*) >= $3`,
    [region.meta.name, mapVersion, FREE_FLOW_MIN_SAMPLES, UNIMPEDED_SHARE],
  );
  cache.delete(region);
  return r.rowCount;
}

/** Observed free-flow speeds read back, per region, for this long before they are read again, ms. */
const CACHE_MS = 600_000;
const cache = new WeakMap<Region, { atMs: number; speeds: FreeFlowSpeeds }>();

/** The stored observed free-flow speeds of `region` (`refreshFreeFlow`), cached for ten minutes. */
export async function storedFreeFlow(db: Queryable, region: Region): Promise<FreeFlowSpeeds> {
  const hit = cache.get(region);
  if (hit && Date.now() - hit.atMs < CACHE_MS) return hit.speeds;
  const g = region.graph;
  const observedKph = new Float32Array(g.edgeCount).fill(Number.NaN);
  const samples = new Uint32Array(g.edgeCount);
  const r = await db.query<{ edge_id: number; speed_kph: number; samples: number }>(
    'SELECT edge_id, speed_kph, samples FROM analytics_free_flow WHERE region = $1 AND map_version = $2',
    [region.meta.name, region.meta.mapVersion],
  );
  for (const row of r.rows) {
    const e = Number(row.edge_id);
    if (e < 0 || e >= g.edgeCount) continue;
    observedKph[e] = Number(row.speed_kph);
    samples[e] = Number(row.samples);
  }
  const speeds = { observedKph, samples };
  cache.set(region, { atMs: Date.now(), speeds });
  return speeds;
}
