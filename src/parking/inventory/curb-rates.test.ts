import { describe, it, expect } from 'vitest';
import { DateTime } from 'luxon';
import { curbRates, parseCharge, waySideOf, weekMask, conditionalParts } from './curb-rates.js';
import { blockFromRegion } from './from-osm.js';
import { calculateRates, isOpenAt } from '../rates/calculated-rates.js';
import type { Block, CurbSegment } from '../../network/region.js';
import { buildGraph, RoadClass } from '../../network/graph.js';
import { buildBlocks } from '../../network/blocks.js';

const curb = (side: 'left' | 'right', kind: string, condition: string, tags: Record<string, string>): CurbSegment => ({
  side,
  startM: 0,
  endM: 120,
  kind,
  condition,
  maxStay: '',
  spaces: 20,
  tags,
});

const METER_MO_SA = [
  { dow_start: 1, dow_end: 6, time_in: '00:00', time_out: '08:00', rate: 0 },
  { dow_start: 1, dow_end: 6, time_in: '08:00', time_out: '20:00', rate: 2, increment: 60, repeats: true },
  { dow_start: 1, dow_end: 6, time_in: '20:00', time_out: '24:00', rate: 0 },
  { dow_start: 7, dow_end: 7, time_in: '00:00', time_out: '24:00', rate: 0 },
];

describe('charge values', () => {
  it('reads amounts, currencies and increments', () => {
    expect(parseCharge('2.00 USD/hour')).toEqual({ rate: 2, increment: 60 });
    expect(parseCharge('USD 2/hour')).toEqual({ rate: 2, increment: 60 });
    expect(parseCharge('0.50 EUR/15 minutes')).toEqual({ rate: 0.5, increment: 15 });
    expect(parseCharge('1,50 EUR/30 min')).toEqual({ rate: 1.5, increment: 30 });
    expect(parseCharge('12 EUR/day')).toEqual({ rate: 12, increment: 1440 });
    expect(parseCharge('2 EUR/2 hours')).toEqual({ rate: 2, increment: 120 });
    expect(parseCharge('free')).toEqual({ rate: 0, increment: 60 });
    expect(parseCharge('ask inside')).toBeNull();
  });
  it('splits conditional values', () => {
    expect(conditionalParts('2 USD/hour @ (Mo-Sa 08:00-20:00; PH off); 1 USD/hour @ Su')).toEqual([
      { value: '2 USD/hour', condition: 'Mo-Sa 08:00-20:00; PH off' },
      { value: '1 USD/hour', condition: 'Su' },
    ]);
    expect(conditionalParts('2 USD/hour')).toBeNull();
  });
  it('reads a time interval into minutes of the week', () => {
    const m = weekMask('Mo-Sa 08:00-20:00')!;
    expect(m.reduce((a, b) => a + b, 0)).toBe(6 * 12 * 60);
    expect(m[8 * 60]).toBe(1);
    expect(m[8 * 60 - 1]).toBe(0);
    expect(m[5 * 1440 + 19 * 60 + 59]).toBe(1);
    expect(m[6 * 1440 + 10 * 60]).toBe(0);
    expect(weekMask('not hours at all')).toBeNull();
  });
});

