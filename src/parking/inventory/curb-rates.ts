/**
 * Structured rates of a stretch of curb from its OSM parking tags, with the times they apply.
 *
 * Which side: a `CurbSegment`'s `side` is the side of the block (direction of travel from the
 * block's first node), while its raw `tags` keep the OSM way's own side tokens (`left` / `right` /
 * `both`); the network puts in `tags` only the keys of the way side that became this curb (plus
 * `both`), so a block running against its way carries `…:right:…` keys on its left curb. The
 * lookup therefore takes whichever way side the tags carry, a side-specific key winning over
 * `both`. Only when the tags carry both sides (hand-built tags copied from a whole way) is the
 * block side used to choose.
 *
 * Price: `parking:condition:<side>:charge` (old scheme), `parking:<side>:charge` (2022 scheme), then
 * plain `charge`. Times: the old scheme's `parking:condition:<side>:time_interval` limits the
 * condition (a meter's hours) to an opening_hours window, `parking:condition:<side>:default`
 * (free, no_parking, no_stopping, …) holds outside it, free when untagged. The 2022 scheme's
 * `parking:<side>:fee:conditional` ("yes @ (Mo-Sa 08:00-20:00)") and
 * `parking:<side>:charge:conditional` ("2 USD/hour @ (Mo-Sa 08:00-20:00); 1 USD/hour @ Su") lay
 * windows over the unconditional value, later parts winning. Windows are read with the
 * opening_hours library over a reference week without public holidays; a window string it cannot
 * read makes the curb's rates unknown rather than wrong.
 */
import { parseOpeningHours } from '../opening-hours.js';
import type { CurbSegment } from '../../network/region.js';
import type { StructuredRateInput } from '../rates/rate-rule.js';

/** Kinds (lane values) that mean no car may park. */
export const NO_PARKING_KINDS: ReadonlySet<string> = new Set([
  'no',
  'no_parking',
  'no_stopping',
  'fire_lane',
  'no_standing',
  'separate',
]);
const NO_PARKING_CONDITIONS: ReadonlySet<string> = new Set(['no_parking', 'no_stopping', 'no_standing', 'no']);

/** A price per increment parsed from an OSM charge value. */
export interface Charge {
  /** currency units per increment */
  rate: number;
  /** minutes */
  increment: number;
}

/**
 * Parses the OSM `charge` forms "2 USD/hour", "1.50/hour", "USD 2/hour", "1,50 EUR/30 min",
 * "0.50 EUR/15 minutes", "10 EUR/day"; "free" and "0" are free. Null when unreadable.
 */
export function parseCharge(charge: string): Charge | null {
  const v = charge.trim();
  if (/^(free|0|no)$/i.test(v)) return { rate: 0, increment: 60 };
  const m =
    /^(?:([A-Z]{3}|[$€£])\s*)?(\d+(?:[.,]\d{1,2})?)\s*([A-Z]{3}|[$€£])?\s*\/\s*(\d*)\s*(hours?|hrs?|h|days?|d|minutes?|mins?|m)\b/i.exec(
      v,
    );
  if (!m) return null;
  const amount = Number(m[2].replace(',', '.'));
  const n = m[4] ? Number(m[4]) : 1;
  if (!(n > 0)) return null;
  const unit = m[5].toLowerCase();
  const minutes = unit.startsWith('d') ? 1440 * n : unit.startsWith('m') ? n : 60 * n;
  return { rate: amount, increment: minutes };
}

/** What applies during a stretch of the week: a structured-rate item template (no days or times), or unknown. */
type Rule = Omit<StructuredRateInput, 'dow_start' | 'dow_end' | 'time_in' | 'time_out'> | null;

const FREE: Rule = { rate: 0 };
const NO_PARKING: Rule = { rate: -1 };
const MIN_PER_WEEK = 7 * 1440;

function chargeRule(c: Charge): Rule {
  return c.rate === 0 ? FREE : { rate: c.rate, increment: c.increment, repeats: true };
}

