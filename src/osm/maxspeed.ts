/**
 * `maxspeed` parsing: "50", "30 mph", "50 km/h", "none", "walk", "FR:urban", "US:zone30"…
 */
import { zoneSpeedKph } from './country.js';

const MPH = 1.609344;
/** Speed (km/h) used for `maxspeed=none`: no posted limit, vehicles drive at a high cruising speed. */
export const NO_LIMIT_SPEED_KPH = 140;
/** `maxspeed=walk` (living streets in some countries). */
export const WALK_SPEED_KPH = 7;

/**
 * Parses one maxspeed value to km/h, or undefined when it names no usable limit (signals,
 * variable, garbage). `country` picks the units of zone values such as "US:urban".
 */
export function parseMaxspeedKph(value: string | undefined, country = ''): number | undefined {
  if (!value) return undefined;
  const v = value.trim().toLowerCase();
  // "50;30" (several values): use the first one
  const first = v.split(';')[0].trim();
  if (first === 'none' || first === 'unlimited') return NO_LIMIT_SPEED_KPH;
  if (first === 'walk') return WALK_SPEED_KPH;
  const m = /^([0-9]+(?:\.[0-9]+)?)\s*(mph|km\/h|kmh|kph|knots)?$/.exec(first);
  if (m) {
    const n = Number(m[1]);
    if (!(n > 0)) return undefined;
    if (m[2] === 'mph') return Math.round(n * MPH * 10) / 10;
    if (m[2] === 'knots') return Math.round(n * 1.852 * 10) / 10;
    return n;
  }
  // Implicit limits: "FR:urban", "DE:zone:30", "US:school"
  const z = /^([a-z]{2}):(.+)$/.exec(first);
  if (z) return zoneSpeedKph(z[1].toUpperCase() || country, z[2]);
  return undefined;
}
