import { describe, expect, it } from 'vitest';
import { parseMaxspeedKph } from './maxspeed.js';
import { carAccess, interpretWay, parseDurationS, parseOneway } from './road-tags.js';
import { interpretCurb } from './curb-tags.js';
import { parseRestriction } from './restriction.js';
import { countryAt, defaultSpeedKph } from './country.js';

describe('parseMaxspeedKph', () => {
  it('reads km/h, mph, knots, none, walk and zone values', () => {
    expect(parseMaxspeedKph('50')).toBe(50);
    expect(parseMaxspeedKph('50 km/h')).toBe(50);
    expect(parseMaxspeedKph('25 mph')).toBe(40.2);
    expect(parseMaxspeedKph('25mph')).toBe(40.2);
    expect(parseMaxspeedKph('5 knots')).toBe(9.3);
    expect(parseMaxspeedKph('none')).toBe(140);
    expect(parseMaxspeedKph('walk')).toBe(7);
    expect(parseMaxspeedKph('FR:urban')).toBe(50);
    expect(parseMaxspeedKph('US:urban')).toBe(40.2);
    expect(parseMaxspeedKph('DE:zone30')).toBe(30);
    expect(parseMaxspeedKph('50;30')).toBe(50);
  });

  it('returns undefined for values that name no limit', () => {
    for (const v of [undefined, '', 'signals', 'variable', '0', 'fast']) expect(parseMaxspeedKph(v)).toBeUndefined();
  });
});

describe('interpretWay', () => {
  it('keeps driveways, parking aisles and private roads out of the car graph', () => {
    expect(interpretWay({ highway: 'service', service: 'driveway' }, 'US')).toBeNull();
    expect(interpretWay({ highway: 'service', service: 'parking_aisle' }, 'US')).toBeNull();
    expect(interpretWay({ highway: 'residential', access: 'private' }, 'US')).toBeNull();
    expect(interpretWay({ highway: 'residential', motor_vehicle: 'no' }, 'US')).toBeNull();
    expect(interpretWay({ highway: 'footway' }, 'US')).toBeNull();
    expect(interpretWay({ highway: 'pedestrian', area: 'yes' }, 'US')).toBeNull();
    expect(interpretWay({ highway: 'service', service: 'alley' }, 'US')?.roadClass).toBe('service');
  });

  it('lets the most specific access tag win and flags destination-only roads', () => {
    expect(carAccess({ access: 'no', motor_vehicle: 'yes' })).toBe('yes');
    expect(carAccess({ motor_vehicle: 'no', motorcar: 'destination' })).toBe('destination');
    expect(interpretWay({ highway: 'residential', access: 'destination' }, 'US')?.destinationOnly).toBe(true);
    expect(interpretWay({ highway: 'residential', access: 'no', motorcar: 'yes' }, 'US')).not.toBeNull();
  });

  it('reads oneway values and their implications', () => {
    expect(['yes', '1', 'true', '-1', 'reverse', 'no', 'reversible', 'alternating', 'maybe'].map(parseOneway)).toEqual([
      1,
      1,
      1,
      -1,
      -1,
      0,
      2,
      2,
      undefined,
    ]);
    const p = interpretWay({ highway: 'motorway_link' }, 'US')!;
    expect([p.forward, p.backward, p.link, p.highwayFlag]).toEqual([true, false, true, true]);
    const r = interpretWay({ highway: 'tertiary', junction: 'circular' }, 'FR')!;
    expect([r.forward, r.backward, r.roundabout]).toEqual([true, false, true]);
    const b = interpretWay({ highway: 'residential', oneway: '-1' }, 'US')!;
    expect([b.forward, b.backward]).toEqual([false, true]);
  });

  it('reads HOV, express, tunnel, bridge, vignette and lanes', () => {
    const p = interpretWay(
      {
        highway: 'motorway',
        hov: 'designated',
        tunnel: 'yes',
        bridge: 'no',
        lanes: '3',
        toll: 'yes',
        'toll:hov': 'no',
      },
      'US',
    )!;
    expect([p.hov, p.express, p.tunnel, p.bridge, p.toll, p.lanesForward, p.lanesBackward]).toEqual([
      true,
      true,
      true,
      false,
      true,
      3,
      0,
    ]);
    expect(interpretWay({ highway: 'motorway', 'hov:lanes': 'designated|yes|yes' }, 'US')!.hov).toBe(true);
    // an HOV-only roadway (access=no + hov=designated) stays in the graph, flagged hov
    expect(interpretWay({ highway: 'motorway', access: 'no', hov: 'designated' }, 'US')?.hov).toBe(true);
    expect(interpretWay({ highway: 'motorway', access: 'no', hov: 'no' }, 'US')).toBeNull();
    expect(interpretWay({ highway: 'motorway', vignette: 'yes' }, 'AT')!.vignette).toBe(true);
    const two = interpretWay({ highway: 'primary', lanes: '4' }, 'US')!;
    expect([two.lanesForward, two.lanesBackward]).toEqual([2, 2]);
    const asym = interpretWay({ highway: 'primary', lanes: '3', 'lanes:forward': '2' }, 'US')!;
    expect([asym.lanesForward, asym.lanesBackward]).toEqual([2, 1]);
  });

  it('parses ferry durations', () => {
    expect(['0:30', '01:30:00', '45', 'PT1H30M', 'soon'].map(parseDurationS)).toEqual([
      1800,
      5400,
      2700,
      5400,
      undefined,
    ]);
  });
});

