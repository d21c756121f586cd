import { describe, it, expect } from 'vitest';
import {
  M_PER_DEG,
  haversineM,
  bearingDeg,
  turnAngleDeg,
  destinationPoint,
  simplifyDouglasPeucker,
  pointInPolygon,
  projectOnSegment,
  encodePolyline,
  decodePolyline,
  bboxOf,
  polylineLengthM,
  ringAreaM2,
  ringCentroid,
  geodesicDistanceM,
  distanceToPolylineM,
  degreeSpan,
} from './index.js';

describe('geo kernel', () => {
  it('measures one degree of latitude as about 111.2 km', () => {
    expect(haversineM(0, 0, 1, 0)).toBeCloseTo(111_195, -1);
  });
  it('gives compass bearings', () => {
    expect(bearingDeg(0, 0, 1, 0)).toBeCloseTo(0, 6);
    expect(bearingDeg(0, 0, 0, 1)).toBeCloseTo(90, 6);
    expect(bearingDeg(0, 0, -1, 0)).toBeCloseTo(180, 6);
    expect(bearingDeg(0, 0, 0, -1)).toBeCloseTo(270, 6);
  });
  it('signs turn angles: left negative, right positive, U-turn 180', () => {
    expect(turnAngleDeg(0, 270)).toBe(-90);
    expect(turnAngleDeg(350, 80)).toBe(90);
    expect(turnAngleDeg(90, 270)).toBe(180);
  });
  it('round-trips destinationPoint and haversine', () => {
    const [la, lo] = destinationPoint(39.29, -76.61, 45, 1000);
    expect(haversineM(39.29, -76.61, la, lo)).toBeCloseTo(1000, 3);
    expect(bearingDeg(39.29, -76.61, la, lo)).toBeCloseTo(45, 2);
  });
  it('simplifies a nearly straight line to its end points', () => {
    const pts: Array<[number, number]> = [
      [0, 0],
      [0.00001, 0.001],
      [0, 0.002],
      [0, 0.003],
    ];
    expect(simplifyDouglasPeucker(pts, 5)).toEqual([
      [0, 0],
      [0, 0.003],
    ]);
    expect(simplifyDouglasPeucker(pts, 0.6)).toEqual([
      [0, 0],
      [0.00001, 0.001],
      [0, 0.003],
    ]);
  });
  it('tests points against polygons', () => {
    const sq: Array<[number, number]> = [
      [0, 0],
      [0, 1],
      [1, 1],
      [1, 0],
    ];
    expect(pointInPolygon(0.5, 0.5, sq)).toBe(true);
    expect(pointInPolygon(1.5, 0.5, sq)).toBe(false);
  });
  it('projects a point onto a segment', () => {
    const p = projectOnSegment(0.0001, 0.0005, 0, 0, 0, 0.001);
    expect(p.t).toBeCloseTo(0.5, 6);
    expect(p.distanceM).toBeCloseTo(11.12, 1);
  });
  it('encodes polylines like the reference example', () => {
    const pts: Array<[number, number]> = [
      [38.5, -120.2],
      [40.7, -120.95],
      [43.252, -126.453],
    ];
    expect(encodePolyline(pts)).toBe('_p~iF~ps|U_ulLnnqC_mqNvxq`@');
    expect(decodePolyline(encodePolyline(pts, 6), 6)).toEqual(pts);
  });
  it('computes bounding boxes and lengths', () => {
    expect(
      bboxOf([
        [1, 2],
        [-1, 5],
      ]),
    ).toEqual([-1, 2, 1, 5]);
    expect(
      polylineLengthM([
        [0, 0],
        [1, 0],
        [2, 0],
      ]),
    ).toBeCloseTo(2 * 111_195, -1);
  });
});

describe('M_PER_DEG', () => {
  it('is the great-circle length of one degree of latitude, and of longitude on the equator', () => {
    expect(M_PER_DEG).toBeCloseTo(haversineM(10, 20, 11, 20), 6);
    expect(M_PER_DEG).toBeCloseTo(haversineM(0, 20, 0, 21), 6);
    expect(M_PER_DEG).toBeCloseTo(111_195.08, 2);
  });
});

describe('rings', () => {
  // a 0.001° square on the equator (sides ≈ 111.2 m), listed anticlockwise and open
  const sq: Array<[number, number]> = [
    [0, 0],
    [0, 0.001],
    [0.001, 0.001],
    [0.001, 0],
  ];
  it('finds the centroid and the area of a small ring', () => {
    const [lat, lon] = ringCentroid(sq);
    expect(lat).toBeCloseTo(0.0005, 12);
    expect(lon).toBeCloseTo(0.0005, 12);
    expect(ringAreaM2(sq)).toBeCloseTo((0.001 * M_PER_DEG) ** 2, 6);
    expect(ringAreaM2(sq.slice(0, 2))).toBe(0);
  });
  it('takes the vertex mean of a degenerate ring', () => {
    expect(
      ringCentroid([
        [0, 0],
        [0, 0.002],
        [0, 0.001],
      ]),
    ).toEqual([0, 0.001]);
  });
});

describe('WGS 84 ellipsoid', () => {
  it('measures 0.001° of meridian on the equator as 110.574 m, shorter than on the sphere', () => {
    expect(geodesicDistanceM(0, 0, 0.001, 0)).toBeCloseTo(110.574, 3);
    expect(haversineM(0, 0, 0.001, 0)).toBeCloseTo(111.195, 3);
  });
  it('measures a point to a polyline at its nearest point, and a polyline along the ellipsoid', () => {
    const line: Array<[number, number]> = [
      [0, 0],
      [0, 0.002],
      [0.002, 0.002],
    ];
    expect(distanceToPolylineM(0.0005, 0.0005, line)).toBeCloseTo(geodesicDistanceM(0.0005, 0.0005, 0, 0.0005), 9);
    expect(distanceToPolylineM(0.003, 0.002, line)).toBeCloseTo(geodesicDistanceM(0.003, 0.002, 0.002, 0.002), 9);
    expect(polylineLengthM(line, geodesicDistanceM)).toBeCloseTo(
      geodesicDistanceM(0, 0, 0, 0.002) + geodesicDistanceM(0, 0.002, 0.002, 0.002),
      9,
    );
  });
  it('spans a radius in degrees with a margin that covers the ellipsoid', () => {
    const { dLat, dLon } = degreeSpan(0, 1000);
    expect(dLat).toBeCloseTo(1010 / M_PER_DEG, 12);
    expect(geodesicDistanceM(0, 0, dLat, 0)).toBeGreaterThan(1000);
    expect(geodesicDistanceM(0, 0, 0, dLon)).toBeGreaterThan(1000);
  });
});