/** The way-side token of a curb's tags: the one side-specific token present, else the block side. */
export function waySideOf(c: Pick<CurbSegment, 'side' | 'tags'>): 'left' | 'right' {
  let left = false,
    right = false;
  for (const k of Object.keys(c.tags)) {
    const m = /^parking:(?:lane:|condition:)?(left|right)(?::|$)/.exec(k);
    if (m?.[1] === 'left') left = true;
    else if (m?.[1] === 'right') right = true;
  }
  if (left !== right) return left ? 'left' : 'right';
  return c.side;
}

/** A side tag: `pattern(wayside)` first, then `pattern('both')`. */
function sideTag(tags: Record<string, string>, side: string, pattern: (s: string) => string): string | undefined {
  return tags[pattern(side)] ?? tags[pattern('both')];
}

const refWeekCache = new Map<string, Uint8Array | null>();

/**
 * Minutes of the week (0 = Monday 00:00) an opening_hours value covers, or null when unreadable.
 * Evaluated over the reference week of Monday 8 January 2024 (no public holidays in it).
 */
export function weekMask(value: string): Uint8Array | null {
  const cached = refWeekCache.get(value);
  if (cached !== undefined) return cached;
  let mask: Uint8Array | null = null;
  try {
    const oh = parseOpeningHours(value.replace(/^\((.*)\)$/, '$1'));
    // opening_hours works in the process zone: read the intervals back through local fields
    const from = new Date(2024, 0, 8),
      to = new Date(2024, 0, 15);
    mask = new Uint8Array(MIN_PER_WEEK);
    const idx = (d: Date): number =>
      d.getTime() >= to.getTime() ? MIN_PER_WEEK : ((d.getDay() + 6) % 7) * 1440 + d.getHours() * 60 + d.getMinutes();
    for (const [a, b] of oh.getOpenIntervals(from, to)) mask.fill(1, idx(a), idx(b));
  } catch {
    mask = null;
  }
  if (refWeekCache.size > 10_000) refWeekCache.clear();
  refWeekCache.set(value, mask);
  return mask;
}

/** Splits "v1 @ (cond1); v2 @ cond2" into parts (semicolons inside parentheses kept). */
export function conditionalParts(value: string): Array<{ value: string; condition: string }> | null {
  const parts: string[] = [];
  let depth = 0,
    cur = '';
  for (const ch of value) {
    if (ch === '(') depth++;
    else if (ch === ')') depth--;
    if (ch === ';' && depth === 0) {
      parts.push(cur);
      cur = '';
    } else cur += ch;
  }
  parts.push(cur);
  const out: Array<{ value: string; condition: string }> = [];
  for (const p of parts.map((s) => s.trim()).filter(Boolean)) {
    const at = p.indexOf('@');
    if (at < 0) return null;
    out.push({
      value: p.slice(0, at).trim(),
      condition: p
        .slice(at + 1)
        .trim()
        .replace(/^\((.*)\)$/, '$1')
        .trim(),
    });
  }
  return out;
}

/** Rule of a parking condition value (old scheme) or restriction (new scheme); undefined = priced by the charge. */
function conditionRule(cond: string): Rule | undefined {
  if (NO_PARKING_CONDITIONS.has(cond)) return NO_PARKING;
  if (cond === 'free' || cond === 'disc') return FREE;
  if (cond === 'residents') return { rate: 0, restriction: 'R' };
  if (cond === 'disabled') return { rate: 0, restriction: 'D' };
  if (cond === 'customers' || cond === 'loading' || cond === 'loading_only' || cond === 'delivery')
    return { rate: 0, restriction: 'C' };
  return undefined;
}

/**
 * Structured rates of a curb stretch from its condition and tags (see the module comment);
 * null when the price is unknown. No Parking kinds give a single rate -1 item.
 */