describe('countries and default speeds', () => {
  it('finds countries by position, small countries first', () => {
    expect(countryAt(39.29, -76.61)).toBe('US');
    expect(countryAt(43.738, 7.424)).toBe('MC');
    expect(countryAt(42.51, 1.54)).toBe('AD');
    expect(countryAt(48.85, 2.35)).toBe('FR');
    expect(countryAt(0, 0)).toBe('');
  });

  it('uses mph defaults in the US and km/h defaults in Europe', () => {
    expect(defaultSpeedKph('US', 'residential')).toBe(40.2);
    expect(defaultSpeedKph('US', 'motorway')).toBe(104.6);
    expect(defaultSpeedKph('FR', 'motorway')).toBe(130);
    expect(defaultSpeedKph('', 'primary_link')).toBe(50);
  });
});

describe('interpretCurb', () => {
  it('carries a way-wide charge to the curbs that have parking tags', () => {
    const c = interpretCurb({
      'parking:lane:left': 'parallel',
      'parking:lane:right': 'no_parking',
      charge: '2 USD/hour',
    });
    expect(c.left!.tags).toEqual({ 'parking:lane:left': 'parallel', charge: '2 USD/hour' });
    expect(c.right!.tags).toEqual({ 'parking:lane:right': 'no_parking', charge: '2 USD/hour' });
    expect(interpretCurb({ charge: '2 USD/hour' })).toEqual({ left: null, right: null });
  });

  it('resolves both/left/right in the old scheme, side keys winning', () => {
    const c = interpretCurb({
      'parking:lane:both': 'parallel',
      'parking:lane:right': 'no_parking',
      'parking:condition:both': 'free',
    });
    expect(c.left).toMatchObject({ kind: 'parallel', condition: 'free' });
    expect(c.right).toMatchObject({ kind: 'no_parking', condition: 'free' });
  });

  it('reads the 2022 scheme restriction, maxstay and separate sides', () => {
    const c = interpretCurb({
      'parking:left': 'no',
      'parking:left:restriction': 'no_stopping',
      'parking:right': 'separate',
    });
    expect(c.left).toMatchObject({ kind: 'no_stopping', condition: 'no_stopping' });
    expect(c.right).toBeNull();
    const d = interpretCurb({
      'parking:right': 'street_side',
      'parking:right:orientation': 'diagonal',
      'parking:right:maxstay': '1 hour',
      'parking:right:capacity': '12',
    });
    expect(d.right).toMatchObject({ kind: 'diagonal', maxStay: '1 hour', capacity: 12 });
    expect(d.left).toBeNull();
  });
});

describe('parseRestriction', () => {
  const rel = (tags: Record<string, string>) => ({
    id: 1,
    tags,
    members: [
      { type: 'way' as const, ref: 10, role: 'from' },
      { type: 'node' as const, ref: 5, role: 'via' },
      { type: 'way' as const, ref: 11, role: 'to' },
    ],
  });

  it('reads no_* and only_* restrictions including restriction:motorcar', () => {
    expect(parseRestriction(rel({ type: 'restriction', restriction: 'no_u_turn' }))).toMatchObject({
      kind: 'no',
      fromWays: [10],
      viaNode: 5,
      toWays: [11],
    });
    expect(parseRestriction(rel({ type: 'restriction', 'restriction:motorcar': 'only_right_turn' }))?.kind).toBe(
      'only',
    );
  });

  it('ignores restrictions that exempt cars or do not apply to them', () => {
    expect(
      parseRestriction(rel({ type: 'restriction', restriction: 'no_left_turn', except: 'bicycle;motorcar' })),
    ).toBeNull();
    expect(parseRestriction(rel({ type: 'restriction', 'restriction:hgv': 'no_left_turn' }))).toBeNull();
    expect(parseRestriction(rel({ type: 'multipolygon' }))).toBeNull();
  });
});
