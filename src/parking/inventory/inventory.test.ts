import { describe, it, expect } from 'vitest';
import { M_PER_DEG, geodesicDistanceM, pointInPolygon } from '../../geo/index.js';
import { chargeToRates, hoursText, mergeCurb } from './from-osm.js';
import { parseEntryTime, parseInventoryQuery } from './params.js';
import { validateBlockUpload } from './block-upload.js';
import { normalizeOsmRef, validateLotUpload } from './lot-upload.js';
import { sliceLine } from './polyline.js';
import { hrsToOpeningHours } from './hours.js';
import type { CurbSegment } from '../../network/region.js';

const curb = (startM: number, endM: number, kind: string, condition = ''): CurbSegment => ({
  side: 'right',
  startM,
  endM,
  kind,
  condition,
  maxStay: '',
  spaces: Math.floor((endM - startM) / 6),
  tags: {},
});

describe('geodesic distance (Vincenty)', () => {
  it("matches Vincenty's published Flinders Peak – Buninyong line to the millimetre", () => {
    const dms = (d: number, m: number, s: number) => Math.sign(d) * (Math.abs(d) + m / 60 + s / 3600);
    const d = geodesicDistanceM(
      dms(-37, 57, 3.7203),
      dms(144, 25, 29.5244),
      dms(-37, 39, 10.1561),
      dms(143, 55, 35.3839),
    );
    expect(d).toBeCloseTo(54972.271, 3);
  });
  it('gives 0 for the same point and is symmetric', () => {
    expect(geodesicDistanceM(39.29, -76.61, 39.29, -76.61)).toBe(0);
    expect(geodesicDistanceM(39.29, -76.61, 39.3, -76.6)).toBeCloseTo(geodesicDistanceM(39.3, -76.6, 39.29, -76.61), 9);
  });
  it('tests points against a ring', () => {
    const ring: Array<[number, number]> = [
      [0, 0],
      [0, 1],
      [1, 1],
      [1, 0],
    ];
    expect(pointInPolygon(0.5, 0.5, ring)).toBe(true);
    expect(pointInPolygon(1.5, 0.5, ring)).toBe(false);
  });
});

describe('curb merging (gaps under 25 m)', () => {
  it('drops a short No Parking gap between stretches with the same rules and joins them', () => {
    const m = mergeCurb([
      curb(0, 60, 'parallel', 'free'),
      curb(60, 84, 'no_parking'),
      curb(84, 150, 'parallel', 'free'),
    ]);
    expect(m.map((x) => [x.startM, x.endM, x.spaces])).toEqual([[0, 150, 21]]);
  });
  it('keeps a gap of 25 m or more, and a short gap where the rules change', () => {
    expect(
      mergeCurb([curb(0, 60, 'parallel', 'free'), curb(60, 85, 'no_parking'), curb(85, 150, 'parallel', 'free')])
        .length,
    ).toBe(3);
    expect(
      mergeCurb([curb(0, 60, 'parallel', 'free'), curb(60, 70, 'no_parking'), curb(70, 150, 'parallel', 'ticket')])
        .length,
    ).toBe(3);
  });
  it('joins same-rule stretches separated by an untagged gap under 25 m', () => {
    expect(
      mergeCurb([curb(0, 50, 'parallel', 'free'), curb(70, 120, 'parallel', 'free')]).map((x) => [x.startM, x.endM]),
    ).toEqual([[0, 120]]);
    expect(mergeCurb([curb(0, 50, 'parallel', 'free'), curb(80, 120, 'parallel', 'free')]).length).toBe(2);
  });
});

describe('OSM charge tags', () => {
  it('reads per-hour, per-day and per-minute charges', () => {
    expect(chargeToRates('2 USD/hour')).toEqual([
      { dow_start: 1, dow_end: 7, time_in: '00:00', time_out: '24:00', rate: 2, increment: 60, repeats: true },
    ]);
    expect(chargeToRates('1,50 EUR/30 min')?.[0]).toMatchObject({ rate: 1.5, increment: 30 });
    expect(chargeToRates('10 EUR/day')?.[0]).toMatchObject({ rate: 10, increment: 1440 });
    expect(chargeToRates('ask the attendant')).toBeNull();
  });
});

describe('query parameters', () => {
  const NOW = Date.UTC(2026, 10, 23, 15) / 1000;
  it('parses entry times: trailing Z = UTC, an offset, or local wall-clock', () => {
    expect(parseEntryTime('entry_time', '2026-11-23T10:00Z')).toEqual({
      utc: true,
      unixS: Date.UTC(2026, 10, 23, 10) / 1000,
    });
    expect(parseEntryTime('entry_time', '2026-11-23T10:00:30-05:00')).toEqual({
      utc: true,
      unixS: Date.UTC(2026, 10, 23, 15, 0, 30) / 1000,
    });
    expect(parseEntryTime('entry_time', '2026-11-23T10:00')).toEqual({
      utc: false,
      year: 2026,
      month: 11,
      day: 23,
      hour: 10,
      minute: 0,
      second: 0,
    });
    expect(() => parseEntryTime('entry_time', '2026-02-30T10:00')).toThrow(/not a valid date/);
  });
  it('normalises a box given in either corner order and applies defaults', () => {
    const q = parseInventoryQuery('lots', { box: '39.28|-76.62,39.30|-76.60' }, NOW);
    expect(q.location).toEqual({ kind: 'box', minLat: 39.28, minLon: -76.62, maxLat: 39.3, maxLon: -76.6 });
    expect(q).toMatchObject({ limit: 100, offset: 0, sort: null, locale: 'en-US', entry: null, durationsMin: [] });
  });
  it('gives point a default radius of 1000 m and reads a pipe list of durations', () => {
    const q = parseInventoryQuery('blocks', { point: '39.29|-76.61', duration: '60|120|720' }, NOW);
    expect(q.location).toEqual({ kind: 'circle', lat: 39.29, lon: -76.61, radiusM: 1000 });
    expect(q.durationsMin).toEqual([60, 120, 720]);
  });
  it('accepts an encoded polyline as the route of a corridor query', () => {
    const q = parseInventoryQuery('lots', { polyline: '_p~iF~ps|U_ulLnnqC' }, NOW);
    expect(q.location).toMatchObject({
      kind: 'polyline',
      widthM: 100,
      line: [
        [38.5, -120.2],
        [40.7, -120.95],
      ],
    });
  });
});

