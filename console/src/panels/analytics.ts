/**
 * Intersections panel: level of service of every intersection with probe data for a chosen day
 * and hour (or 15-minute bin), from the analytics API (`POST /v1/metrics/intersections`); a click
 * lists the intersection's movements (delay, volume, POG, LOS) and charts its delay by hour.
 * Days with data come from `/v1/metrics/intersections/availability`.
 */
import type { FeatureCollection } from 'geojson';
import { barChart } from '../chart.js';
import { h, replace } from '../dom.js';
import { Overlay } from '../map.js';
import { FONT_BOLD, LOS_COLORS, colorMatch } from '../style.js';
import { hhmm } from '../time.js';
import { describeError, type Panel, type PanelContext } from './panel.js';

interface MetricsResponse {
  data: {
    columnHeader: { dimensionHeaderEntries: Array<{ name: string }>; metricHeaderEntries: Array<{ name: string }> };
    rows: Array<Array<string | null>>;
  };
}

/** Rows of a metrics answer as objects keyed by column name. */
export function metricRows(res: MetricsResponse): Array<Record<string, string | null>> {
  const names = [...res.data.columnHeader.dimensionHeaderEntries, ...res.data.columnHeader.metricHeaderEntries].map(
    (c) => c.name,
  );
  return res.data.rows.map((r) => Object.fromEntries(names.map((n, i) => [n, r[i] ?? null])));
}

/** Position of an intersection from its public id (`<lat>_<lon>`, optionally `_<osm id>`; docs/analytics.md). */
export function positionOfId(id: string): [number, number] | null {
  const [lat, lon] = id.split('_').map(Number);
  return Number.isFinite(lat) && Number.isFinite(lon) ? [lon, lat] : null;
}

export class AnalyticsPanel implements Panel {
  private rendered = false;
  private seq = 0;
  private readonly overlay: Overlay;
  private readonly els = {
    day: h('select', { id: 'analytics-day' }),
    bins: h('input', { type: 'checkbox', id: 'analytics-bins' }),
    slider: h('input', { type: 'range', id: 'analytics-time', min: 0, max: 23, step: 1, value: 8 }),
    label: h('output', { id: 'analytics-time-label' }),
    status: h('p', { className: 'hint', id: 'analytics-status' }),
    list: h('div', { id: 'analytics-list' }),
    detail: h('div', { id: 'analytics-detail' }),
  };

  constructor(
    private readonly c: PanelContext,
    private readonly section: HTMLElement,
  ) {
    this.overlay = new Overlay(c.map, 'los', [
      {
        id: 'los-circles',
        type: 'circle',
        source: 'los',
        layout: { visibility: 'none' },
        paint: {
          'circle-color': colorMatch('los', LOS_COLORS, '#9aa3ad'),
          'circle-radius': ['interpolate', ['linear'], ['get', 'volume'], 0, 6, 50, 10, 300, 16],
          'circle-stroke-color': '#1d2733',
          'circle-stroke-width': 1,
        },
      },
      {
        id: 'los-labels',
        type: 'symbol',
        source: 'los',
        minzoom: 14,
        layout: {
          visibility: 'none',
          'text-field': ['get', 'los'],
          'text-font': [FONT_BOLD],
          'text-size': 11,
          'text-allow-overlap': true,
        },
        paint: { 'text-color': '#1d2733' },
      },
    ]);
    c.map.on('click', 'los-circles', (e) => {
      const p = e.features?.[0]?.properties;
      if (p) void this.showIntersection(String(p.id), String(p.name));
    });
  }

  activate(): void {
    void this.overlay.visible(true);
    if (!this.rendered) void this.render();
    else void this.load();
  }

  deactivate(): void {
    void this.overlay.visible(false);
  }

  private async render(): Promise<void> {
    this.rendered = true;
    this.els.slider.addEventListener('input', () => this.updateLabel());
    this.els.slider.addEventListener('change', () => void this.load());
    // another day: its own busiest hour (the hour chosen before may have no data on that day)
    this.els.day.addEventListener(
      'change',
      () => void this.pickBusiestHour(this.els.day.value).then(() => this.load()),
    );
    this.els.bins.addEventListener('change', () => {
      const v = Number(this.els.slider.value);
      this.els.slider.max = this.els.bins.checked ? '95' : '23';
      this.els.slider.value = String(this.els.bins.checked ? v * 4 : Math.floor(v / 4));
      this.updateLabel();
      void this.load();
    });
    replace(
      this.section,
      h(
        'p',
        { className: 'hint' },
        'Level of service from control delay (HCM signalized bands) of matched probe trajectories. Click an intersection for its movements.',
      ),
      h('label', {}, 'Day ', this.els.day),
      h('label', {}, 'Time ', this.els.label, this.els.slider),
      h('label', {}, this.els.bins, ' 15-minute bins'),
      h(
        'div',
        { className: 'legend' },
        ...Object.entries(LOS_COLORS).map(([k, col]) => h('span', {}, h('i', { style: { background: col } }), k)),
      ),
      this.els.status,
      this.els.list,
      this.els.detail,
    );
    this.updateLabel();
    try {
      const res = await this.c.api.get<MetricsResponse>('/v1/metrics/intersections/availability', {
        startDate: this.c.time.day(-120),
        endDate: this.c.time.day(1),
      });
      const days: string[] = [];
      for (const r of metricRows(res)) {
        for (
          let d = new Date(`${r.startDate}T00:00:00Z`);
          d <= new Date(`${r.endDate}T00:00:00Z`);
          d = new Date(d.getTime() + 86400_000)
        )
          days.push(d.toISOString().slice(0, 10));
      }
      days.sort().reverse();
      if (!days.length) {
        this.els.status.textContent =
          'No intersection data yet: ingest probes (streetwise ingest) to see levels of service.';
        return;
      }
      replace(this.els.day, ...days.map((d) => h('option', { value: d }, d)));
      // open where the data is: the busiest hour of the last week with data (the latest day when
      // it is as busy), rather than today's first hour
      const start = await this.busiestDay(days);
      this.els.day.value = start;
      await this.pickBusiestHour(start);
      await this.load();
    } catch (err) {
      this.els.status.textContent = `Analytics: ${describeError(err)}`;
    }
  }

