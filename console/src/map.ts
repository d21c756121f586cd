/** The map: MapLibre GL JS on the basemap style, plus helpers the panels use for their overlays. */
import * as maplibregl from 'maplibre-gl';
import type { GeoJSONSource, LayerSpecification, Map as MlMap, MapOptions } from 'maplibre-gl';
import type { FeatureCollection } from 'geojson';
import { basemapStyle } from './style.js';

/** Region facts the map needs (from /console/config.json). */
export interface MapRegion {
  bounds: [number, number, number, number];
  attribution: string;
}

/** Creates the map fitted to the region's bounds ([minLat, minLon, maxLat, maxLon]). */
export function createMap(
  container: HTMLElement,
  region: MapRegion,
  transformRequest: NonNullable<MapOptions['transformRequest']>,
): MlMap {
  const [minLat, minLon, maxLat, maxLon] = region.bounds;
  const map = new maplibregl.Map({
    container,
    style: basemapStyle(location.origin, region.attribution),
    bounds: [
      [minLon, minLat],
      [maxLon, maxLat],
    ],
    fitBoundsOptions: { padding: 20 },
    attributionControl: { compact: false },
    transformRequest,
    // keeps the drawing buffer readable, so tests and screenshots can check the canvas pixels
    canvasContextAttributes: { preserveDrawingBuffer: true },
  });
  map.addControl(new maplibregl.NavigationControl({ showCompass: false }), 'top-right');
  map.addControl(new maplibregl.ScaleControl({ unit: 'metric' }), 'bottom-right');
  return map;
}

/** An empty feature collection. */
export const EMPTY: FeatureCollection = { type: 'FeatureCollection', features: [] };

/**
 * A panel's overlay: one GeoJSON source and its layers, added once the style is loaded, shown or
 * hidden as the panel is selected.
 */
export class Overlay {
  private ready: Promise<void>;

  constructor(
    private readonly map: MlMap,
    readonly id: string,
    private readonly layers: LayerSpecification[],
    readonly beforeId?: string,
  ) {
    this.ready = new Promise((resolve) => {
      const add = () => {
        if (!map.getSource(id)) map.addSource(id, { type: 'geojson', data: EMPTY, promoteId: 'fid' });
        for (const l of layers)
          if (!map.getLayer(l.id)) map.addLayer(l, beforeId && map.getLayer(beforeId) ? beforeId : undefined);
        resolve();
      };
      if (map.isStyleLoaded()) add();
      else map.once('load', add);
    });
  }

  /** Replaces the overlay's features. */
  async set(data: FeatureCollection): Promise<void> {
    await this.ready;
    (this.map.getSource(this.id) as GeoJSONSource).setData(data);
  }

  /** Shows or hides every layer of the overlay. */
  async visible(on: boolean): Promise<void> {
    await this.ready;
    for (const l of this.layers) this.map.setLayoutProperty(l.id, 'visibility', on ? 'visible' : 'none');
  }

  /** Ids of the overlay's layers (for click handlers). */
  get layerIds(): string[] {
    return this.layers.map((l) => l.id);
  }
}
