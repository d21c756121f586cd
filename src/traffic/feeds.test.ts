import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { BINS_PER_WEEK, SpeedFeeds } from './feeds.js';

describe('SpeedFeeds change log', () => {
  it('lists exactly the edges changed after a version, in order', () => {
    const f = new SpeedFeeds();
    const v0 = f.version;
    f.setLive(3, { speedKph: 20, observedAtS: 100, samples: 1 });
    const v1 = f.version;
    f.writeLearnedProfile(7, [5, 9], [30, 40], 2);
    f.setLive(3, { speedKph: 25, observedAtS: 200, samples: 2 });
    expect(Array.from(f.changedSince(v0)!)).toEqual([3, 7, 3]);
    expect(Array.from(f.changedSince(v1)!)).toEqual([7, 3]);
    expect(Array.from(f.changedSince(f.version)!)).toEqual([]);
    // an older observation changes nothing and is not listed
    const v2 = f.version;
    f.setLive(3, { speedKph: 99, observedAtS: 150, samples: 1 });
    expect(f.version).toBe(v2);
    // expiry lists the edges whose live speed went away
    f.expireLive(1000);
    expect(Array.from(f.changedSince(v2)!)).toEqual([3]);
    expect(f.liveSpeed(3)).toBeUndefined();
  });

  it('answers null once a version is older than what the log still holds (clear, trimming)', () => {
    const f = new SpeedFeeds();
    f.setLive(1, { speedKph: 10, observedAtS: 1, samples: 1 });
    const before = f.version;
    f.clear();
    expect(f.changedSince(before)).toBeNull();
    expect(Array.from(f.changedSince(f.version)!)).toEqual([]);
    const v = f.version;
    for (let i = 0; i < (1 << 18) + 10; i++) f.setLive(i % 100, { speedKph: 10, observedAtS: i, samples: 1 });
    expect(f.changedSince(v)).toBeNull();
    const recent = f.version - 5;
    expect(Array.from(f.changedSince(recent)!)).toHaveLength(5);
  });

  it('property: changedSince(v) holds every edge whose state differs from its state at v', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.tuple(fc.integer({ min: 0, max: 2 }), fc.integer({ min: 0, max: 9 }), fc.integer({ min: 0, max: 50 })),
          { maxLength: 60 },
        ),
        fc.integer({ min: 0, max: 60 }),
        (ops, cut) => {
          const f = new SpeedFeeds();
          const snapshot = (): string[] =>
            Array.from(
              { length: 10 },
              (_, e) => `${f.liveSpeed(e)?.speedKph ?? '-'}/${f.hasLearned(e) ? f.learnedSpeedKph(e, 0) : '-'}`,
            );
          let at: { v: number; s: string[] } | null = null;
          ops.forEach(([op, e, x], i) => {
            if (i === cut) at = { v: f.version, s: snapshot() };
            if (op === 0) f.setLive(e, { speedKph: x, observedAtS: x, samples: 1 });
            else if (op === 1) f.writeLearnedProfile(e, [0], [x], 1);
            else f.expireLive(x);
          });
          if (at === null) at = { v: f.version, s: snapshot() };
          const { v, s } = at as { v: number; s: string[] };
          const listed = new Set(Array.from(f.changedSince(v)!));
          const now = snapshot();
          for (let e = 0; e < 10; e++) if (now[e] !== s[e]) expect(listed.has(e)).toBe(true);
        },
      ),
    );
  });

  it('writeLearnedProfile overwrites the whole profile in place', () => {
    const f = new SpeedFeeds();
    f.writeLearnedProfile(2, [1, 2], [10, 20], 2);
    f.writeLearnedProfile(2, [3], [30], 1);
    expect(f.learnedSpeedKph(2, 1)).toBeNaN();
    expect(f.learnedSpeedKph(2, 2)).toBeNaN();
    expect(f.learnedSpeedKph(2, 3)).toBe(30);
    expect(f.learnedSpeedKph(2, BINS_PER_WEEK - 1)).toBeNaN();
    expect(f.learnedEdgeCount).toBe(1);
  });

  it('setLearnedBin changes one bin, logs only real changes, and drops a profile left without a learned bin', () => {
    const f = new SpeedFeeds();
    f.setLearnedBin(4, 7, NaN); // nothing learned, nothing to forget
    expect(f.hasLearned(4)).toBe(false);
    expect(f.version).toBe(0);
    f.setLearnedBin(4, 7, 30);
    f.setLearnedBin(4, 9, 40);
    expect([f.learnedSpeedKph(4, 7), f.learnedSpeedKph(4, 9), f.learnedSpeedKph(4, 8)]).toEqual([30, 40, NaN]);
    const v = f.version;
    f.setLearnedBin(4, 9, 40); // the same value: no change
    expect(f.version).toBe(v);
    f.setLearnedBin(4, 7, NaN);
    expect(f.hasLearned(4)).toBe(true);
    expect(f.learnedSpeedKph(4, 7)).toBeNaN();
    f.setLearnedBin(4, 9, NaN);
    expect(f.hasLearned(4)).toBe(false);
    expect(f.learnedEdgeCount).toBe(0);
    expect(Array.from(f.changedSince(v)!)).toEqual([4, 4]);
  });
});
