/** Scalar query-parameter values of the routing actions: booleans, bounded integers, date-times. */
import { RoutingError } from '../../routing/index.js';
import type { Params } from './parameters.js';

/** Parses a boolean literal (true/false, any case). */
export function bool(
  p: Params,
  name: string,
  code: ConstructorParameters<typeof RoutingError>[0],
  dflt: boolean,
): boolean;
export function bool(
  p: Params,
  name: string,
  code: ConstructorParameters<typeof RoutingError>[0],
  dflt: undefined,
): boolean | undefined;
export function bool(
  p: Params,
  name: string,
  code: ConstructorParameters<typeof RoutingError>[0],
  dflt: boolean | undefined,
): boolean | undefined {
  const v = p.get(name.toLowerCase());
  if (v === undefined) return dflt;
  const l = v.toLowerCase();
  if (l === 'true') return true;
  if (l === 'false') return false;
  throw new RoutingError(code, `${name} must be true or false, got "${v}"`, name);
}

/** Parses an integer in [min, max]. */
export function int(
  p: Params,
  name: string,
  code: ConstructorParameters<typeof RoutingError>[0],
  min: number,
  max: number,
): number | undefined {
  const v = p.get(name.toLowerCase());
  if (v === undefined) return undefined;
  if (!/^[+-]?\d+$/.test(v.trim())) throw new RoutingError(code, `${name} must be an integer, got "${v}"`, name);
  const n = Number(v.trim());
  if (n < min || n > max) throw new RoutingError(code, `${name} must be between ${min} and ${max}, got ${n}`, name);
  return n;
}

const ISO = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?$/i;

/** Parses an ISO 8601 date-time (Z, offset, or no zone = UTC) to unix seconds. */
export function parseDateTime(v: string): number | undefined {
  const m = ISO.exec(v.trim());
  if (!m) return undefined;
  let zone = m[7] ?? 'Z';
  if (/^[+-]\d{4}$/.test(zone)) zone = `${zone.slice(0, 3)}:${zone.slice(3)}`;
  const iso = `${m[1]}-${m[2]}-${m[3]}T${m[4]}:${m[5]}:${m[6] ?? '00'}${zone.toUpperCase()}`;
  const ms = Date.parse(iso);
  if (Number.isNaN(ms)) return undefined;
  // reject rolled-over dates such as 2026-02-30
  const mon = Number(m[2]),
    day = Number(m[3]),
    hh = Number(m[4]),
    mm = Number(m[5]),
    ss = Number(m[6] ?? 0);
  if (mon < 1 || mon > 12 || day < 1 || day > 31 || hh > 23 || mm > 59 || ss > 59) return undefined;
  const check = new Date(Date.UTC(Number(m[1]), mon - 1, day));
  if (check.getUTCDate() !== day) return undefined;
  return ms / 1000;
}

export function dateTime(p: Params, name: 'DepartureTime' | 'ArrivalTime'): number | undefined {
  const v = p.get(name.toLowerCase());
  if (v === undefined) return undefined;
  const t = parseDateTime(v);
  if (t === undefined) {
    throw new RoutingError(
      name === 'DepartureTime' ? 'BAD_DEPARTURE_TIME' : 'BAD_ARRIVAL_TIME',
      `${name} must be YYYY-MM-DDTHH:MM:SSZ (or with an offset), got "${v}"`,
      name,
    );
  }
  return t;
}
