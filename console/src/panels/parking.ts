/**
 * Parking panel: the lots and blocks in view (`/lots`, `/blocks` with a box) for a chosen entry
 * time and duration — capacity, occupancy, the rate engine's price (`calculatedRates`); lots
 * coloured by occupancy bucket, blocks by probability bucket. Clicking a lot lists its products
 * (`/product/`) and asks for a reservation quote (`POST /reservation/`, action=Quote).
 */
import type { FeatureCollection } from 'geojson';
import { debounce, h, replace } from '../dom.js';
import { Overlay } from '../map.js';
import { FONT_BOLD, PARKING_BUCKET_COLORS, colorMatch } from '../style.js';
import { RegionTime } from '../time.js';
import { describeError, type Panel, type PanelContext } from './panel.js';

/** The parking API refuses boxes with a longer diagonal, metres. */
const MAX_BOX_DIAGONAL_M = 50_000;

interface Lot {
  id: number;
  name: string;
  spacesTotal: number | null;
  isOpen?: boolean;
  currency?: string;
  calculatedRates?: Array<{ rate_cost: number; quoted_duration: string }> | null;
  occupancy?: {
    pct: number | null;
    available: number | null;
    probability: number | null;
    bucket: number | null;
  } | null;
  rateCard?: string[];
  point: { coordinates: [number, number] };
}

interface Block {
  blockID: number;
  name: string;
  probability: number | null;
  bucket: number | null;
  geojson: { type: 'LineString'; coordinates: number[][] };
}

interface Product {
  pk_reservation_product: string;
  name: string;
  /** null entries outside the product's hours */
  rates: Array<number | null>;
  durations: number[];
  service_fee: number;
  currency: string;
  start_time: string;
  end_time: string;
}

interface Reservation {
  pk_reservation: string;
  pk_reservation_status: number;
  status_name: string;
  d_amount_quoted: number;
  d_service_fee: number;
  dt_start_time: string;
  dt_end_time: string;
  dt_expiration_date: string;
  currency: string;
}

function price(l: Lot): string {
  if (l.isOpen === false) return 'closed';
  const r = l.calculatedRates?.[0];
  if (!r) return '–';
  return `${l.currency ?? ''}${r.rate_cost.toFixed(2)}`;
}

/** Occupancy cell: "closed" for a lot closed at the entry time, else the predicted percentage, marked "~". */
function occupancyText(l: Lot): string {
  if (l.isOpen === false) return 'closed';
  const pct = l.occupancy?.pct;
  return pct === null || pct === undefined ? '–' : `~${pct} %`;
}

export class ParkingPanel implements Panel {
  private rendered = false;
  private active = false;
  private seq = 0;
  private lots: Lot[] = [];
  private readonly lotsOverlay: Overlay;
  private readonly blocksOverlay: Overlay;
  private readonly els = {
    entry: h('input', { type: 'datetime-local', id: 'parking-entry', step: 900 }),
    duration: h(
      'select',
      { id: 'parking-duration' },
      ...[30, 60, 120, 180, 240, 480].map((m) =>
        h('option', { value: m, selected: m === 120 }, m < 60 ? `${m} min` : `${m / 60} h`),
      ),
    ),
    status: h('p', { className: 'hint', id: 'parking-status' }),
    list: h('div', { id: 'parking-lots' }),
    lot: h('div', { id: 'parking-lot' }),
  };
  private readonly reloadSoon = debounce(() => void this.load(), 250);

  constructor(
    private readonly c: PanelContext,
    private readonly section: HTMLElement,
  ) {
    this.blocksOverlay = new Overlay(c.map, 'parking-blocks', [
      {
        id: 'parking-blocks',
        type: 'line',
        source: 'parking-blocks',
        layout: { 'line-cap': 'round', visibility: 'none' },
        paint: {
          'line-color': colorMatch('bucket', PARKING_BUCKET_COLORS, '#9aa3ad'),
          'line-width': ['interpolate', ['linear'], ['zoom'], 13, 2, 17, 6],
          'line-opacity': 0.85,
        },
      },
    ]);
    this.lotsOverlay = new Overlay(c.map, 'parking-lots', [
      {
        id: 'parking-lots',
        type: 'circle',
        source: 'parking-lots',
        layout: { visibility: 'none' },
        paint: {
          'circle-color': colorMatch('bucket', PARKING_BUCKET_COLORS, '#9aa3ad'),
          'circle-radius': ['interpolate', ['linear'], ['get', 'capacity'], 0, 7, 500, 13, 2000, 18],
          'circle-stroke-color': '#fff',
          'circle-stroke-width': 2,
        },
      },
      {
        id: 'parking-lot-prices',
        type: 'symbol',
        source: 'parking-lots',
        layout: {
          visibility: 'none',
          'text-field': ['get', 'price'],
          'text-font': [FONT_BOLD],
          'text-size': 11,
          'text-offset': [0, 1.6],
          'text-allow-overlap': false,
        },
        paint: { 'text-color': '#1d2733', 'text-halo-color': '#fff', 'text-halo-width': 1.5 },
      },
    ]);
    c.map.on('moveend', () => {
      if (this.active) this.reloadSoon();
    });
    c.map.on('click', 'parking-lots', (e) => {
      const id = Number(e.features?.[0]?.properties?.id);
      const lot = this.lots.find((l) => l.id === id);
      if (lot) void this.showLot(lot);
    });
  }

