/**
 * Level-of-service bands of the LOS metric: the HCM signalized defaults and the bands a request
 * may give instead.
 */
import { invalid } from '../errors.js';

/** A level-of-service band: avgControlDelay in [startS, endS). */
export interface LosBand {
  name: string;
  startS: number;
  endS: number;
}

/** HCM signalized bands: A ≤ 10 s, B ≤ 20, C ≤ 35, D ≤ 55, E ≤ 80, F above (upper bounds inclusive). */
export const DEFAULT_LOS_BANDS: ReadonlyArray<{ name: string; maxS: number }> = [
  { name: 'A', maxS: 10 },
  { name: 'B', maxS: 20 },
  { name: 'C', maxS: 35 },
  { name: 'D', maxS: 55 },
  { name: 'E', maxS: 80 },
  { name: 'F', maxS: Infinity },
];

/** Validates LOS `ranges` (NamedRangeItem): start inclusive, end exclusive; missing end = open. */
export function readLosBands(v: unknown, p: string): LosBand[] {
  if (!Array.isArray(v) || v.length === 0)
    throw invalid(p, 'must be a non-empty array of { name, startAvgControlDelay, endAvgControlDelay }');
  const bands = v.map((r, i) => {
    const q = `${p}[${i}]`;
    if (typeof r !== 'object' || r === null || Array.isArray(r)) throw invalid(q, 'must be an object');
    const o = r as Record<string, unknown>;
    for (const k of Object.keys(o))
      if (!['name', 'startAvgControlDelay', 'endAvgControlDelay'].includes(k))
        throw invalid(`${q}.${k}`, 'unknown field');
    if (typeof o.name !== 'string' || !o.name) throw invalid(`${q}.name`, 'is required');
    const start = o.startAvgControlDelay ?? 0;
    const end = o.endAvgControlDelay ?? Infinity;
    if (typeof start !== 'number' || !Number.isFinite(start) || start < 0)
      throw invalid(`${q}.startAvgControlDelay`, 'must be a number ≥ 0');
    if (typeof end !== 'number' || Number.isNaN(end)) throw invalid(`${q}.endAvgControlDelay`, 'must be a number');
    if (end <= start) throw invalid(q, 'endAvgControlDelay must be greater than startAvgControlDelay');
    return { name: o.name, startS: start, endS: end };
  });
  const sorted = [...bands].sort((a, b) => a.startS - b.startS);
  for (let i = 1; i < sorted.length; i++) {
    if (sorted[i].startS < sorted[i - 1].endS)
      throw invalid(p, `ranges '${sorted[i - 1].name}' and '${sorted[i].name}' overlap`);
  }
  return bands;
}
