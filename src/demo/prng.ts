/**
 * Seeded pseudo-random numbers for the demo city (mulberry32: 32-bit state, period 2^32).
 * Same seed → same sequence on every platform, which makes the generated city byte-identical.
 */

/** A seeded random source; every method advances the same underlying stream. */
export interface Prng {
  /** uniform float in [0, 1) */
  next(): number;
  /** uniform integer in [min, max] (both inclusive) */
  int(min: number, max: number): number;
  /** uniform float in [min, max) */
  float(min: number, max: number): number;
  /** one element of a non-empty array */
  pick<T>(items: readonly T[]): T;
  /** true with probability p */
  chance(p: number): boolean;
}

/**
 * Creates a mulberry32 generator from a 32-bit seed (any integer; taken modulo 2^32).
 * @example const rng = createPrng(42); rng.int(1, 6);
 */
export function createPrng(seed: number): Prng {
  let state = seed >>> 0;
  const next = (): number => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    int: (min, max) => min + Math.floor(next() * (max - min + 1)),
    float: (min, max) => min + next() * (max - min),
    pick: (items) => {
      if (items.length === 0) throw new Error('pick() needs a non-empty array');
      return items[Math.floor(next() * items.length)];
    },
    chance: (p) => next() < p,
  };
}