describe('curb rates from tags', () => {
  it('uses parking:condition:both:charge within parking:condition:both:time_interval, free outside', () => {
    const tags = {
      'parking:lane:both': 'parallel',
      'parking:condition:both': 'ticket',
      'parking:condition:both:time_interval': 'Mo-Sa 08:00-20:00',
      'parking:condition:both:charge': '2.00 USD/hour',
    };
    expect(curbRates(curb('left', 'parallel', 'ticket', tags))).toEqual(METER_MO_SA);
    expect(curbRates(curb('right', 'parallel', 'ticket', tags))).toEqual(METER_MO_SA);
  });
  it('takes the way side the tags carry, not the block side (block running against its way)', () => {
    // the block's left curb is the way's right side: its tags carry `right` keys
    const tags = {
      'parking:lane:right': 'parallel',
      'parking:condition:right': 'ticket',
      'parking:condition:right:charge': '2.50 USD/hour',
    };
    const c = curb('left', 'parallel', 'ticket', tags);
    expect(waySideOf(c)).toBe('right');
    expect(curbRates(c)).toEqual([
      { dow_start: 1, dow_end: 7, time_in: '00:00', time_out: '24:00', rate: 2.5, increment: 60, repeats: true },
    ]);
    // a side-specific key wins over both
    const both = { ...tags, 'parking:condition:both:charge': '9.00 USD/hour' };
    expect(curbRates(curb('left', 'parallel', 'ticket', both))![0].rate).toBe(2.5);
  });
  it('chooses by the block side only when the tags carry both way sides', () => {
    const tags = {
      'parking:left:charge': '1.00 USD/hour',
      'parking:right:charge': '3.00 USD/hour',
      'parking:left': 'lane',
      'parking:right': 'lane',
    };
    expect(curbRates(curb('left', 'parallel', 'ticket', tags))![0].rate).toBe(1);
    expect(curbRates(curb('right', 'parallel', 'ticket', tags))![0].rate).toBe(3);
  });
  it('reads the 2022 scheme parking:<side>:charge and plain charge', () => {
    expect(
      curbRates(
        curb('right', 'parallel', 'ticket', {
          'parking:left': 'lane',
          'parking:left:fee': 'yes',
          'parking:left:charge': '2.50 USD/hour',
        }),
      )![0],
    ).toMatchObject({ rate: 2.5, increment: 60, repeats: true });
    expect(
      curbRates(
        curb('right', 'parallel', 'ticket', { 'parking:lane:right': 'parallel', charge: '0.50 EUR/15 minutes' }),
      )![0],
    ).toMatchObject({ rate: 0.5, increment: 15 });
    // a meter without a price: unknown
    expect(
      curbRates(
        curb('right', 'parallel', 'ticket', { 'parking:lane:right': 'parallel', 'parking:condition:right': 'ticket' }),
      ),
    ).toBeNull();
  });
  it('limits the fee to parking:<side>:fee:conditional and prices windows of parking:<side>:charge:conditional', () => {
    expect(
      curbRates(
        curb('left', 'parallel', '', {
          'parking:left': 'lane',
          'parking:left:fee:conditional': 'yes @ (Mo-Sa 08:00-20:00)',
          'parking:left:charge': '2 USD/hour',
        }),
      ),
    ).toEqual(METER_MO_SA);
    const r = curbRates(
      curb('left', 'parallel', 'ticket', {
        'parking:left': 'lane',
        'parking:left:fee': 'yes',
        'parking:left:charge': '2 USD/hour',
        'parking:left:charge:conditional': '3 USD/hour @ (Mo-Fr 12:00-14:00); 0 @ Su',
      }),
    );
    expect(r).toEqual([
      { dow_start: 1, dow_end: 5, time_in: '00:00', time_out: '12:00', rate: 2, increment: 60, repeats: true },
      { dow_start: 1, dow_end: 5, time_in: '12:00', time_out: '14:00', rate: 3, increment: 60, repeats: true },
      { dow_start: 1, dow_end: 5, time_in: '14:00', time_out: '24:00', rate: 2, increment: 60, repeats: true },
      { dow_start: 6, dow_end: 6, time_in: '00:00', time_out: '24:00', rate: 2, increment: 60, repeats: true },
      { dow_start: 7, dow_end: 7, time_in: '00:00', time_out: '24:00', rate: 0 },
    ]);
  });
  it('applies parking:condition:<side>:default outside the interval, and rejects unreadable intervals', () => {
    const r = curbRates(
      curb('right', 'parallel', 'free', {
        'parking:lane:right': 'parallel',
        'parking:condition:right': 'free',
        'parking:condition:right:time_interval': 'Mo-Fr 07:00-19:00',
        'parking:condition:right:default': 'no_parking',
      }),
    );
    expect(r).toEqual([
      { dow_start: 1, dow_end: 5, time_in: '00:00', time_out: '07:00', rate: -1 },
      { dow_start: 1, dow_end: 5, time_in: '07:00', time_out: '19:00', rate: 0 },
      { dow_start: 1, dow_end: 5, time_in: '19:00', time_out: '24:00', rate: -1 },
      { dow_start: 6, dow_end: 7, time_in: '00:00', time_out: '24:00', rate: -1 },
    ]);
    expect(
      curbRates(
        curb('right', 'parallel', 'ticket', {
          'parking:condition:right:time_interval': 'whenever',
          'parking:condition:right:charge': '2 USD/hour',
        }),
      ),
    ).toBeNull();
  });
});

