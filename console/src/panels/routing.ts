/**
 * Routing panel: click origin and destination (further clicks add up to 8 via points; drag any
 * marker, double-click a via to drop it), pick a day and slide the departure through it. Each
 * change calls FindRoute (Format=JSON) like any client; the routes are drawn coloured by the
 * response's speed buckets, with travel time, uncongested time, abnormality, maneuvers and
 * incidents, and the chosen route's travel time through the day (GetRouteTravelTimes).
 * The departure starts at the next occurrence of the busiest hour of the week with learned speeds
 * (`/v1/speeds/learned`), where routes show congestion; without learned speeds, at now.
 */
import * as maplibregl from 'maplibre-gl';
import type { MapMouseEvent } from 'maplibre-gl';
import type { Feature, FeatureCollection, LineString } from 'geojson';
import { ApiError } from '../api.js';
import { barChart } from '../chart.js';
import { debounce, h, replace } from '../dom.js';
import { EMPTY, Overlay } from '../map.js';
import { SPEED_BUCKET_COLORS, SPEED_BUCKET_LABELS, colorMatch } from '../style.js';
import { RegionTime, hhmm } from '../time.js';
import { describeError, type Panel, type PanelContext } from './panel.js';

/** The routing API's limit: WP_1, WP_2 and up to 8 more. */
const MAX_VIAS = 8;
const CRITERIA: Array<[code: string, label: string]> = [
  ['T', 'Avoid toll roads'],
  ['H', 'Avoid highways'],
  ['F', 'Avoid ferries'],
];

interface ApiRoute {
  id: string;
  travelTimeMinutes?: number;
  uncongestedTravelTimeMinutes: number;
  abnormalityMinutes?: number;
  averageSpeed: number;
  totalDistance: number;
  hasClosures: boolean;
  hasRestrictions: boolean;
  summary?: { text: string };
  description?: string;
  maneuvers?: Array<{ text: string; turnType: string; distance: number }>;
  incidents?: Array<{
    id?: number;
    type?: string;
    severity?: number;
    shortDescription?: string;
    fullDescription?: string;
    delayImpact?: number;
  }>;
  points?: { type: 'LineString'; coordinates: number[][] };
  speedBuckets?: Array<{ speedBucket: number; startIndex: number; endIndex: number }>;
}

interface FindRouteResponse {
  statusId: number;
  statusText: string;
  statusDetail?: string;
  result?: { trip: { tripId: string; routes: ApiRoute[] } };
}

interface LearnedSpeedsResponse {
  edges: Array<{ bins: Array<{ bin: number; samples: number }> }>;
}

/** Edges of learned speeds read to find the busiest hour (a sample of a large region is enough). */
const PEAK_SAMPLE_EDGES = 1000;

/**
 * The hour of the local week (0 = Monday 00:00–01:00) with the most learned-speed samples, the
 * latest of equals; undefined without samples.
 */
export function busiestHourOfWeek(res: LearnedSpeedsResponse): number | undefined {
  const perHour = new Map<number, number>();
  for (const e of res.edges)
    for (const b of e.bins) perHour.set(Math.floor(b.bin / 4), (perHour.get(Math.floor(b.bin / 4)) ?? 0) + b.samples);
  let best: number | undefined,
    bestSamples = 0;
  for (const [hour, n] of perHour)
    if (n > bestSamples || (n === bestSamples && best !== undefined && hour > best)) {
      best = hour;
      bestSamples = n;
    }
  return best;
}

interface TravelTimesResponse {
  statusId: number;
  result?: {
    trip: {
      route: { travelTimes: Array<{ departureTime: string; travelTimeMinutes?: number; routeHasClosures: boolean }> };
    };
  };
}

