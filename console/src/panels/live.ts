/**
 * Live panel: live speeds as they arrive (the token-protected `/tiles/live/…` vector tiles,
 * re-fetched every 30 s) coloured by the routing API's speed buckets, and the current incidents
 * (`GET /v1/incidents`, admin applications only).
 */
import type { VectorTileSource } from 'maplibre-gl';
import type { FeatureCollection } from 'geojson';
import { h, replace } from '../dom.js';
import { Overlay } from '../map.js';
import { SPEED_BUCKET_COLORS, SPEED_BUCKET_LABELS, colorMatch } from '../style.js';
import { describeError, type Panel, type PanelContext } from './panel.js';

/** How often the live layer and the incidents are refreshed, ms. */
export const LIVE_POLL_MS = 30_000;

interface Incident {
  id: number;
  type: string;
  severity: number;
  closure: boolean;
  location: { lat: number; lon: number } | null;
  startTime: string;
  endTime: string;
  shortDescription: string;
  delayImpactMinutes: number;
}

export class LivePanel implements Panel {
  private rendered = false;
  private timer: ReturnType<typeof setInterval> | undefined;
  private version = 0;
  private readonly incidents: Overlay;
  private readonly els = {
    status: h('p', { className: 'hint', id: 'live-status' }),
    incidents: h('div', { id: 'live-incidents' }),
  };

  constructor(
    private readonly c: PanelContext,
    private readonly section: HTMLElement,
  ) {
    const add = () => {
      c.map.addSource('live', { type: 'vector', tiles: [this.tileUrl()], minzoom: 0, maxzoom: 14 });
      c.map.addLayer({
        id: 'live-speeds',
        type: 'line',
        source: 'live',
        'source-layer': 'live',
        layout: { visibility: 'none', 'line-cap': 'round' },
        paint: {
          'line-color': colorMatch(
            'bucket',
            Object.fromEntries(SPEED_BUCKET_COLORS.map((col, i) => [i, col])),
            '#2ea043',
          ),
          'line-width': ['interpolate', ['linear'], ['zoom'], 12, 2, 17, 6],
          'line-offset': ['interpolate', ['linear'], ['zoom'], 12, 1.5, 17, 4],
        },
      });
    };
    if (c.map.isStyleLoaded()) add();
    else c.map.once('load', add);
    this.incidents = new Overlay(c.map, 'incidents', [
      {
        id: 'incidents',
        type: 'circle',
        source: 'incidents',
        layout: { visibility: 'none' },
        paint: {
          'circle-color': ['case', ['get', 'closure'], '#7a0019', '#e36209'],
          'circle-radius': 8,
          'circle-stroke-color': '#fff',
          'circle-stroke-width': 2,
        },
      },
    ]);
  }

  private tileUrl(): string {
    return `${location.origin}/tiles/live/{z}/{x}/{y}.pbf?v=${this.version}`;
  }

  activate(): void {
    if (!this.rendered) {
      this.rendered = true;
      replace(
        this.section,
        h(
          'p',
          { className: 'hint' },
          'Speeds measured by probe vehicles in the last 15 minutes, by direction of travel, as a share of free flow (refreshed every 30 s). Incidents below need an admin application.',
        ),
        h(
          'div',
          { className: 'legend' },
          ...SPEED_BUCKET_COLORS.map((col, i) =>
            h('span', {}, h('i', { style: { background: col } }), SPEED_BUCKET_LABELS[i]),
          ),
        ),
        this.els.status,
        h('h3', {}, 'Incidents'),
        this.els.incidents,
      );
    }
    if (this.c.map.getLayer('live-speeds')) this.c.map.setLayoutProperty('live-speeds', 'visibility', 'visible');
    void this.incidents.visible(true);
    void this.refresh();
    this.timer = setInterval(() => void this.refresh(), LIVE_POLL_MS);
  }

  deactivate(): void {
    if (this.timer !== undefined) clearInterval(this.timer);
    this.timer = undefined;
    if (this.c.map.getLayer('live-speeds')) this.c.map.setLayoutProperty('live-speeds', 'visibility', 'none');
    void this.incidents.visible(false);
  }

  /** Re-fetches the live tiles (new URL version) and the incidents. */
  async refresh(): Promise<void> {
    this.version++;
    (this.c.map.getSource('live') as VectorTileSource | undefined)?.setTiles([this.tileUrl()]);
    this.c.map.once('idle', () => {
      const n = this.c.map.querySourceFeatures('live', { sourceLayer: 'live' }).length;
      this.els.status.textContent = `${n} live road segments in view · updated ${new Date().toLocaleTimeString()}`;
      this.els.status.setAttribute('data-live', String(n));
    });
    try {
      const res = await this.c.api.get<{ incidents: Incident[] }>('/v1/incidents');
      const fc: FeatureCollection = {
        type: 'FeatureCollection',
        features: res.incidents
          .filter((x) => x.location)
          .map((x) => ({
            type: 'Feature',
            geometry: { type: 'Point', coordinates: [x.location!.lon, x.location!.lat] },
            properties: { id: x.id, closure: x.closure, type: x.type },
          })),
      };
      await this.incidents.set(fc);
      replace(
        this.els.incidents,
        res.incidents.length
          ? h(
              'ul',
              {},
              ...res.incidents.map((x) =>
                h(
                  'li',
                  {},
                  `${x.closure ? 'Closure' : x.type} (severity ${x.severity}): ${x.shortDescription || 'no description'} · until ${new Date(x.endTime).toLocaleString()}`,
                ),
              ),
            )
          : h('p', { className: 'hint' }, 'No current incidents.'),
      );
    } catch (err) {
      replace(this.els.incidents, h('p', { className: 'hint' }, describeError(err)));
    }
  }
}
