/**
 * Mapbox Vector Tiles (MVT 2.1, extent 4096) cut from GeoJSON layers with `@maplibre/geojson-vt`
 * and encoded with `@maplibre/vt-pbf`. Tiles are cut on first request and kept, gzip-compressed,
 * in a bounded LRU cache; a tile outside the data, or deeper than `TILE_MAX_ZOOM` (clients
 * overzoom), is `null` (the HTTP layer answers 204).
 */
import { gzipSync } from 'node:zlib';
import type { FeatureCollection } from 'geojson';
import { GeoJSONVT, type GeoJSONVTTile } from '@maplibre/geojson-vt';
import { fromGeojsonVt } from '@maplibre/vt-pbf';

/** Deepest zoom with its own detail; deeper tiles are overzoomed by the client. */
export const TILE_MAX_ZOOM = 14;
/** Tile extent (MVT coordinate units per tile side). */
export const TILE_EXTENT = 4096;
/** Encoded tiles kept in memory per source. */
export const TILE_CACHE_ENTRIES = 4096;

/** One encoded tile: raw protobuf and its gzip form. */
export interface EncodedTile {
  pbf: Uint8Array;
  gzip: Buffer;
}

/** A layer of a tile source: its GeoJSON and the lowest zoom it appears at. */
export interface TileLayerInput {
  name: string;
  data: FeatureCollection;
  /** tiles below this zoom leave the layer out (default 0) */
  minZoom?: number;
  /** tiles above this zoom leave the layer out (default: every zoom); two inputs of one name may split the zooms */
  maxZoom?: number;
}

/** Tile coordinates are integers with 0 ≤ x, y < 2^z and 0 ≤ z ≤ 24. */
export function validTileCoords(z: number, x: number, y: number): boolean {
  if (!Number.isInteger(z) || !Number.isInteger(x) || !Number.isInteger(y)) return false;
  if (z < 0 || z > 24) return false;
  const n = 2 ** z;
  return x >= 0 && y >= 0 && x < n && y < n;
}

/**
 * Slices layers into vector tiles on demand and caches the encoded results (least recently used
 * out first). Not safe to share between data versions: build a new source when the data changes.
 */
export class TileSource {
  private readonly indexes: Array<{ name: string; minZoom: number; maxZoom: number; index: GeoJSONVT }>;
  private readonly cache = new Map<string, EncodedTile | null>();

  constructor(
    layers: TileLayerInput[],
    private readonly maxEntries = TILE_CACHE_ENTRIES,
  ) {
    this.indexes = layers.map((l) => ({
      name: l.name,
      minZoom: l.minZoom ?? 0,
      maxZoom: l.maxZoom ?? Infinity,
      // indexMaxZoom 5: the index keeps the coarse pyramid; finer tiles are cut on request
      index: new GeoJSONVT(l.data, {
        maxZoom: TILE_MAX_ZOOM,
        indexMaxZoom: 5,
        extent: TILE_EXTENT,
        buffer: 64,
        tolerance: 3,
      }),
    }));
  }

  /** Number of tiles (including empty ones) in the cache. */
  get cachedCount(): number {
    return this.cache.size;
  }

  /** The tile z/x/y, or null when no layer has data there. Throws on invalid coordinates. */
  tile(z: number, x: number, y: number): EncodedTile | null {
    if (!validTileCoords(z, x, y)) throw new Error(`invalid tile ${z}/${x}/${y}`);
    const key = `${z}/${x}/${y}`;
    const hit = this.cache.get(key);
    if (hit !== undefined) {
      // refresh recency: Map keeps insertion order
      this.cache.delete(key);
      this.cache.set(key, hit);
      return hit;
    }
    const tile = this.encode(z, x, y);
    this.cache.set(key, tile);
    if (this.cache.size > this.maxEntries) this.cache.delete(this.cache.keys().next().value as string);
    return tile;
  }

  private encode(z: number, x: number, y: number): EncodedTile | null {
    const layers: Record<string, GeoJSONVTTile> = {};
    let any = false;
    for (const { name, minZoom, maxZoom, index } of this.indexes) {
      if (z < minZoom || z > maxZoom) continue;
      const t = index.getTile(z, x, y);
      if (t && t.features.length > 0) {
        layers[name] = t;
        any = true;
      }
    }
    if (!any) return null;
    const pbf = fromGeojsonVt(layers, { version: 2, extent: TILE_EXTENT });
    return { pbf, gzip: gzipSync(pbf, { level: 6 }) };
  }
}