/** Features of a route split into runs of one speed bucket (indices into `points`). */
export function routeFeatures(routes: ApiRoute[], selected: number): FeatureCollection {
  const features: Feature<LineString>[] = [];
  routes.forEach((r, i) => {
    const pts = r.points?.coordinates ?? [];
    const runs = r.speedBuckets?.length
      ? r.speedBuckets
      : [{ speedBucket: 3, startIndex: 0, endIndex: pts.length - 1 }];
    for (const run of runs) {
      const coordinates = pts.slice(run.startIndex, run.endIndex + 1);
      if (coordinates.length < 2) continue;
      features.push({
        type: 'Feature',
        geometry: { type: 'LineString', coordinates },
        properties: { route: i, bucket: run.speedBucket, selected: i === selected ? 1 : 0 },
      });
    }
  });
  return { type: 'FeatureCollection', features };
}

export class RoutingPanel implements Panel {
  private rendered = false;
  private readonly points: maplibregl.Marker[] = [];
  private routes: ApiRoute[] = [];
  private selected = 0;
  private seq = 0;
  private readonly overlay: Overlay;
  private readonly els = {
    date: h('input', { type: 'date', id: 'route-date' }),
    slider: h('input', { type: 'range', id: 'route-time', min: 0, max: 95, step: 1 }),
    timeLabel: h('output', { id: 'route-time-label' }),
    alternates: h(
      'select',
      { id: 'route-alternates' },
      h('option', { value: '0' }, 'one route'),
      h('option', { value: '1', selected: true }, 'up to 2 routes'),
      h('option', { value: '2' }, 'up to 3 routes'),
    ),
    status: h('p', { className: 'hint', id: 'route-status' }),
    peak: h('p', { className: 'hint', id: 'route-peak' }),
    results: h('div', { id: 'route-results' }),
    details: h('div', { id: 'route-details' }),
    day: h('div', { id: 'route-day' }),
  };
  private readonly criteria = new Map<string, HTMLInputElement>();
  /** the user chose a day or time: the busiest hour, found later, does not override it */
  private departureTouched = false;
  private readonly rerouteSoon = debounce(() => void this.route(), 200);

  constructor(
    private readonly c: PanelContext,
    private readonly section: HTMLElement,
  ) {
    this.overlay = new Overlay(c.map, 'route', [
      {
        id: 'route-alt',
        type: 'line',
        source: 'route',
        filter: ['==', ['get', 'selected'], 0],
        layout: { 'line-cap': 'round', 'line-join': 'round' },
        paint: { 'line-color': '#7d8794', 'line-width': 5, 'line-opacity': 0.75 },
      },
      {
        id: 'route-casing',
        type: 'line',
        source: 'route',
        filter: ['==', ['get', 'selected'], 1],
        layout: { 'line-cap': 'round', 'line-join': 'round' },
        paint: { 'line-color': '#1b2a3a', 'line-width': 9 },
      },
      {
        id: 'route-line',
        type: 'line',
        source: 'route',
        filter: ['==', ['get', 'selected'], 1],
        layout: { 'line-cap': 'round', 'line-join': 'round' },
        paint: {
          'line-color': colorMatch(
            'bucket',
            Object.fromEntries(SPEED_BUCKET_COLORS.map((col, i) => [i, col])),
            '#2ea043',
          ),
          'line-width': 6,
        },
      },
    ]);
    c.map.on('click', 'route-alt', (e) => {
      const i = Number(e.features?.[0]?.properties?.route);
      if (Number.isInteger(i)) this.select(i);
    });
  }

  activate(): void {
    if (!this.rendered) this.render();
    void this.overlay.visible(true);
    for (const m of this.points) m.getElement().style.display = '';
  }

  deactivate(): void {
    void this.overlay.visible(false);
    for (const m of this.points) m.getElement().style.display = 'none';
  }

