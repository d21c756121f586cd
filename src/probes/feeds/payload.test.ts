import { describe, it, expect } from 'vitest';
import { pingsFromPayload } from './payload.js';

const T0 = 1_767_600_000;
const ping = (id: string, dt: number): Record<string, unknown> => ({
  traceId: id,
  timestamp: T0 + dt,
  lat: 39.29,
  lon: -76.61,
});
const rec = (id: string, dt: number): unknown => ({ traceId: id, ping: { tS: T0 + dt, lat: 39.29, lon: -76.61 } });

describe('pingsFromPayload', () => {
  it('reads one ping object, an array, {"pings": [...]} and NDJSON lines', () => {
    expect(pingsFromPayload(JSON.stringify(ping('a', 0)))).toEqual({ records: [rec('a', 0)], issues: [] });
    expect(pingsFromPayload(JSON.stringify([ping('a', 0), ping('b', 1)]))).toEqual({
      records: [rec('a', 0), rec('b', 1)],
      issues: [],
    });
    expect(pingsFromPayload(JSON.stringify({ pings: [ping('a', 0)], fleet: 'x' }))).toEqual({
      records: [rec('a', 0)],
      issues: [],
    });
    expect(pingsFromPayload(`${JSON.stringify(ping('a', 0))}\r\n\n${JSON.stringify(ping('a', 5))}\n`)).toEqual({
      records: [rec('a', 0), rec('a', 5)],
      issues: [],
    });
  });

  it('reports malformed pings by index or line and keeps the good ones', () => {
    expect(
      pingsFromPayload(JSON.stringify([ping('a', 0), { traceId: 'a', timestamp: 'soon', lat: 1, lon: 2 }])),
    ).toEqual({
      records: [rec('a', 0)],
      issues: [{ index: 1, message: 'timestamp "soon" is not epoch seconds/milliseconds or ISO 8601' }],
    });
    expect(pingsFromPayload(`${JSON.stringify(ping('a', 0))}\n{broken`)).toEqual({
      records: [rec('a', 0)],
      issues: [{ line: 2, message: 'not valid JSON' }],
    });
  });

  it('finds no ping in an empty, non-JSON or unrelated message', () => {
    expect(pingsFromPayload('  ')).toEqual({ records: [], issues: [{ message: 'empty message' }] });
    expect(pingsFromPayload('hello')).toEqual({ records: [], issues: [{ line: 1, message: 'not valid JSON' }] });
    expect(pingsFromPayload('{"unrelated":true}')).toEqual({
      records: [],
      issues: [{ index: 0, message: 'trace_id is empty' }],
    });
  });
});
