/**
 * The tile sources a server offers for one region: the basemap and live traffic (rebuilt when the
 * live speeds change, or once a minute as observations age). The basemap is cut on demand and
 * bounded in memory whatever the region's size: below zoom 12 one source holds the major roads
 * and the water; from zoom 12 on, tiles come from a source per zoom-12 area holding only the
 * features meeting that area, built on first use, at most `BASEMAP_AREAS` kept (least recently
 * used out first).
 */
import { type Region, RoadClass } from '../network/index.js';
import type { SpeedFeeds } from '../traffic/feeds.js';
import { type LonLatBox, RoadIndex, areaFeatures } from './basemap-features.js';
import { liveFeatures } from './live-features.js';
import { TileSource, type EncodedTile } from './tile-source.js';

/** Below this zoom the basemap carries only tertiary and more important roads (smaller tiles). */
export const MINOR_ROADS_MIN_ZOOM = 12;
/** Zoom of the areas the detailed basemap is cut from (one source per tile of this zoom). */
export const BASEMAP_AREA_ZOOM = MINOR_ROADS_MIN_ZOOM;
/** Area sources kept in memory. */
export const BASEMAP_AREAS = 16;
/** Encoded tiles kept per area source (the area's tiles of zooms 12–14 are 21). */
const AREA_TILE_CACHE = 64;
/** Features are taken from this share of the area's size around it (the tiles' buffer is 64/4096). */
const AREA_MARGIN = 0.05;
/** Lots appear from this zoom on. */
export const LOTS_MIN_ZOOM = 13;
/** The live layer is rebuilt at least this often, seconds (observations age out). */
export const LIVE_REBUILD_S = 60;

const MAJOR_CLASSES: ReadonlySet<number> = new Set([
  RoadClass.motorway,
  RoadClass.trunk,
  RoadClass.primary,
  RoadClass.secondary,
  RoadClass.tertiary,
]);

/** [west, south, east, north] of tile z/x/y, degrees. */
export function tileBox(z: number, x: number, y: number): LonLatBox {
  const n = 2 ** z;
  const lat = (row: number): number => (Math.atan(Math.sinh(Math.PI * (1 - (2 * row) / n))) * 180) / Math.PI;
  return [(x / n) * 360 - 180, lat(y + 1), ((x + 1) / n) * 360 - 180, lat(y)];
}

/**
 * Basemap and live tiles of a region. One per served region; not tied to HTTP.
 * @example const t = new MapTiles(region, speeds); const tile = t.basemapTile(14, 4687, 6266);
 */
export class MapTiles {
  private overview: TileSource | null = null;
  private roads: RoadIndex | null = null;
  private others: ReturnType<typeof areaFeatures> | null = null;
  private readonly areas = new Map<string, TileSource>();
  private live: { source: TileSource; version: number; builtAtS: number } | null = null;

  constructor(
    private readonly region: Region,
    private readonly speeds: SpeedFeeds,
  ) {}

  /** Number of zoom-12 area sources held now (at most BASEMAP_AREAS). */
  get areaCount(): number {
    return this.areas.size;
  }

  /** A basemap tile, or null where the region has nothing. */
  basemapTile(z: number, x: number, y: number): EncodedTile | null {
    if (z < BASEMAP_AREA_ZOOM) return this.overviewSource().tile(z, x, y);
    const shift = z - BASEMAP_AREA_ZOOM;
    return this.areaSource(x >> shift, y >> shift).tile(z, x, y);
  }

  private roadIndex(): RoadIndex {
    this.roads ??= new RoadIndex(this.region.graph);
    return this.roads;
  }

  private otherFeatures(): ReturnType<typeof areaFeatures> {
    this.others ??= areaFeatures(this.region);
    return this.others;
  }

  /** The source of zooms below BASEMAP_AREA_ZOOM: water and the major roads. */
  private overviewSource(): TileSource {
    if (!this.overview) {
      const { roads, ferries } = this.roadIndex().features(null, (c) => MAJOR_CLASSES.has(c) || c === RoadClass.ferry);
      const o = this.otherFeatures();
      const fc = (features: typeof roads) => ({ type: 'FeatureCollection' as const, features });
      this.overview = new TileSource([
        { name: 'water', data: o.water },
        { name: 'waterways', data: o.waterways },
        { name: 'roads', data: fc(roads), maxZoom: BASEMAP_AREA_ZOOM - 1 },
        { name: 'ferries', data: fc(ferries), maxZoom: BASEMAP_AREA_ZOOM - 1 },
      ]);
    }
    return this.overview;
  }

  /** The source of the zoom-12 area (ax, ay) and the tiles below it. */
  private areaSource(ax: number, ay: number): TileSource {
    const key = `${ax}/${ay}`;
    const hit = this.areas.get(key);
    if (hit) {
      this.areas.delete(key);
      this.areas.set(key, hit);
      return hit;
    }
    const [w, s, e, n] = tileBox(BASEMAP_AREA_ZOOM, ax, ay);
    const mx = (e - w) * AREA_MARGIN;
    const my = (n - s) * AREA_MARGIN;
    const box: LonLatBox = [w - mx, s - my, e + mx, n + my];
    const { roads, ferries } = this.roadIndex().features(box);
    const o = this.otherFeatures();
    const fc = <T extends { features: unknown[] }>(features: T['features']) => ({
      type: 'FeatureCollection' as const,
      features: features as never[],
    });
    const source = new TileSource(
      [
        { name: 'water', data: o.water },
        { name: 'waterways', data: o.waterways },
        { name: 'roads', data: fc(roads) },
        { name: 'ferries', data: fc(ferries) },
        { name: 'lots', data: o.lots, minZoom: LOTS_MIN_ZOOM },
        { name: 'lot_labels', data: o.lot_labels, minZoom: LOTS_MIN_ZOOM },
      ],
      AREA_TILE_CACHE,
    );
    this.areas.set(key, source);
    if (this.areas.size > BASEMAP_AREAS) this.areas.delete(this.areas.keys().next().value as string);
    return source;
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