  activate(): void {
    this.active = true;
    if (!this.rendered) this.render();
    void this.lotsOverlay.visible(true);
    void this.blocksOverlay.visible(true);
    void this.load();
  }

  deactivate(): void {
    this.active = false;
    void this.lotsOverlay.visible(false);
    void this.blocksOverlay.visible(false);
  }

  private render(): void {
    this.rendered = true;
    const now = this.c.time.now();
    const start = now.plus({ minutes: 15 - (now.minute % 15) }).startOf('minute');
    this.els.entry.value = RegionTime.local(start);
    this.els.entry.addEventListener('change', () => void this.load());
    this.els.duration.addEventListener('change', () => void this.load());
    replace(
      this.section,
      h(
        'p',
        { className: 'hint' },
        'Lots and curb blocks in view, priced by the rate engine for the entry time and stay below. Click a lot for its products and a reservation quote.',
      ),
      h(
        'div',
        { className: 'row' },
        h('label', {}, 'Entry ', this.els.entry),
        h('label', {}, 'Stay ', this.els.duration),
      ),
      h(
        'div',
        { className: 'legend' },
        ...[
          [3, 'likely free (≥ 70 %)'],
          [2, '35–70 %'],
          [1, 'unlikely (< 35 %)'],
        ].map(([b, t]) =>
          h('span', {}, h('i', { style: { background: PARKING_BUCKET_COLORS[b as number] } }), String(t)),
        ),
      ),
      this.els.status,
      this.els.list,
      this.els.lot,
    );
  }

  /** Entry time as the lots API takes it (UTC, `yyyy-mm-ddTHH:MMZ`) and region-local (products, reservations). */
  private entry(): { utc: string; local: string } {
    const dt = this.c.time.parseLocal(this.els.entry.value);
    return { utc: dt.toUTC().toFormat("yyyy-MM-dd'T'HH:mm'Z'"), local: RegionTime.local(dt) };
  }

