/** A small SVG bar chart (no library needed for one kind of chart). */

const SVG = 'http://www.w3.org/2000/svg';

function el<K extends keyof SVGElementTagNameMap>(
  tag: K,
  attrs: Record<string, string | number>,
  text?: string,
): SVGElementTagNameMap[K] {
  const e = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
  if (text !== undefined) e.textContent = text;
  return e;
}

/** One bar: its label on the x axis, its value (null = no data) and optional colour. */
export interface Bar {
  label: string;
  value: number | null;
  color?: string;
  /** tooltip */
  title?: string;
}

/**
 * Renders bars into an SVG element (width 340 × height 140 user units, scales with CSS).
 * `highlight` outlines one bar (e.g. the chosen hour); `unit` is printed after the maximum.
 */
export function barChart(
  bars: Bar[],
  opts: {
    unit: string;
    highlight?: number;
    labelEvery?: number;
    testId?: string;
    /** a second series drawn as dots joined by a line over the bars (null = no value) */
    reference?: Array<number | null>;
  },
): SVGSVGElement {
  const W = 340,
    H = 140,
    left = 30,
    bottom = 18,
    top = 8;
  const svg = el('svg', { viewBox: `0 0 ${W} ${H}`, class: 'chart', role: 'img' });
  if (opts.testId) svg.setAttribute('data-testid', opts.testId);
  const max = Math.max(1, ...bars.map((b) => b.value ?? 0), ...(opts.reference ?? []).map((v) => v ?? 0));
  const bw = (W - left - 4) / Math.max(1, bars.length);
  const y = (v: number) => H - bottom - ((H - bottom - top) * v) / max;
  svg.append(el('line', { x1: left, x2: W - 2, y1: H - bottom, y2: H - bottom, stroke: '#999' }));
  svg.append(el('text', { x: 2, y: top + 8 }, `${Math.round(max)}`));
  svg.append(el('text', { x: 2, y: top + 20 }, opts.unit));
  const every = opts.labelEvery ?? 1;
  bars.forEach((b, i) => {
    const x = left + i * bw;
    if (b.value !== null) {
      const r = el('rect', {
        x: x + 1,
        y: y(b.value),
        width: Math.max(1, bw - 2),
        height: H - bottom - y(b.value),
        fill: b.color ?? '#1f6feb',
      });
      if (i === opts.highlight) {
        r.setAttribute('stroke', '#111');
        r.setAttribute('stroke-width', '1.5');
      }
      r.append(el('title', {}, b.title ?? `${b.label}: ${b.value}`));
      svg.append(r);
    }
    if (i % every === 0) svg.append(el('text', { x: x + bw / 2, y: H - 5, 'text-anchor': 'middle' }, b.label));
  });
  if (opts.reference) {
    const points = opts.reference
      .map((v, i) => (v === null ? null : `${(left + (i + 0.5) * bw).toFixed(1)},${y(v).toFixed(1)}`))
      .filter((p): p is string => p !== null);
    svg.append(el('polyline', { points: points.join(' '), fill: 'none', stroke: '#1d2733', 'stroke-width': 1.5 }));
    for (const p of points) {
      const [cx, cy] = p.split(',');
      svg.append(el('circle', { cx, cy, r: 2, fill: '#1d2733' }));
    }
  }
  return svg;
}
