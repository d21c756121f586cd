/**
 * Live panel: live speeds as they arrive (the token-protected `/tiles/live/…` vector tiles,
 * re-fetched every 30 s) coloured by the routing API's speed buckets, and the current incidents
 * (`GET /v1/incidents`, admin applications only).
 */
import type { MapMouseEvent, VectorTileSource } from 'maplibre-gl';
import type { FeatureCollection } from 'geojson';
import { barChart } from '../chart.js';
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

interface LearnedSpeeds {
  edges: Array<{
    edgeId: number;
    name: string;
    bins: Array<{ bin: number; samples: number; learnedKph: number; typicalKph: number }>;
  }>;
}

export class LivePanel implements Panel {
  private rendered = false;
  private timer: ReturnType<typeof setInterval> | undefined;
  private version = 0;
  private readonly incidents: Overlay;
  private readonly els = {
    status: h('p', { className: 'hint', id: 'live-status' }),
    incidents: h('div', { id: 'live-incidents' }),
    edge: h('div', { id: 'live-edge' }),
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

  onMapClick(e: MapMouseEvent): void {
    if (!this.c.map.getLayer('live-speeds')) return;
    const f = this.c.map.queryRenderedFeatures(e.point, { layers: ['live-speeds'] })[0];
    const edge = Number(f?.properties?.edge);
    if (Number.isInteger(edge)) void this.showEdge(edge);
  }

  /**
   * The learned speed of one edge by hour of today's weekday (bars, sample-weighted over the
   * hour's 15-minute bins) against the typical speed (line), from `GET /v1/speeds/learned`.
   */
  private async showEdge(edge: number): Promise<void> {
    const now = this.c.time.now();
    const day = now.weekday - 1; // luxon: 1 = Monday; bins start Monday 00:00
    replace(this.els.edge, h('p', { className: 'hint' }, 'Loading learned speeds…'));
    try {
      const res = await this.c.api.get<LearnedSpeeds>('/v1/speeds/learned', { edges: edge });
      const e = res.edges[0];
      const hours = Array.from({ length: 24 }, () => ({ n: 0, learned: 0, typical: 0 }));
      for (const b of e?.bins ?? []) {
        if (Math.floor(b.bin / 96) !== day) continue;
        const hr = hours[Math.floor((b.bin % 96) / 4)];
        hr.n += b.samples;
        hr.learned += b.samples * b.learnedKph;
        hr.typical += b.samples * b.typicalKph;
      }
      const bars = hours.map((x, i) => ({
        label: String(i),
        value: x.n > 0 ? Math.round(x.learned / x.n) : null,
        title:
          x.n > 0
            ? `${i}:00 learned ${Math.round(x.learned / x.n)} km/h from ${x.n} samples, typical ${Math.round(x.typical / x.n)} km/h`
            : `${i}:00 no samples`,
      }));
      const typical = hours.map((x) => (x.n > 0 ? Math.round(x.typical / x.n) : null));
      replace(
        this.els.edge,
        h('h3', {}, `${e?.name || `Edge ${edge}`}: speed by hour, ${now.toFormat('cccc')}`),
        e
          ? barChart(bars, {
              unit: 'km/h',
              highlight: now.hour,
              labelEvery: 3,
              reference: typical,
              testId: 'edge-speed-chart',
            })
          : h('p', { className: 'hint' }, 'Nothing learned on this street yet.'),
        h('p', { className: 'hint' }, 'Bars: learned from probes; line: typical (the prediction without probes).'),
      );
    } catch (err) {
      replace(this.els.edge, h('p', { className: 'error' }, describeError(err)));
    }
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
        h('p', { className: 'hint' }, 'Click a coloured street for its learned speed by hour.'),
        this.els.edge,
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
      this.els.status.textContent = `${n} live road segments in view · updated ${this.c.time.clock(Date.now())}`;
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
                  `${x.closure ? 'Closure' : x.type} (severity ${x.severity}): ${x.shortDescription || 'no description'} · until ${x.endTime ? this.c.time.clock(Date.parse(x.endTime), true) : 'further notice'}`,
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
