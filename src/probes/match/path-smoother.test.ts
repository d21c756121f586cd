import { describe, it, expect } from 'vitest';
import { NodeClock, smoothPath, type PathKnots } from './path-smoother.js';

const NOISE = { positionSigmaM: 4, speedSigmaMps: 0.5, accelerationSigmaMps2: 3, turnSigmaM: 8 };
const knots = (tS: number[], sM: number[], vMps: number[]): PathKnots => ({
  tS: Float64Array.from(tS),
  sM: Float64Array.from(sM),
  vMps: Float64Array.from(vMps),
});

describe('smoothPath', () => {
  const tS = [0, 3, 6, 9, 12];
  const ten = [10, 10, 10, 10, 10];

  it('leaves noise-free pings of a constant speed where they are', () => {
    const k = smoothPath(tS, [0, 30, 60, 90, 120], ten, NOISE);
    for (let i = 0; i < 5; i++) expect(k.sM[i]).toBeCloseTo(30 * i, 6);
    // a node at 45 m is passed half-way between the pings at 30 m and 60 m
    expect(new NodeClock(k).timeAt(45)).toBeCloseTo(4.5, 6);
  });

  it('pulls a ping 4 m ahead of its true place back toward what the speeds say', () => {
    // true positions 0, 30, 60, 90, 120 m at 10 m/s; the third ping reads 64 m. A node at 60 m is
    // truly passed at 6 s; linear interpolation between the pings at 30 m and 64 m says 5.647 s.
    // Expected values: the weighted least-squares problem solved as one dense system (numpy's
    // lstsq), and its Hermite curve solved for 60 m (scipy's brentq).
    const sM = [0, 30, 64, 90, 120];
    const k = smoothPath(tS, sM, ten, NOISE);
    expect([...k.sM].map((s) => +s.toFixed(4))).toEqual([0.1423, 30.5576, 62.6001, 90.5576, 120.1423]);
    expect(new NodeClock(k).timeAt(60)).toBeCloseTo(5.744193, 5);
    // through a right-angle turn between the second and third ping the speeds count for less there
    const turned = smoothPath(tS, sM, ten, NOISE, [0, 0, Math.PI / 2, 0, 0]);
    expect([...turned.sM].map((s) => +s.toFixed(4))).toEqual([0.0446, 30.1747, 62.9788, 90.6389, 120.1631]);
    expect(new NodeClock(turned).timeAt(60)).toBeCloseTo(5.709498, 5);
  });

  it('keeps the pings as they are, read linearly, when the feed reports no speed', () => {
    const nan = Number.NaN;
    const k = smoothPath(tS, [0, 30, 64, 90, 120], [nan, nan, nan, nan, nan], NOISE);
    expect([...k.sM]).toEqual([0, 30, 64, 90, 120]);
    expect(new NodeClock(k).timeAt(60)).toBeCloseTo(3 + (3 * 30) / 34, 6);
  });

  it('never moves backward: pings that jitter behind one another are pooled', () => {
    const nan = Number.NaN;
    const k = smoothPath([0, 3, 6, 9], [20, 22, 18, 30], [nan, nan, nan, nan], NOISE);
    expect([...k.sM]).toEqual([20, 20, 20, 30]);
  });
});

describe('NodeClock', () => {
  it('solves the Hermite curve of a vehicle braking to a stop between two pings', () => {
    // 0 m at 10 m/s, then 15 m at a standstill 3 s later: s(t) = 10 t − 5 t² / 3, so 11.25 m at 1.5 s
    // (linear interpolation: 2.25 s)
    const c = new NodeClock(knots([0, 3], [0, 15], [10, 0]));
    expect(c.timeAt(11.25)).toBeCloseTo(1.5, 6);
  });

  it('limits the end speeds so the curve stays monotone (Fritsch–Carlson)', () => {
    // mean speed 5 m/s, 20 m/s at the start: α = 4 is cut to 3, so s = 15 (1 − (1 − u)³) and
    // 13.125 m (7/8 of the way) is reached at u = 1/2
    const c = new NodeClock(knots([0, 3], [0, 15], [20, 0]));
    expect(c.timeAt(13.125)).toBeCloseTo(1.5, 6);
  });

  it('counts standing time before a node the vehicle stands at', () => {
    const c = new NodeClock(knots([0, 3, 6, 9], [0, 20, 20, 40], [10, 0, 0, 10]));
    // stopped at 20 m from 3 s to 6 s: 20 m is left at 6 s; before the first knot: its time
    expect(c.timeAt(-5)).toBe(0);
    expect(c.timeAt(20)).toBeCloseTo(6, 6);
    expect(c.timeAt(50)).toBe(9);
  });
});