  private render(): void {
    this.rendered = true;
    const now = this.c.time.now();
    this.els.date.value = now.toFormat('yyyy-MM-dd');
    this.els.date.min = now.toFormat('yyyy-MM-dd');
    this.els.slider.value = String(Math.min(95, Math.ceil((now.hour * 60 + now.minute + 1) / 15)));
    this.updateTimeLabel();
    this.els.slider.addEventListener('input', () => {
      this.departureTouched = true;
      this.updateTimeLabel();
      this.rerouteSoon();
    });
    this.els.slider.addEventListener('change', () => {
      this.updateTimeLabel();
      void this.route();
    });
    this.els.date.addEventListener('change', () => {
      this.departureTouched = true;
      void this.route();
    });
    this.els.alternates.addEventListener('change', () => void this.route());
    const toggles = CRITERIA.map(([code, label]) => {
      const box = h('input', { type: 'checkbox', 'data-criteria': code, onchange: () => void this.route() });
      this.criteria.set(code, box);
      return h('label', {}, box, ` ${label}`);
    });
    const legend = h(
      'div',
      { className: 'legend' },
      ...SPEED_BUCKET_COLORS.map((col, i) =>
        h('span', {}, h('i', { style: { background: col } }), SPEED_BUCKET_LABELS[i]),
      ),
    );
    replace(
      this.section,
      h(
        'p',
        { className: 'hint' },
        'Click the map for the origin, then the destination; more clicks add via points (up to 8). Drag markers to move them, double-click a via point to remove it.',
      ),
      h(
        'div',
        { className: 'row' },
        h('label', {}, 'Day ', this.els.date),
        h('button', { type: 'button', onclick: () => this.clear() }, 'Clear'),
      ),
      h('label', {}, 'Departure ', this.els.timeLabel, this.els.slider),
      this.els.peak,
      h('div', { className: 'row' }, ...toggles),
      h('label', {}, 'Alternatives ', this.els.alternates),
      legend,
      this.els.status,
      this.els.results,
      this.els.day,
      this.els.details,
    );
    void this.openAtPeak();
  }

  /** Moves the departure to the next occurrence of the busiest hour with learned speeds. */
  private async openAtPeak(): Promise<void> {
    let hourOfWeek: number | undefined;
    try {
      hourOfWeek = busiestHourOfWeek(
        await this.c.api.get<LearnedSpeedsResponse>('/v1/speeds/learned', { limit: PEAK_SAMPLE_EDGES }),
      );
    } catch {
      return; // no learned speeds to show (or none readable): the departure stays at now
    }
    if (hourOfWeek === undefined || this.departureTouched) return;
    const now = this.c.time.now();
    const weekday = Math.floor(hourOfWeek / 24) + 1; // luxon: 1 = Monday
    let at = now
      .startOf('day')
      .plus({ days: (weekday - now.weekday + 7) % 7 })
      .set({ hour: hourOfWeek % 24 });
    if (at <= now) at = at.plus({ weeks: 1 });
    this.els.date.value = at.toFormat('yyyy-MM-dd');
    this.els.slider.value = String(at.hour * 4);
    this.updateTimeLabel();
    this.els.peak.textContent = `Departure set to the busiest hour with learned speeds: ${at.toFormat('cccc d LLL yyyy HH:mm ZZZZ')}.`;
    this.els.peak.setAttribute('data-departure', RegionTime.utc(at));
    if (this.points.length >= 2) void this.route();
  }

  private updateTimeLabel(): void {
    this.els.timeLabel.textContent = hhmm(Number(this.els.slider.value) * 15);
  }

  onMapClick(e: MapMouseEvent): void {
    // a click on an alternative selects it (handled by its layer), it adds no point
    if (this.c.map.getLayer('route-alt') && this.c.map.queryRenderedFeatures(e.point, { layers: ['route-alt'] }).length)
      return;
    if (this.points.length >= MAX_VIAS + 2) {
      this.els.status.textContent = `At most ${MAX_VIAS} via points.`;
      return;
    }
    const marker = this.marker(e.lngLat);
    if (this.points.length < 2) this.points.push(marker);
    else this.points.splice(this.viaSlot(e.lngLat), 0, marker);
    this.restyleMarkers();
    void this.route();
  }

  /** Where a new via point fits best: the leg it lengthens least. */
  private viaSlot(p: maplibregl.LngLat): number {
    let best = this.points.length - 1,
      bestCost = Infinity;
    for (let i = 1; i < this.points.length; i++) {
      const a = this.points[i - 1].getLngLat(),
        b = this.points[i].getLngLat();
      const cost = a.distanceTo(p) + p.distanceTo(b) - a.distanceTo(b);
      if (cost < bestCost) {
        bestCost = cost;
        best = i;
      }
    }
    return best;
  }

