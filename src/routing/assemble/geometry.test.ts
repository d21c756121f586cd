import { describe, expect, it } from 'vitest';
import { bboxOf } from '../../geo/index.js';
import { simplifyIndices } from './geometry.js';

// A zig-zag along the equator, 111.3 m per 0.001°:
//   1       3
//  / \     / \        peaks 0.0001° (11 m) off the axis, point 2 dips 0.0005° (56 m)
// 0   \   /   4
//      \ /
//       2
const pts: Array<[number, number]> = [
  [0, 0],
  [0.0001, 0.001],
  [-0.0005, 0.002],
  [0.0001, 0.003],
  [0, 0.004],
];

describe('simplifyIndices (GeometryTolerance)', () => {
  it('0 keeps every point', () => {
    expect(simplifyIndices(pts, 0)).toEqual([0, 1, 2, 3, 4]);
  });
  it('45 m keeps the 56 m dip and drops the peaks (38 m off the line through the dip)', () => {
    expect(simplifyIndices(pts, 45)).toEqual([0, 2, 4]);
  });
  it('30 m keeps the peaks too', () => {
    expect(simplifyIndices(pts, 30)).toEqual([0, 1, 2, 3, 4]);
  });
  it('60 m keeps only the ends', () => {
    expect(simplifyIndices(pts, 60)).toEqual([0, 4]);
  });
  it('a tolerance above the route length leaves origin and destination', () => {
    expect(simplifyIndices(pts, 10_000)).toEqual([0, 4]);
  });
  it('drops points closer than the tolerance to the previous kept point', () => {
    const dense: Array<[number, number]> = [
      [0, 0],
      [0.0003, 0.00001],
      [0.0006, 0],
      [0.01, 0.005],
      [0.02, 0],
    ];
    // 33 m steps at 50 m tolerance: 1 and 2 are within 50 m of point 0; 3 is a real corner
    expect(simplifyIndices(dense, 50)).toEqual([0, 3, 4]);
  });
  it('bboxOf returns [minLat, minLon, maxLat, maxLon]', () => {
    expect(bboxOf(pts)).toEqual([-0.0005, 0, 0.0001, 0.004]);
  });
});