export function curbRates(c: Pick<CurbSegment, 'side' | 'kind' | 'condition' | 'tags'>): StructuredRateInput[] | null {
  if (NO_PARKING_KINDS.has(c.kind)) return [{ dow_start: 1, dow_end: 7, rate: -1 }];
  const side = waySideOf(c);
  const t = c.tags;
  const chargeText =
    sideTag(t, side, (s) => `parking:condition:${s}:charge`) ??
    sideTag(t, side, (s) => `parking:${s}:charge`) ??
    t.charge;
  const charge = chargeText !== undefined ? parseCharge(chargeText) : null;
  const priced: Rule = charge ? chargeRule(charge) : null;
  const inside: Rule = conditionRule(c.condition) ?? priced;

  // base rule and timed overlays, applied in order over a week of minutes
  let base: Rule = inside;
  const overlays: Array<{ mask: Uint8Array; rule: Rule }> = [];
  const interval = sideTag(t, side, (s) => `parking:condition:${s}:time_interval`);
  if (interval !== undefined) {
    const mask = weekMask(interval);
    if (!mask) return null;
    const def = sideTag(t, side, (s) => `parking:condition:${s}:default`);
    base = def === undefined ? FREE : (conditionRule(def) ?? (def === 'ticket' || def === 'fee' ? priced : null));
    overlays.push({ mask, rule: inside });
  }
  const feeCond = sideTag(t, side, (s) => `parking:${s}:fee:conditional`);
  if (feeCond !== undefined) {
    const parts = conditionalParts(feeCond);
    if (!parts) return null;
    for (const p of parts) {
      const mask = weekMask(p.condition);
      if (!mask) return null;
      overlays.push({ mask, rule: p.value === 'no' ? FREE : p.value === 'yes' ? priced : null });
    }
    // a fee only at the stated times: free otherwise unless the unconditional fee says yes
    if (
      interval === undefined &&
      sideTag(t, side, (s) => `parking:${s}:fee`) !== 'yes' &&
      conditionRule(c.condition) === undefined
    )
      base = FREE;
  }
  const chargeCond = sideTag(t, side, (s) => `parking:${s}:charge:conditional`) ?? t['charge:conditional'];
  if (chargeCond !== undefined) {
    const parts = conditionalParts(chargeCond);
    if (!parts) return null;
    for (const p of parts) {
      const mask = weekMask(p.condition);
      const ch = parseCharge(p.value);
      if (!mask || !ch) return null;
      overlays.push({ mask, rule: chargeRule(ch) });
    }
    if (
      chargeText === undefined &&
      feeCond === undefined &&
      interval === undefined &&
      conditionRule(c.condition) === undefined
    )
      base = FREE;
  }
  if (overlays.length === 0)
    return base === null ? null : [{ dow_start: 1, dow_end: 7, time_in: '00:00', time_out: '24:00', ...base }];
  return weekRates(base, overlays);
}

/** Turns a base rule plus overlays into items per run of equal days (null when any stretch is unknown). */
function weekRates(base: Rule, overlays: Array<{ mask: Uint8Array; rule: Rule }>): StructuredRateInput[] | null {
  const rules: Rule[] = [base];
  const week = new Uint8Array(MIN_PER_WEEK);
  for (const o of overlays) {
    let id = rules.indexOf(o.rule);
    if (id < 0) {
      rules.push(o.rule);
      id = rules.length - 1;
    }
    for (let i = 0; i < MIN_PER_WEEK; i++) if (o.mask[i]) week[i] = id;
  }
  const dayRuns: Array<Array<[number, number, number]>> = [];
  for (let d = 0; d < 7; d++) {
    const runs: Array<[number, number, number]> = [];
    for (let m = 0; m < 1440; m++) {
      const r = week[d * 1440 + m];
      const last = runs[runs.length - 1];
      if (last && last[2] === r) last[1] = m + 1;
      else runs.push([m, m + 1, r]);
    }
    if (runs.some(([, , r]) => rules[r] === null)) return null;
    dayRuns.push(runs);
  }
  const clock = (m: number): string =>
    `${String(Math.floor(m / 60)).padStart(2, '0')}:${String(m % 60).padStart(2, '0')}`;
  const out: StructuredRateInput[] = [];
  for (let d = 0; d < 7; ) {
    const key = JSON.stringify(dayRuns[d]);
    let e = d;
    while (e + 1 < 7 && JSON.stringify(dayRuns[e + 1]) === key) e++;
    for (const [from, to, r] of dayRuns[d])
      out.push({ dow_start: d + 1, dow_end: e + 1, time_in: clock(from), time_out: clock(to), ...rules[r]! });
    d = e + 1;
  }
  return out;
}