  /** The day with the busiest hour among the latest seven days with data (the latest of equals). */
  private async busiestDay(days: string[]): Promise<string> {
    const recent = days.slice(0, 7);
    const res = await this.c.api.postJson<MetricsResponse>('/v1/metrics/intersections', {
      dateRanges: [{ startDate: recent[recent.length - 1], endDate: recent[0] }],
      dimensions: [{ name: 'day' }, { name: 'hourOfDay' }],
      metrics: [{ name: 'totalVehicleCount' }],
      orderBys: [
        { name: 'totalVehicleCount', sortOrder: 'DESCENDING' },
        { name: 'day', sortOrder: 'DESCENDING' },
      ],
      pageSize: 1,
    });
    const top = metricRows(res)[0];
    return typeof top?.day === 'string' && days.includes(top.day) ? top.day : days[0];
  }

  /** Starts on the day's busiest hour, where there is most to see. */
  private async pickBusiestHour(day: string): Promise<void> {
    const res = await this.c.api.postJson<MetricsResponse>('/v1/metrics/intersections', {
      dateRanges: [{ startDate: day, endDate: day }],
      dimensions: [{ name: 'hourOfDay' }],
      metrics: [{ name: 'totalVehicleCount' }],
      orderBys: [{ name: 'totalVehicleCount', sortOrder: 'DESCENDING' }],
      pageSize: 1,
    });
    const top = metricRows(res)[0];
    if (top?.hourOfDay !== undefined && top.hourOfDay !== null) {
      const hour = Number(top.hourOfDay);
      this.els.slider.value = String(this.els.bins.checked ? hour * 4 : hour);
    }
    this.updateLabel();
  }

  private updateLabel(): void {
    const v = Number(this.els.slider.value);
    this.els.label.textContent = this.els.bins.checked
      ? `${hhmm(v * 15)}–${hhmm(v * 15 + 15)}`
      : `${hhmm(v * 60)}–${hhmm(v * 60 + 60)}`;
  }

  /** The time filter of the chosen hour or 15-minute bin. */
  private timeFilter(): { name: string; operator: string; expressions: string[] } {
    const v = Number(this.els.slider.value);
    return this.els.bins.checked
      ? { name: '15MinBin', operator: 'EQUALS', expressions: [hhmm(v * 15)] }
      : { name: 'hourOfDay', operator: 'EQUALS', expressions: [String(v)] };
  }

  /** Loads LOS of every intersection for the chosen day and time. */
  async load(): Promise<void> {
    const day = this.els.day.value;
    if (!day) return;
    const seq = ++this.seq;
    this.els.status.textContent = 'Loading…';
    try {
      const res = await this.c.api.postJson<MetricsResponse>('/v1/metrics/intersections', {
        dateRanges: [{ startDate: day, endDate: day }],
        dimensions: [{ name: 'intersectionId' }],
        metrics: [{ name: 'totalVehicleCount' }, { name: 'avgControlDelay' }, { name: 'LOS' }],
        dimensionFilters: [this.timeFilter()],
        metadata: [{ key: 'outputMode', value: 'verbose' }],
        orderBys: [{ name: 'avgControlDelay', sortOrder: 'DESCENDING' }],
        pageSize: 10000,
      });
      if (seq !== this.seq) return;
      const rows = metricRows(res);
      const fc: FeatureCollection = { type: 'FeatureCollection', features: [] };
      for (const r of rows) {
        const pos = positionOfId(String(r.intersectionId));
        if (!pos) continue;
        fc.features.push({
          type: 'Feature',
          geometry: { type: 'Point', coordinates: pos },
          properties: {
            id: r.intersectionId,
            name: r.intersectionName ?? '',
            los: r.LOS ?? '',
            delay: Number(r.avgControlDelay),
            volume: Number(r.totalVehicleCount),
          },
        });
      }
      await this.overlay.set(fc);
      this.els.status.textContent = `${rows.length} intersections with data on ${day}, ${this.els.label.textContent}.`;
      this.els.status.setAttribute('data-intersections', String(rows.length));
      replace(
        this.els.list,
        h(
          'table',
          {},
          h(
            'thead',
            {},
            h(
              'tr',
              {},
              h('th', {}, 'Intersection'),
              h('th', {}, 'LOS'),
              h('th', { className: 'num' }, 'Delay s'),
              h('th', { className: 'num' }, 'Vehicles'),
            ),
          ),
          h(
            'tbody',
            {},
            ...rows.slice(0, 15).map((r) =>
              h(
                'tr',
                {
                  className: 'lot-row',
                  onclick: () => void this.showIntersection(String(r.intersectionId), String(r.intersectionName ?? '')),
                },
                h('td', {}, r.intersectionName ?? r.intersectionId),
                h(
                  'td',
                  {},
                  h(
                    'span',
                    { className: 'pill', style: { background: LOS_COLORS[String(r.LOS)] ?? '#999' } },
                    r.LOS ?? '–',
                  ),
                ),
                h('td', { className: 'num' }, r.avgControlDelay),
                h('td', { className: 'num' }, r.totalVehicleCount),
              ),
            ),
          ),
        ),
      );
    } catch (err) {
      if (seq === this.seq) this.els.status.textContent = `Analytics: ${describeError(err)}`;
    }
  }