  private marker(at: maplibregl.LngLat): maplibregl.Marker {
    const el = h('div', {});
    const m = new maplibregl.Marker({ element: el, draggable: true }).setLngLat(at).addTo(this.c.map);
    m.on('dragend', () => void this.route());
    el.addEventListener('dblclick', (ev) => {
      ev.stopPropagation();
      const i = this.points.indexOf(m);
      if (i > 0 && i < this.points.length - 1) {
        m.remove();
        this.points.splice(i, 1);
        this.restyleMarkers();
        void this.route();
      }
    });
    return m;
  }

  private restyleMarkers(): void {
    this.points.forEach((m, i) => {
      const el = m.getElement();
      const end = i === 0 || (i === this.points.length - 1 && this.points.length > 1);
      el.className = end ? 'end-marker' : 'via-marker';
      el.textContent = end ? (i === 0 ? 'A' : 'B') : '';
      el.style.background = end ? (i === 0 ? '#2ea043' : '#d73027') : '#fff';
      el.setAttribute('data-testid', end ? (i === 0 ? 'origin' : 'destination') : 'via');
    });
  }

  private clear(): void {
    for (const m of this.points) m.remove();
    this.points.length = 0;
    this.routes = [];
    void this.overlay.set(EMPTY);
    replace(this.els.results);
    replace(this.els.details);
    replace(this.els.day);
    this.els.status.textContent = '';
  }

  /** The chosen departure; a time already past moves to the same time next week (the API plans only ahead). */
  private departure(): { at: ReturnType<RegionTime['now']>; nextWeek: boolean } {
    const at = this.c.time.at(this.els.date.value || this.c.time.day(), Number(this.els.slider.value) * 15);
    if (at < this.c.time.now()) return { at: at.plus({ weeks: 1 }), nextWeek: true };
    return { at, nextWeek: false };
  }

  /** Calls FindRoute for the current points and settings and draws the answer. */
  async route(): Promise<void> {
    // a request sent now supersedes one a slider movement scheduled
    this.rerouteSoon.cancel();
    if (this.points.length < 2) {
      this.els.status.textContent = this.points.length === 1 ? 'Now click the destination.' : '';
      return;
    }
    const seq = ++this.seq;
    const { at, nextWeek } = this.departure();
    const q: Record<string, string> = {
      Action: 'FindRoute',
      Format: 'JSON',
      DepartureTime: RegionTime.utc(at),
      MaxAlternates: this.els.alternates.value,
      RouteOutputFields: 'D,S,W,B,P,I,U',
      Units: this.c.region.country === 'US' || this.c.region.country === 'GB' ? '0' : '1',
    };
    this.points.forEach((m, i) => {
      const p = m.getLngLat();
      q[`WP_${i + 1}`] = `${p.lat.toFixed(6)},${p.lng.toFixed(6)}`;
    });
    const crit = [...this.criteria].filter(([, box]) => box.checked).map(([code]) => code);
    if (crit.length) q.Criteria = crit.join(',');
    this.els.status.textContent = `Routing for ${at.toFormat('ccc d LLL HH:mm')}${nextWeek ? ' (next week: that time has passed today)' : ''}…`;
    try {
      const res = await this.c.api.get<FindRouteResponse>('/traffic/api.ashx', q);
      if (seq !== this.seq) return;
      if (res.statusId !== 0 || !res.result)
        throw new Error(`${res.statusText}${res.statusDetail ? `: ${res.statusDetail}` : ''}`);
      this.routes = res.result.trip.routes;
      this.selected = 0;
      this.els.status.textContent = `Departure ${at.toFormat('ccc d LLL yyyy HH:mm')} (${this.c.time.zone})${nextWeek ? ', next week' : ''}.`;
      this.els.status.setAttribute('data-departure', q.DepartureTime);
      this.draw();
      void this.dayChart(at, seq);
    } catch (err) {
      if (seq !== this.seq) return;
      this.routes = [];
      void this.overlay.set(EMPTY);
      replace(this.els.results);
      replace(this.els.details);
      this.els.status.textContent =
        err instanceof ApiError && err.kind !== 'failed' ? '' : `No route: ${describeError(err)}`;
    }
  }