  /** Loads the lots and blocks of the current view. */
  async load(): Promise<void> {
    const seq = ++this.seq;
    const b = this.c.map.getBounds();
    if (b.getNorthWest().distanceTo(b.getSouthEast()) > MAX_BOX_DIAGONAL_M) {
      this.els.status.textContent = 'Zoom in to list lots (the view is wider than the 50 km the parking API accepts).';
      return;
    }
    const box = `${b.getNorth().toFixed(6)}|${b.getWest().toFixed(6)},${b.getSouth().toFixed(6)}|${b.getEast().toFixed(6)}`;
    const { utc } = this.entry();
    const duration = this.els.duration.value;
    this.els.status.textContent = 'Loading…';
    try {
      const [lots, blocks] = await Promise.all([
        this.c.api.get<{ result: Lot[] }>('/lots', { box, entry_time: utc, duration, limit: 200, sort: 'distance' }),
        this.c.api.get<{ result: Block[] }>('/blocks', {
          box,
          entry_time: utc,
          duration,
          limit: 500,
          outputfields: 'blockID,name,probability,bucket,geojson',
        }),
      ]);
      if (seq !== this.seq) return;
      this.lots = lots.result;
      const lotFc: FeatureCollection = {
        type: 'FeatureCollection',
        features: this.lots.map((l) => ({
          type: 'Feature',
          geometry: { type: 'Point', coordinates: l.point.coordinates },
          properties: {
            id: l.id,
            name: l.name,
            capacity: l.spacesTotal ?? 0,
            // a closed lot is drawn grey ("no information"), not red ("full"), and labelled closed
            bucket: l.isOpen === false ? 0 : (l.occupancy?.bucket ?? 0),
            price: price(l),
          },
        })),
      };
      const blockFc: FeatureCollection = {
        type: 'FeatureCollection',
        features: blocks.result
          .filter((x) => x.geojson)
          .map((x) => ({
            type: 'Feature',
            geometry: x.geojson,
            properties: { id: x.blockID, name: x.name, bucket: x.bucket ?? 0, probability: x.probability },
          })),
      };
      await this.lotsOverlay.set(lotFc);
      await this.blocksOverlay.set(blockFc);
      this.els.status.textContent = `${this.lots.length} lots, ${blocks.result.length} blocks in view.`;
      this.els.status.setAttribute('data-lots', String(this.lots.length));
      this.els.status.setAttribute('data-blocks', String(blocks.result.length));
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
              h('th', {}, 'Lot'),
              h('th', { className: 'num' }, 'Spaces'),
              h('th', { className: 'num', title: 'predicted occupancy at the entry time' }, 'Occupied (predicted)'),
              h('th', { className: 'num' }, 'Price'),
            ),
          ),
          h(
            'tbody',
            {},
            ...this.lots.map((l) =>
              h(
                'tr',
                { className: 'lot-row', 'data-lot': l.id, onclick: () => void this.showLot(l) },
                h('td', {}, l.name || `Lot ${l.id}`),
                h('td', { className: 'num' }, l.spacesTotal ?? '–'),
                h(
                  'td',
                  { className: 'num', title: l.isOpen === false ? 'closed at the entry time' : 'predicted' },
                  occupancyText(l),
                ),
                h('td', { className: 'num' }, price(l)),
              ),
            ),
          ),
        ),
      );
    } catch (err) {
      if (seq === this.seq) this.els.status.textContent = `Parking: ${describeError(err)}`;
    }
  }

  private async showLot(l: Lot): Promise<void> {
    const { local } = this.entry();
    const duration = Number(this.els.duration.value);
    replace(
      this.els.lot,
      h('h3', {}, l.name || `Lot ${l.id}`),
      h('p', { className: 'hint' }, (l.rateCard ?? []).join(' · ') || 'No rate card.'),
      h('p', { className: 'hint' }, 'Loading products…'),
    );
    this.c.map.easeTo({ center: l.point.coordinates, duration: 300 });
    try {
      const res = await this.c.api.get<{ ProductCount: number; Products: Product[] }>('/product/', {
        f_id: l.id,
        entry_dt: local,
        duration,
      });
      const rows = res.Products.map((p) => {
        const out = h('td', {});
        const quote = h(
          'button',
          { type: 'button', 'data-product': p.pk_reservation_product, onclick: () => void this.quote(l, p, out) },
          'Quote',
        );
        return h(
          'tr',
          {},
          h('td', {}, p.name, h('div', { className: 'hint' }, `${p.start_time}–${p.end_time}`)),
          // rates are null outside the product's hours (never "$null")
          h(
            'td',
            { className: 'num' },
            typeof p.rates[0] === 'number' ? `${p.currency}${p.rates[0]}` : 'not sold at this time',
          ),
          h('td', {}, quote),
          out,
        );
      });
      replace(
        this.els.lot,
        h('h3', {}, l.name || `Lot ${l.id}`),
        h('p', { className: 'hint' }, (l.rateCard ?? []).join(' · ') || 'No rate card.'),
        res.ProductCount
          ? h('table', { id: 'parking-products' }, h('tbody', {}, ...rows))
          : h('p', { className: 'hint' }, 'This lot offers no reservations.'),
      );
    } catch (err) {
      replace(this.els.lot, h('h3', {}, l.name), h('p', { className: 'error' }, describeError(err)));
    }
  }

  private async quote(l: Lot, p: Product, out: HTMLElement): Promise<void> {
    const { local } = this.entry();
    out.textContent = '…';
    try {
      const res = await this.c.api.request<{ Reservations: Reservation[] }>('POST', '/reservation/', {
        form: {
          pk_reservation_product: p.pk_reservation_product,
          f_id: String(l.id),
          entry_time: local,
          duration: this.els.duration.value,
          action: 'Quote',
        },
      });
      const r = res.Reservations[0];
      out.textContent = `${r.currency}${r.d_amount_quoted.toFixed(2)} incl. ${r.currency}${r.d_service_fee.toFixed(2)} fee, valid until ${this.c.time.clock(Date.parse(r.dt_expiration_date))}`;
      out.setAttribute('data-testid', 'quote');
    } catch (err) {
      // the server names products by id: show the product's name instead
      out.textContent = `No quote: ${describeError(err).replaceAll(p.pk_reservation_product, `"${p.name}"`)}`;
      out.className = 'error';
    }
  }
}
