import { describe, it, expect } from 'vitest';
import { probeFormatFromRequest } from './request-format.js';

const ACCEPTED =
  'send application/json, application/x-ndjson (or application/jsonl), text/csv, application/xml or text/xml (SUMO FCD)';

describe('probeFormatFromRequest', () => {
  it('maps each accepted media type to its format, ignoring case and a UTF-8 charset', () => {
    const fmt = (ct: string): unknown => (probeFormatFromRequest(ct, {}) as { format: string }).format;
    expect(fmt('application/json')).toBe('json');
    expect(fmt('Application/JSON; charset=UTF-8')).toBe('json');
    expect(fmt('application/x-ndjson')).toBe('ndjson');
    expect(fmt('application/jsonl')).toBe('ndjson');
    expect(fmt('text/csv;charset="utf-8"')).toBe('csv');
    expect(fmt('application/xml')).toBe('fcd');
    expect(fmt('text/xml')).toBe('fcd');
  });

  it('answers 415 listing the accepted types for anything else', () => {
    expect(probeFormatFromRequest('text/plain', {})).toEqual({
      status: 415,
      message: `Content-Type text/plain is not supported; ${ACCEPTED}`,
    });
    expect(probeFormatFromRequest(undefined, {})).toEqual({
      status: 415,
      message: `a Content-Type is required; ${ACCEPTED}`,
    });
    expect(probeFormatFromRequest('text/csv; charset=latin1', {})).toEqual({
      status: 415,
      message: 'charset latin1 is not supported: send UTF-8',
    });
  });

  it('reads the CSV column mapping and header flag from the query', () => {
    expect(
      probeFormatFromRequest('text/csv', { columns: 'trace=vehicle,time=ts:ms,speed=v:mps', header: 'true' }),
    ).toEqual({
      format: 'csv',
      options: {
        columns: {
          trace: { column: 'vehicle', unit: undefined },
          time: { column: 'ts', unit: 'epoch_ms' },
          speed: { column: 'v', unit: 'mps' },
        },
        header: true,
      },
    });
  });

  it('reads the FCD start time and trace prefix', () => {
    expect(
      probeFormatFromRequest('application/xml', { fcdStart: '2026-01-05T07:00:00-05:00', tracePrefix: 'run1-' }),
    ).toEqual({ format: 'fcd', options: { fcdStartS: 1_767_614_400, tracePrefix: 'run1-' } });
  });

  it('answers 400 naming a malformed or misplaced format parameter', () => {
    expect(probeFormatFromRequest('text/csv', { columns: 'speed=v:furlongs' })).toEqual({
      status: 400,
      parameter: 'columns',
      message: 'columns: unknown speed unit "furlongs" for column v (use mps, kph, mph or knots)',
    });
    expect(probeFormatFromRequest('application/json', { columns: 'speed=v:mps' })).toEqual({
      status: 400,
      parameter: 'columns',
      message: 'columns: applies to text/csv bodies only',
    });
    expect(probeFormatFromRequest('text/csv', { columns: ['a=b', 'c=d'] })).toEqual({
      status: 400,
      parameter: 'columns',
      message: 'columns: give it once, as text',
    });
    expect(probeFormatFromRequest('text/csv', { header: 'maybe' })).toEqual({
      status: 400,
      parameter: 'header',
      message: 'header: must be true or false',
    });
    expect(probeFormatFromRequest('text/xml', { fcdStart: 'dawn' })).toEqual({
      status: 400,
      parameter: 'fcdStart',
      message: 'fcdStart: "dawn" is not ISO 8601 or unix time',
    });
  });

  it('leaves other query parameters to the caller', () => {
    expect(probeFormatFromRequest('application/x-ndjson', { wait: 'true' })).toEqual({ format: 'ndjson', options: {} });
  });
});