describe('upload validation', () => {
  it('identifies lots by id, OSM reference or alias', () => {
    expect(validateLotUpload({ id: 5, name: 'x' }, 'lots[0]').key).toBe('id:5');
    expect(validateLotUpload({ osm_id: 22, osm_type: 'way', alias: 'demo|b' }, 'lots[0]')).toMatchObject({
      key: 'osm:w22',
      alias: 'demo|b',
      osmRef: 'w22',
    });
    expect(validateLotUpload({ alias: { source: 'acme', id: 7 } }, 'lots[0]').key).toBe('alias:acme|7');
    expect(normalizeOsmRef('way/123', undefined, 'x')).toBe('w123');
    expect(normalizeOsmRef(123, undefined, 'x')).toBe('?123');
  });
  it('names the bad field', () => {
    expect(() => validateLotUpload({ id: 1, spacesTotal: -3 }, 'lots[4]')).toThrow(/lots\[4\]\.spacesTotal/);
    expect(() => validateLotUpload({ id: 1, lotCategory: 'Zoo' }, 'lots[0]')).toThrow(/lotCategory/);
    expect(() => validateLotUpload({ id: 1, peps: [{ pepPt: [-76.6, 39.29], pepPrimary: false }] }, 'lots[0]')).toThrow(
      /exactly one entry point/,
    );
    expect(() => validateLotUpload({ id: 1, point: { type: 'Point', coordinates: [39.29, -200] } }, 'lots[0]')).toThrow(
      /point/,
    );
    expect(() =>
      validateBlockUpload({ blockID: 3, segments: [{ side: 'UP', start: 0, end: 5 }] }, 'blocks[0]'),
    ).toThrow(/blocks\[0\]\.segments\[0\]\.side/);
    expect(() => validateBlockUpload({ name: 'x' }, 'blocks[0]')).toThrow(/blockID/);
  });
});

describe('slicing a line by distance', () => {
  it('cuts the part between two offsets', () => {
    // 0.001° of longitude at the equator ≈ 111.19 m
    const s = sliceLine(
      [
        [0, 0],
        [0, 0.002],
      ],
      55.597,
      166.79,
    );
    expect(s[0][1]).toBeCloseTo(0.0005, 6);
    expect(s[1][1]).toBeCloseTo(0.0015, 6);
  });
});

describe('uploaded hours', () => {
  it('turns hrs lines into opening_hours', () => {
    expect(hrsToOpeningHours(['Mon-Fri: 6:00 AM - 12:00 AM', 'Sat: 8:00 AM - 10:30 PM', 'Sun: Closed'])).toBe(
      'Mo-Fr 06:00-24:00; Sa 08:00-22:30; Su off',
    );
    expect(hrsToOpeningHours(['Mon-Sun: 24 Hours'])).toBe('Mo-Su 00:00-24:00');
    expect(hrsToOpeningHours(['Mon-Fri: 22:00-02:00'])).toBe('Mo-Fr 22:00-02:00');
    expect(hrsToOpeningHours(['Weekdays: whenever'])).toBeNull();
  });
});

describe('curb offset', () => {
  it('moves a segment 4 m to the right or left of the street direction', async () => {
    const { offsetLine } = await import('./polyline.js');
    // eastbound street at the equator: right = south
    const right = offsetLine(
      [
        [0, 0],
        [0, 0.001],
      ],
      4,
    );
    expect(right[0][0]).toBeCloseTo(-4 / M_PER_DEG, 9);
    expect(right[1][1]).toBeCloseTo(0.001, 9);
    const left = offsetLine(
      [
        [0, 0],
        [0, 0.001],
      ],
      -4,
    );
    expect(left[0][0]).toBeCloseTo(4 / M_PER_DEG, 9);
  });
});

describe('OSM opening hours as hrs text', () => {
  it('renders simple rules in words and keeps complex ones verbatim', () => {
    expect(hoursText('24/7')).toEqual(['Mon-Sun: 24 Hours']);
    expect(hoursText('Mo-Fr 08:00-18:00; Sa 09:00-24:00; Su off')).toEqual([
      'Mon-Fri: 8:00 AM - 6:00 PM',
      'Sat: 9:00 AM - 12:00 AM',
      'Sun: Closed',
    ]);
    expect(hoursText('Mo-Fr 08:00-12:00,13:00-18:00; PH off')).toEqual(['Mo-Fr 08:00-12:00,13:00-18:00', 'PH off']);
  });
});
