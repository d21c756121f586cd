/** Seeded pseudo-random numbers for reproducible simulations (mulberry32). */

/** A seeded random source: `next()` in [0, 1), `normal()` standard normal, `int(n)` in 0..n-1. */
export interface Rng {
  next(): number;
  normal(): number;
  int(n: number): number;
}

/** Creates a seeded generator (mulberry32; Box–Muller for normals). */
export function createRng(seed: number): Rng {
  let a = seed >>> 0;
  const next = (): number => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  let spare: number | undefined;
  return {
    next,
    normal() {
      if (spare !== undefined) {
        const s = spare;
        spare = undefined;
        return s;
      }
      let u = 0;
      while (u === 0) u = next();
      const v = next();
      const r = Math.sqrt(-2 * Math.log(u));
      spare = r * Math.sin(2 * Math.PI * v);
      return r * Math.cos(2 * Math.PI * v);
    },
    int: (n) => Math.floor(next() * n),
  };
}
