/**
 * Signals panel: the Purdue coordination diagram of one controller phase and day
 * (`GET /v1/signals/intersections/{id}/coordination-diagram`) as an SVG chart — each cycle a
 * column from the start of red, its green and yellow as bands, every arrival at the stop bar a dot
 * at its second in the cycle (green on green, red otherwise) — and the day's split failures.
 */
import { h, replace } from '../dom.js';
import { describeError, type Panel, type PanelContext } from './panel.js';

interface Cycle {
  startS: number;
  greenS: number;
  yellowS: number;
  endS: number;
}
interface Arrival {
  tS: number;
  inCycleS: number;
  onGreen: boolean;
}
interface Diagram {
  cycles: Cycle[];
  arrivals: Arrival[];
  percentOnGreen: number | null;
}

const SVG = 'http://www.w3.org/2000/svg';
function svgEl(tag: string, attrs: Record<string, string | number>, text?: string): SVGElement {
  const e = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
  if (text !== undefined) e.textContent = text;
  return e;
}

/** The diagram as SVG (340 × 180 user units): x = time of day, y = seconds in the cycle. */
export function coordinationChart(d: Diagram): SVGSVGElement {
  const W = 340,
    H = 180,
    left = 30,
    bottom = 16,
    top = 6;
  const svg = svgEl('svg', {
    viewBox: `0 0 ${W} ${H}`,
    class: 'chart',
    role: 'img',
    'data-testid': 'pcd',
  }) as SVGSVGElement;
  if (d.cycles.length === 0) return svg;
  const t0 = d.cycles[0].startS;
  const t1 = d.cycles[d.cycles.length - 1].endS;
  const maxCycle = Math.max(...d.cycles.map((c) => c.endS - c.startS));
  const x = (t: number) => left + ((W - left - 4) * (t - t0)) / Math.max(1, t1 - t0);
  const y = (s: number) => H - bottom - ((H - bottom - top) * s) / maxCycle;
  for (const c of d.cycles) {
    const w = Math.max(1, x(c.endS) - x(c.startS));
    svg.append(
      svgEl('rect', {
        x: x(c.startS),
        y: y(c.yellowS - c.startS),
        width: w,
        height: y(c.greenS - c.startS) - y(c.yellowS - c.startS),
        fill: '#b7e4b9',
      }),
    );
    svg.append(
      svgEl('rect', {
        x: x(c.startS),
        y: y(c.endS - c.startS),
        width: w,
        height: y(c.yellowS - c.startS) - y(c.endS - c.startS),
        fill: '#f5e08a',
      }),
    );
  }
  for (const a of d.arrivals)
    svg.append(
      svgEl('circle', { cx: x(a.tS - a.inCycleS), cy: y(a.inCycleS), r: 1.5, fill: a.onGreen ? '#1a7f37' : '#cf222e' }),
    );
  svg.append(svgEl('line', { x1: left, x2: W - 2, y1: H - bottom, y2: H - bottom, stroke: '#999' }));
  svg.append(svgEl('text', { x: 2, y: top + 8 }, `${Math.round(maxCycle)} s`));
  return svg;
}

export class SignalsPanel implements Panel {
  private rendered = false;
  private readonly els = {
    id: h('input', { id: 'signals-intersection', placeholder: 'intersection id', size: 24 }),
    day: h('input', { id: 'signals-day', type: 'date' }),
    phase: h('input', { id: 'signals-phase', type: 'number', min: 1, max: 255, value: 2, size: 4 }),
    status: h('p', { className: 'hint', id: 'signals-status' }),
    chart: h('div', { id: 'signals-chart' }),
  };

  constructor(
    private readonly c: PanelContext,
    private readonly section: HTMLElement,
  ) {}

  activate(): void {
    if (this.rendered) return;
    this.rendered = true;
    const e = this.els;
    replace(
      this.section,
      h('h2', {}, 'Signal timing'),
      h(
        'p',
        { className: 'hint' },
        'Purdue coordination diagram of a controller phase, from its uploaded hi-res event log.',
      ),
      h('label', {}, 'Intersection ', e.id),
      h('label', {}, 'Day ', e.day),
      h('label', {}, 'Phase ', e.phase),
      h('button', { type: 'button', id: 'signals-show', onclick: () => void this.load() }, 'Show'),
      e.status,
      e.chart,
    );
  }

  deactivate(): void {}

  private async load(): Promise<void> {
    const e = this.els;
    const id = e.id.value.trim();
    if (!id || !e.day.value) {
      e.status.textContent = 'Give an intersection id and a day.';
      return;
    }
    const base = `/v1/signals/intersections/${encodeURIComponent(id)}`;
    const query = { day: e.day.value, phase: e.phase.value };
    e.status.textContent = 'Loading…';
    try {
      const [pcd, sf] = await Promise.all([
        this.c.api.get<{ result: Diagram }>(`${base}/coordination-diagram`, query),
        this.c.api.get<{ result: { cycles: unknown[]; splitFailures: number } }>(`${base}/split-failures`, query),
      ]);
      const d = pcd.result;
      e.status.textContent = `${d.cycles.length} cycles, ${d.arrivals.length} arrivals, ${
        d.percentOnGreen === null ? '–' : `${d.percentOnGreen.toFixed(0)} %`
      } on green; ${sf.result.splitFailures} split failures in ${sf.result.cycles.length} greens`;
      replace(e.chart, coordinationChart(d));
    } catch (err) {
      e.status.textContent = describeError(err);
      replace(e.chart);
    }
  }
}
