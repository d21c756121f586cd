import { describe, expect, it } from 'vitest';
import { parseArea, readPosition } from './geojson.js';
import { AnalyticsError } from './errors.js';

// a 0.02° square around (10, 20) with a 0.01° hole in the middle
const outer = [
  [19.99, 9.99],
  [20.01, 9.99],
  [20.01, 10.01],
  [19.99, 10.01],
  [19.99, 9.99],
];
const hole = [
  [19.995, 9.995],
  [20.005, 9.995],
  [20.005, 10.005],
  [19.995, 10.005],
  [19.995, 9.995],
];

describe('parseArea', () => {
  it('reads positions as arrays and as LngLatAlt objects', () => {
    expect(readPosition([20, 10, 5], 'p')).toEqual([10, 20]);
    expect(readPosition({ longitude: 20, latitude: 10, altitude: 5, additionalElements: [1] }, 'p')).toEqual([10, 20]);
  });

  it('honours polygon holes and buffers edges only when a radius is given', () => {
    const poly = parseArea({ type: 'Polygon', coordinates: [outer, hole] }, 'g');
    expect(poly(10.008, 20)).toBe(true);
    expect(poly(10, 20)).toBe(false);
    expect(poly(10.0105, 20)).toBe(false);
    expect(parseArea({ type: 'Polygon', coordinates: [outer] }, 'g', 100)(10.0105, 20)).toBe(true);
  });

  it('buffers points and lines by the radius', () => {
    const pt = parseArea({ type: 'Point', coordinates: [20, 10] }, 'g', 100);
    expect(pt(10.0008, 20)).toBe(true); // ≈ 89 m
    expect(pt(10.001, 20)).toBe(false); // ≈ 111 m
    const line = parseArea(
      {
        type: 'LineString',
        coordinates: [
          [20, 10],
          [20.01, 10],
        ],
      },
      'g',
      50,
    );
    expect(line(10.0004, 20.005)).toBe(true);
    expect(line(10.0006, 20.005)).toBe(false);
  });

  it('handles a bbox crossing the antimeridian', () => {
    const a = parseArea(
      {
        type: 'MultiPoint',
        coordinates: [
          [179.9, 0],
          [-179.9, 0],
          [0, 0],
        ],
        bbox: [179, -1, -179, 1],
      },
      'g',
      1000,
    );
    expect(a(0, 179.9)).toBe(true);
    expect(a(0, -179.9)).toBe(true);
    expect(a(0, 0)).toBe(false);
  });

  it('treats a Feature without geometry as empty and rejects bad input with the field path', () => {
    expect(parseArea({ type: 'Feature', geometry: null, properties: null }, 'g')(0, 0)).toBe(false);
    const err = (v: unknown) => {
      try {
        parseArea(v, 'geometry');
        return '';
      } catch (e) {
        expect(e).toBeInstanceOf(AnalyticsError);
        return (e as Error).message;
      }
    };
    expect(
      err({
        type: 'Polygon',
        coordinates: [
          [
            [0, 0],
            [1, 1],
          ],
        ],
      }),
    ).toMatch(/^geometry\.coordinates\[0\]/);
    expect(err({ type: 'FeatureCollection', features: [{ type: 'Point' }] })).toMatch(/^geometry\.features\[0\]/);
    expect(err({ type: 'Point', coordinates: [0, 0], bbox: [1, 2, 3] })).toMatch(/^geometry\.bbox/);
    expect(err({ type: 'Point', coordinates: [0, 0], crs: { type: 'link', properties: { href: 'x' } } })).toMatch(
      /^geometry\.crs/,
    );
    expect(err({ type: 'Point', coordinates: { longitude: 0 } })).toMatch(/longitude and latitude/);
  });
});