describe('metered block segments', () => {
  const geometry: Array<[number, number]> = [
    [39.28, -76.61],
    [39.28, -76.6086],
  ];
  const block: Block = {
    id: 7,
    name: 'Pratt St',
    fromNode: 0,
    toNode: 1,
    edges: [0],
    geometry,
    lengthM: 120,
    curb: [
      curb('left', 'parallel', 'ticket', {
        'parking:lane:right': 'parallel',
        'parking:condition:right': 'ticket',
        'parking:condition:right:maxstay': '2 hours',
        'parking:condition:right:time_interval': 'Mo-Sa 08:00-20:00',
        'parking:condition:right:charge': '2.00 USD/hour',
      }),
      curb('right', 'no_stopping', '', { 'parking:lane:left': 'no_stopping' }),
    ],
  };
  const rec = blockFromRegion(block, new Map(), 'USD');
  const opts = { tz: 'America/New_York', isHoliday: () => false, permits: new Set<string>() };
  const at = (iso: string): number => DateTime.fromISO(iso, { zone: opts.tz }).toSeconds();

  it('prices the metered curb by the meter hours (Monday 10:00 paid, Sunday 10:00 free, Saturday 19:00 one paid hour)', () => {
    const left = rec.segments.find((s) => s.side === 'LEFT')!;
    expect(left.fields.structuredRates).toEqual(METER_MO_SA);
    expect(calculateRates(left.frames, at('2026-11-23T10:00'), [60, 120], opts)).toEqual([
      { rate_cost: 2, quoted_duration: '01:00:00', rate_type: 'B' },
      { rate_cost: 4, quoted_duration: '02:00:00', rate_type: 'B' },
    ]);
    expect(calculateRates(left.frames, at('2026-11-22T10:00'), [60, 120], opts)!.map((r) => r.rate_cost)).toEqual([
      0, 0,
    ]);
    expect(calculateRates(left.frames, at('2026-11-21T19:00'), [180], opts)!.map((r) => r.rate_cost)).toEqual([2]);
    expect(isOpenAt(left.frames, at('2026-11-22T10:00'), opts)).toBe(true);
  });
  it('keeps the other curb No Parking', () => {
    const right = rec.segments.find((s) => s.side === 'RIGHT')!;
    expect(right.neverOpen).toBe(true);
    expect(isOpenAt(right.frames, at('2026-11-23T10:00'), opts)).toBe(false);
  });
});

describe('a block running against its OSM way (network → inventory)', () => {
  it('prices the block-left curb from the way-right tags', () => {
    // way 500 is drawn east → west (node 1 → node 0); the block starts at node 0 and runs west → east
    const { graph } = buildGraph({
      nodes: [
        { lat: 39.28, lon: -76.61, osmId: 10 },
        { lat: 39.28, lon: -76.6086, osmId: 11 },
      ],
      edges: [
        { source: 1, target: 0, speedKph: 30, roadClass: RoadClass.residential, wayId: 500, name: 'Pratt St', twin: 1 },
        { source: 0, target: 1, speedKph: 30, roadClass: RoadClass.residential, wayId: 500, name: 'Pratt St', twin: 0 },
      ],
    });
    const edgeAlongWay = new Uint8Array(graph.edgeCount);
    for (let e = 0; e < graph.edgeCount; e++) edgeAlongWay[e] = graph.edgeSource[e] === 1 ? 1 : 0;
    // the way's right side (north when drawn east → west) is metered, its left (south) is no stopping
    const wayTags = new Map([
      [
        500,
        {
          'parking:lane:right': 'parallel',
          'parking:condition:right': 'ticket',
          'parking:condition:right:charge': '2.50 USD/hour',
          'parking:condition:right:time_interval': 'Mo-Sa 08:00-20:00',
          'parking:lane:left': 'no_stopping',
        },
      ],
    ]);
    const [block] = buildBlocks({ graph, edgeAlongWay, wayTags });
    expect(block.geometry[0]).toEqual([39.28, -76.61]);
    const rec = blockFromRegion(block, new Map(), 'USD');
    const left = rec.segments.find((s) => s.side === 'LEFT')!;
    const right = rec.segments.find((s) => s.side === 'RIGHT')!;
    expect(left.fields.structuredRates).toContainEqual({
      dow_start: 1,
      dow_end: 6,
      time_in: '08:00',
      time_out: '20:00',
      rate: 2.5,
      increment: 60,
      repeats: true,
    });
    expect(right.neverOpen).toBe(true);
    // the LEFT segment is drawn north of the centre line
    expect(left.geometry[0][0]).toBeGreaterThan(39.28);
  });
});
