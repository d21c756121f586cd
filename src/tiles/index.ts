/** Vector tiles of the served region: basemap (streets, ferries, lots) and live traffic. */
export {
  MapTiles,
  MINOR_ROADS_MIN_ZOOM,
  LOTS_MIN_ZOOM,
  LIVE_REBUILD_S,
  BASEMAP_AREAS,
  BASEMAP_AREA_ZOOM,
  tileBox,
} from './map-tiles.js';
export { TileSource, validTileCoords, TILE_MAX_ZOOM, TILE_EXTENT, TILE_CACHE_ENTRIES } from './tile-source.js';
export type { EncodedTile, TileLayerInput } from './tile-source.js';
export { basemapFeatures, areaFeatures, chainWayEdges, RoadIndex, BASEMAP_LAYERS } from './basemap-features.js';
export type { LonLatBox } from './basemap-features.js';
export type { BasemapFeatures, BasemapLayer, RoadProperties, LotProperties } from './basemap-features.js';
export { liveFeatures, speedBucketOfShare, LIVE_MAX_AGE_S } from './live-features.js';
export type { LiveProperties } from './live-features.js';
