/**
 * The live-traffic layer: every directed edge with a fresh live speed (probe traversals of the
 * last minutes, as the routing model uses them), with its speed as a share of free flow and the
 * speed bucket the routing API reports for such a share.
 */
import type { Feature, FeatureCollection, LineString } from 'geojson';
import type { Graph } from '../network/index.js';
import { DEFAULT_TRAFFIC_CONFIG, freeFlowSpeedKph } from '../traffic/index.js';
import type { SpeedFeeds } from '../traffic/feeds.js';

/** Live speeds older than this are not drawn: the routing model ignores them too, seconds. */
export const LIVE_MAX_AGE_S = DEFAULT_TRAFFIC_CONFIG.liveMaxAgeS;

/** Properties of a `live` feature. */
export interface LiveProperties {
  edge: number;
  /** live speed, km/h (1 decimal) */
  speedKph: number;
  /** free-flow speed of the edge, km/h (1 decimal) */
  freeFlowKph: number;
  /** speed bucket of the share of free flow: 0 < 25 %, 1 < 50 %, 2 < 75 %, 3 (as FindRoute's `speedBuckets`) */
  bucket: number;
  /** seconds since the last observation */
  ageS: number;
  /** probe traversals averaged */
  samples: number;
  name: string;
}

/** Speed bucket of a speed as a share of free flow (the routing API's default bucket set). */
export function speedBucketOfShare(share: number): number {
  if (share < 0.25) return 0;
  if (share < 0.5) return 1;
  if (share < 0.75) return 2;
  return 3;
}

const round1 = (x: number): number => Math.round(x * 10) / 10;

/**
 * Fresh live speeds as GeoJSON lines (each directed edge in its direction of travel).
 * @example const fc = liveFeatures(region.graph, speeds, Date.now() / 1000);
 */
export function liveFeatures(
  g: Graph,
  feeds: SpeedFeeds,
  nowS: number,
  maxAgeS = LIVE_MAX_AGE_S,
): FeatureCollection<LineString, LiveProperties> {
  const features: Array<Feature<LineString, LiveProperties>> = [];
  const entries = [...feeds.liveEntries()].sort((a, b) => a[0] - b[0]);
  for (const [e, live] of entries) {
    const ageS = nowS - live.observedAtS;
    if (e < 0 || e >= g.edgeCount || ageS > maxAgeS) continue;
    const coordinates: number[][] = [];
    for (let i = g.edgeGeomStart[e]; i < g.edgeGeomStart[e + 1]; i++)
      coordinates.push([g.geomLonE7[i] / 1e7, g.geomLatE7[i] / 1e7]);
    const ff = freeFlowSpeedKph(g, e);
    features.push({
      type: 'Feature',
      geometry: { type: 'LineString', coordinates },
      properties: {
        edge: e,
        speedKph: round1(live.speedKph),
        freeFlowKph: round1(ff),
        bucket: speedBucketOfShare(live.speedKph / ff),
        ageS: Math.max(0, Math.round(ageS)),
        samples: live.samples,
        name: g.names[g.edgeNameId[e]] ?? '',
      },
    });
  }
  return { type: 'FeatureCollection', features };
}