  /** Movements of one intersection at the chosen time, and its delay by hour over the day. */
  private async showIntersection(id: string, name: string): Promise<void> {
    const day = this.els.day.value;
    replace(this.els.detail, h('h3', {}, name || id), h('p', { className: 'hint' }, 'Loading…'));
    try {
      const [movements, hours] = await Promise.all([
        this.c.api.postJson<MetricsResponse>('/v1/metrics/intersections', {
          dateRanges: [{ startDate: day, endDate: day }],
          dimensions: [{ name: 'movementId' }],
          metrics: [{ name: 'totalVehicleCount' }, { name: 'avgControlDelay' }, { name: 'POG' }, { name: 'LOS' }],
          dimensionFilters: [{ name: 'intersectionId', operator: 'EQUALS', expressions: [id] }, this.timeFilter()],
          metadata: [{ key: 'outputMode', value: 'verbose' }],
          orderBys: [{ name: 'totalVehicleCount', sortOrder: 'DESCENDING' }],
          pageSize: 100,
        }),
        this.c.api.postJson<MetricsResponse>('/v1/metrics/intersections', {
          dateRanges: [{ startDate: day, endDate: day }],
          dimensions: [{ name: 'hourOfDay' }],
          metrics: [{ name: 'avgControlDelay' }, { name: 'totalVehicleCount' }, { name: 'LOS' }],
          dimensionFilters: [{ name: 'intersectionId', operator: 'EQUALS', expressions: [id] }],
          pageSize: 24,
        }),
      ]);
      const byHour = new Map(metricRows(hours).map((r) => [Number(r.hourOfDay), r]));
      const bars = Array.from({ length: 24 }, (_, hr) => {
        const r = byHour.get(hr);
        return {
          label: hr % 3 === 0 ? String(hr) : '',
          value: r ? Number(r.avgControlDelay) : null,
          color: LOS_COLORS[String(r?.LOS)] ?? '#9aa3ad',
          title: `${hhmm(hr * 60)}: ${r ? `${r.avgControlDelay} s, ${r.totalVehicleCount} vehicles, LOS ${r.LOS}` : 'no data'}`,
        };
      });
      const hour = this.els.bins.checked
        ? Math.floor(Number(this.els.slider.value) / 4)
        : Number(this.els.slider.value);
      replace(
        this.els.detail,
        h('h3', {}, name || id),
        h(
          'table',
          { id: 'analytics-movements' },
          h(
            'thead',
            {},
            h(
              'tr',
              {},
              h('th', {}, 'Movement'),
              h('th', { className: 'num' }, 'Delay s'),
              h('th', { className: 'num' }, 'Vehicles'),
              h('th', { className: 'num' }, 'POG %'),
              h('th', {}, 'LOS'),
            ),
          ),
          h(
            'tbody',
            {},
            ...metricRows(movements).map((r) =>
              h(
                'tr',
                {},
                h('td', {}, r.movementName ?? r.movementId),
                h('td', { className: 'num' }, r.avgControlDelay),
                h('td', { className: 'num' }, r.totalVehicleCount),
                h('td', { className: 'num' }, r.POG),
                h(
                  'td',
                  {},
                  h(
                    'span',
                    { className: 'pill', style: { background: LOS_COLORS[String(r.LOS)] ?? '#999' } },
                    r.LOS ?? '–',
                  ),
                ),
              ),
            ),
          ),
        ),
        h('h3', {}, `Average control delay by hour, ${day}`),
        barChart(bars, { unit: 's', highlight: hour, testId: 'delay-chart' }),
      );
    } catch (err) {
      replace(this.els.detail, h('h3', {}, name || id), h('p', { className: 'error' }, describeError(err)));
    }
  }
}
