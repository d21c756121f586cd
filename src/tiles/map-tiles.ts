/**
 * The tile sources a server offers for one region: the basemap (built once, on first use) and
 * live traffic (rebuilt when the live speeds change, or once a minute as observations age).
 */
import type { Region } from '../network/index.js';
import type { SpeedFeeds } from '../traffic/feeds.js';
import { basemapFeatures } from './basemap-features.js';
import { liveFeatures } from './live-features.js';
import { TileSource, type EncodedTile } from './tile-source.js';

/** Below this zoom the basemap carries only tertiary and more important roads (smaller tiles). */
export const MINOR_ROADS_MIN_ZOOM = 12;
/** Lots appear from this zoom on. */
export const LOTS_MIN_ZOOM = 13;
/** The live layer is rebuilt at least this often, seconds (observations age out). */
export const LIVE_REBUILD_S = 60;

const MAJOR_CLASSES = new Set(['motorway', 'trunk', 'primary', 'secondary', 'tertiary']);

/**
 * Basemap and live tiles of a region. One per served region; not tied to HTTP.
 * @example const t = new MapTiles(region, speeds); const tile = t.basemapTile(14, 4687, 6266);
 */
export class MapTiles {
  private basemap: TileSource | null = null;
  private live: { source: TileSource; version: number; builtAtS: number } | null = null;

  constructor(
    private readonly region: Region,
    private readonly speeds: SpeedFeeds,
  ) {}

  /** The basemap source, sliced on first use (a few hundred ms for a city). */
  basemapSource(): TileSource {
    if (!this.basemap) {
      const f = basemapFeatures(this.region);
      const major = {
        type: 'FeatureCollection' as const,
        features: f.roads.features.filter((x) => MAJOR_CLASSES.has(String(x.properties?.class))),
      };
      this.basemap = new TileSource([
        { name: 'water', data: f.water },
        { name: 'waterways', data: f.waterways },
        { name: 'roads', data: major, maxZoom: MINOR_ROADS_MIN_ZOOM - 1 },
        { name: 'roads', data: f.roads, minZoom: MINOR_ROADS_MIN_ZOOM },
        { name: 'ferries', data: f.ferries },
        { name: 'lots', data: f.lots, minZoom: LOTS_MIN_ZOOM },
        { name: 'lot_labels', data: f.lot_labels, minZoom: LOTS_MIN_ZOOM },
      ]);
    }
    return this.basemap;
  }

  /** A basemap tile, or null where the region has nothing. */
  basemapTile(z: number, x: number, y: number): EncodedTile | null {
    return this.basemapSource().tile(z, x, y);
  }

  /** A live-traffic tile at `nowS` (unix seconds), or null where nothing is live. */
  liveTile(z: number, x: number, y: number, nowS: number): EncodedTile | null {
    const v = this.speeds.version;
    if (
      !this.live ||
      this.live.version !== v ||
      nowS - this.live.builtAtS >= LIVE_REBUILD_S ||
      nowS < this.live.builtAtS
    ) {
      this.live = {
        source: new TileSource([{ name: 'live', data: liveFeatures(this.region.graph, this.speeds, nowS) }], 1024),
        version: v,
        builtAtS: nowS,
      };
    }
    return this.live.source.tile(z, x, y);
  }
}