  private select(i: number): void {
    if (i === this.selected || !this.routes[i]) return;
    this.selected = i;
    this.draw();
  }

  private unit(): string {
    return this.c.region.country === 'US' || this.c.region.country === 'GB' ? 'mi' : 'km';
  }

  private draw(): void {
    void this.overlay.set(routeFeatures(this.routes, this.selected));
    const cards = this.routes.map((r, i) => {
      const time = r.hasClosures || r.travelTimeMinutes === undefined ? 'closed' : `${r.travelTimeMinutes} min`;
      return h(
        'div',
        {
          className: `route-card${i === this.selected ? ' selected' : ''}`,
          'data-testid': `route-${i}`,
          onclick: () => this.select(i),
        },
        h(
          'div',
          {},
          h(
            'span',
            {
              className: 'big',
              'data-testid': i === this.selected ? 'travel-time' : undefined,
              'data-minutes': r.travelTimeMinutes ?? '',
            },
            time,
          ),
          ` · ${r.totalDistance} ${this.unit()} · ${r.averageSpeed} ${this.unit() === 'mi' ? 'mph' : 'km/h'}`,
        ),
        h(
          'div',
          { className: 'hint' },
          `uncongested ${r.uncongestedTravelTimeMinutes} min · abnormality ${r.abnormalityMinutes ?? '–'} min${r.hasRestrictions ? ' · restricted' : ''}`,
        ),
        h('div', {}, r.summary?.text ?? r.description ?? ''),
      );
    });
    replace(this.els.results, ...cards);
    const r = this.routes[this.selected];
    if (!r) return;
    const incidents = r.incidents ?? [];
    replace(
      this.els.details,
      h('h3', {}, 'Maneuvers'),
      h('ol', { className: 'maneuvers' }, ...(r.maneuvers ?? []).map((m) => h('li', {}, m.text))),
      h('h3', {}, `Incidents on the route (${incidents.length})`),
      incidents.length
        ? h(
            'ul',
            {},
            ...incidents.map((x) =>
              h(
                'li',
                {},
                `${x.type ?? 'incident'} (severity ${x.severity ?? '?'}): ${x.shortDescription ?? x.fullDescription ?? ''}`,
              ),
            ),
          )
        : h('p', { className: 'hint' }, 'None.'),
    );
  }

  /** The selected route's travel time through the chosen day, one bar per 15 minutes still ahead. */
  private async dayChart(at: ReturnType<RegionTime['now']>, seq: number): Promise<void> {
    const r = this.routes[this.selected];
    if (!r) return;
    const dayStart = at.startOf('day');
    const now = this.c.time.now();
    const firstQuarter = dayStart < now ? Math.ceil(now.diff(dayStart, 'minutes').minutes / 15) + 1 : 0;
    const count = 96 - firstQuarter;
    if (count <= 0) return replace(this.els.day);
    try {
      const res = await this.c.api.get<TravelTimesResponse>('/traffic/api.ashx', {
        Action: 'GetRouteTravelTimes',
        Format: 'JSON',
        RouteId: r.id,
        DepartureTime: RegionTime.utc(dayStart.plus({ minutes: firstQuarter * 15 })),
        TravelTimeCount: count,
        TravelTimeInterval: 15,
      });
      if (seq !== this.seq || !res.result) return;
      const times = res.result.trip.route.travelTimes;
      const bars = Array.from({ length: 96 }, (_, i) => {
        const t = i >= firstQuarter ? times[i - firstQuarter] : undefined;
        return {
          label: i % 12 === 0 ? String(i / 4) : '',
          value: t?.travelTimeMinutes ?? null,
          title: `${hhmm(i * 15)}: ${t?.travelTimeMinutes ?? '–'} min`,
        };
      });
      const slot = Math.round(at.diff(dayStart, 'minutes').minutes / 15);
      replace(
        this.els.day,
        h('h3', {}, `Travel time through ${at.toFormat('cccc')} (this route)`),
        barChart(bars, { unit: 'min', highlight: slot, labelEvery: 1, testId: 'day-chart' }),
      );
    } catch {
      replace(this.els.day);
    }
  }
}
