import { describe, it, expect } from 'vitest';
import { Readable } from 'node:stream';
import { readProbes, formatFromFileName, type ReadProbesOptions } from './ingest.js';
import { ProbeFormatError } from './errors.js';
import { normalizeHeader } from './csv-header-names.js';
import { parseColumnMapping } from './csv-mapping.js';
import type { ParseIssue, ProbeFormatName, ProbeRecord } from './records.js';

const T0 = 1_767_600_000; // 2026-01-05T08:00:00Z

/** Reads all records of a text (optionally split into chunks of `chunk` bytes). */
async function read(
  format: ProbeFormatName,
  text: string,
  opts: ReadProbesOptions = {},
  chunk?: number,
): Promise<{ records: ProbeRecord[]; issues: ParseIssue[] }> {
  const buf = Buffer.from(text);
  const parts: Buffer[] = [];
  if (chunk === undefined) parts.push(buf);
  else for (let i = 0; i < buf.length; i += chunk) parts.push(buf.subarray(i, i + chunk));
  const issues: ParseIssue[] = [];
  const records: ProbeRecord[] = [];
  for await (const r of readProbes(Readable.from(parts), format, (i) => issues.push(i), opts)) records.push(r);
  return { records, issues };
}

/** Reads and expects a ProbeFormatError; also checks that no record came out before it. */
async function formatError(
  format: ProbeFormatName,
  text: string,
  opts: ReadProbesOptions = {},
): Promise<ProbeFormatError> {
  const got: ProbeRecord[] = [];
  try {
    for await (const r of readProbes(Readable.from([Buffer.from(text)]), format, () => {}, opts)) got.push(r);
  } catch (err) {
    expect(got).toEqual([]);
    expect(err).toBeInstanceOf(ProbeFormatError);
    return err as ProbeFormatError;
  }
  throw new Error('expected a ProbeFormatError');
}

describe('CSV headers', () => {
  it('reads common header names in any order, with the unit a speed column names', async () => {
    const { records, issues } = await read(
      'csv',
      [
        'bearing,speed_mps,longitude,latitude,timestamp_iso_utc,vehicle_id',
        `370,10,-76.61,39.29,2026-01-05T08:00:00Z,bus-7`,
        `90,,-76.611,39.291,2026-01-05T03:00:05-05:00,bus-7`,
      ].join('\n'),
    );
    expect(issues).toEqual([]);
    expect(records).toEqual([
      { traceId: 'bus-7', ping: { tS: T0, lat: 39.29, lon: -76.61, speedKph: 36, headingDeg: 10 } },
      { traceId: 'bus-7', ping: { tS: T0 + 5, lat: 39.291, lon: -76.611, headingDeg: 90 } },
    ]);
  });

  it('converts m/s, km/h, mph and knots to km/h', async () => {
    const rows = (unit: string): string => `device_id,time,lat,lon,${unit}\nd,${T0},39.29,-76.61,10\n`;
    const kph = async (unit: string): Promise<number | undefined> =>
      (await read('csv', rows(unit))).records[0].ping.speedKph;
    expect(await kph('speed_mps')).toBe(36);
    expect(await kph('speed_ms')).toBe(36);
    expect(await kph('speed_kph')).toBe(10);
    expect(await kph('speed_kmh')).toBe(10);
    expect(await kph('Speed (km/h)')).toBe(10);
    expect(await kph('speed_mph')).toBeCloseTo(16.09344, 9);
    expect(await kph('speed_knots')).toBeCloseTo(18.52, 9);
    expect(await kph('speedKnots')).toBeCloseTo(18.52, 9);
  });

  it('reads ISO 8601, epoch seconds and epoch milliseconds, by column name or detected', async () => {
    const one = async (header: string, value: string): Promise<number> => {
      const { records, issues } = await read('csv', `id,${header},lat,lon\na,${value},39.29,-76.61\n`);
      expect(issues).toEqual([]);
      return records[0].ping.tS;
    };
    expect(await one('timestamp', '2026-01-05T08:00:00Z')).toBe(T0);
    expect(await one('timestamp', `${T0}`)).toBe(T0);
    expect(await one('timestamp', `${T0}250`)).toBe(T0 + 0.25);
    expect(await one('epoch', `${T0}`)).toBe(T0);
    expect(await one('epoch_ms', `${T0}000`)).toBe(T0);
    expect(await one('timestampMs', `${T0}500`)).toBe(T0 + 0.5);
    expect(await one('timestamp_iso_utc', '2026-01-05 08:00:00')).toBe(T0);
  });

  it('reports a timestamp that does not fit its column unit, by line, and reads the other rows', async () => {
    const { records, issues } = await read(
      'csv',
      `trip_id,epoch_s,lat,lon\na,${T0}000,39.29,-76.61\na,${T0},39.29,-76.61\nb,2026-01-05T08:00:00Z,39.29,-76.61\n`,
    );
    expect(records.map((r) => r.ping.tS)).toEqual([T0]);
    expect(issues).toEqual([
      { line: 2, message: `epoch_s "${T0}000" is outside 1970..2100 as epoch seconds (milliseconds? use unit ms)` },
      { line: 4, message: 'epoch_s "2026-01-05T08:00:00Z" is not a number of epoch seconds' },
    ]);
  });

  it('reads a bare speed column as km/h, the rule of JSON pings too', async () => {
    const { records } = await read('csv', `trace_id,timestamp,lat,lon,speed,heading\na,${T0},39.29,-76.61,30,90\n`);
    expect(records[0].ping.speedKph).toBe(30);
    const json = await read('ndjson', `{"id":"a","t":${T0},"lat":39.29,"lon":-76.61,"speed":30}\n`);
    expect(json.records[0].ping.speedKph).toBe(30);
  });

  it('reads a bare speed column with the unit a mapping gives it, or skips it with "-"', async () => {
    const csv = `trace_id,timestamp,lat,lon,speed\na,${T0},39.29,-76.61,30\n`;
    expect((await read('csv', csv, { columns: 'speed=speed:mph' })).records[0].ping.speedKph).toBeCloseTo(48.28032, 9);
    expect((await read('csv', csv, { columns: 'speed=-' })).records[0].ping).toEqual({
      tS: T0,
      lat: 39.29,
      lon: -76.61,
    });
  });

  it('prefers a speed column that names its unit over a bare one', async () => {
    const { records } = await read('csv', `id,t,lat,lon,speed,speed_kph\na,${T0},39.29,-76.61,99,42\n`);
    expect(records[0].ping.speedKph).toBe(42);
  });

  it('names the missing required column', async () => {
    const err = await formatError('csv', `vehicle,lat,lon\na,39.29,-76.61\n`);
    expect(err.code).toBe('PROBES_CSV_MISSING_COLUMN');
    expect(err.column).toBe('time');
    expect(err.message).toBe(
      'CSV header has no time column (looked for timestamp, time, t, timestamp_iso_utc, epoch, epoch_ms, …); header: vehicle, lat, lon; map one with columns=time=<name>',
    );
  });

  it('names every missing required column at once', async () => {
    const err = await formatError('csv', `vehicle,when,y_deg,x_deg\na,${T0},39.29,-76.61\n`);
    expect(err.column).toBe('time,lat,lon');
    expect(err.message).toMatch(/^CSV header has no time column \(.*\), no lat column \(.*\), no lon column \(.*\);/);
    expect(err.message).toMatch(/map them with columns=time=<name>,lat=<name>,lon=<name>$/);
    expect(err.details.mapping).toBe('time=<name>,lat=<name>,lon=<name>');
  });

  it('says a semicolon-separated file needs commas', async () => {
    const err = await formatError('csv', `trace_id;timestamp;lat;lon\na;${T0};39.29;-76.61\n`);
    expect(err.code).toBe('PROBES_CSV_MISSING_COLUMN');
    expect(err.message).toMatch(/the header is one column holding ";": this reader splits columns on commas only/);
  });

  it('reads ts_iso as an ISO 8601 time column', async () => {
    const { records, issues } = await read('csv', `vehicle_id,ts_iso,lat,lon\na,2026-01-05T08:00:00Z,39.29,-76.61\n`);
    expect(issues).toEqual([]);
    expect(records[0].ping.tS).toBe(Date.UTC(2026, 0, 5, 8) / 1000);
  });

  it('reports out-of-range speeds in the column unit and short rows by line', async () => {
    const { records, issues } = await read(
      'csv',
      `id,t,lat,lon,speed_mps\na,${T0},39.29,-76.61,150\na,${T0 + 1}\na,${T0 + 2},39.29,-76.61,-1\n`,
    );
    expect(records).toEqual([]);
    expect(issues).toEqual([
      { line: 2, message: 'speed_mps "150" is not a speed in m/s (0..138.9)' },
      { line: 3, message: 'expected at least 4 columns, got 2' },
      { line: 4, message: 'speed_mps "-1" is not a speed in m/s (0..138.9)' },
    ]);
  });
});

describe('CSV column mapping', () => {
  const header = 'vehicle,ts,y,x,v,dir';
  const row = `car-1,${T0}123,39.3,-76.6,12.5,45`;

  it('maps fields to columns with units', async () => {
    const { records, issues } = await read('csv', `${header}\n${row}\n`, {
      columns: 'trace=vehicle,time=ts:epoch_ms,lat=y,lon=x,speed=v:mps,heading=dir',
    });
    expect(issues).toEqual([]);
    expect(records).toEqual([
      { traceId: 'car-1', ping: { tS: T0 + 0.123, lat: 39.3, lon: -76.6, speedKph: 45, headingDeg: 45 } },
    ]);
  });

  it('maps by 1-based column number, with or without a header', async () => {
    const cols = 'trace=1,time=2:ms,lat=3,lon=4,speed=5:kph,heading=6';
    const withHeader = await read('csv', `${header}\n${row}\n`, { columns: cols, header: true });
    const without = await read('csv', `${row}\n`, { columns: cols });
    expect(without.records).toEqual(withHeader.records);
    expect(without.records[0].ping.speedKph).toBe(12.5);
  });

  it('parses the mapping syntax', () => {
    expect(parseColumnMapping('trace=vehicle, time=ts:ms ,lat=3,speed=-,heading=dir:deg')).toEqual({
      trace: { column: 'vehicle', unit: undefined },
      time: { column: 'ts', unit: 'epoch_ms' },
      lat: { column: 3, unit: undefined },
      speed: null,
      heading: { column: 'dir', unit: undefined },
    });
  });

  it('rejects an unknown unit, field or column, naming it', async () => {
    const unit = await formatError('csv', `${header}\n${row}\n`, { columns: 'speed=v:fps' });
    expect([unit.code, unit.column, unit.message]).toEqual([
      'PROBES_CSV_UNKNOWN_UNIT',
      'v',
      'columns: unknown speed unit "fps" for column v (use mps, kph, mph or knots)',
    ]);
    // a mapped speed column without a unit is km/h, as everywhere (docs/decisions/031)
    const noUnit = await read('csv', `${header}\n${row}\n`, { columns: 'trace=vehicle,time=ts,lat=y,lon=x,speed=v' });
    expect(noUnit.records[0].ping.speedKph).toBe(12.5);
    const col = await formatError('csv', `${header}\n${row}\n`, { columns: 'speed=velocity:mps' });
    expect([col.code, col.column]).toEqual(['PROBES_CSV_UNKNOWN_COLUMN', 'velocity']);
    expect(() => parseColumnMapping('colour=v')).toThrow(/unknown field "colour"/);
    expect(() => parseColumnMapping('time=ts:fortnights')).toThrow(/unknown time unit "fortnights" for column ts/);
    expect(() => parseColumnMapping('lat=-')).toThrow(/lat is required/);
    expect(() => parseColumnMapping('lat=y,lat=x')).toThrow(/mapped twice/);
    expect(() => parseColumnMapping('speed')).toThrow(/"speed" is not field=column\[:unit\]/);
  });

  it('does not let an auto-detected field take a mapped column', async () => {
    // lat is mapped to x: lon must not be read from x too, and there is no other lon column.
    const err = await formatError('csv', 'id,t,x,q\na,1,2,3\n', { columns: 'lat=x' });
    expect([err.code, err.column]).toEqual(['PROBES_CSV_MISSING_COLUMN', 'lon']);
  });
});

describe('headerless CSV', () => {
  it('reads trace_id,timestamp,lat,lon by position', async () => {
    const { records } = await read('csv', `t1,${T0}000,39.29,-76.61\n`);
    expect(records).toEqual([{ traceId: 't1', ping: { tS: T0, lat: 39.29, lon: -76.61 } }]);
  });

  it('refuses more than four columns without a mapping: a fifth could be a speed in any unit', async () => {
    const err = await formatError('csv', `t1,${T0},39.29,-76.61,42.5,370\n`);
    expect(err.code).toBe('PROBES_CSV_AMBIGUOUS_COLUMNS');
    expect(err.message).toMatch(/^CSV without a header has 6 columns; .*columns=speed=5:kph,heading=6/);
  });
});

describe('JSON bodies', () => {
  const ping = (i: number): string =>
    `{"traceId":"v${i % 2}","timestamp":${T0 + i},"lat":39.29,"lon":-76.61,"speedKph":${i}}`;

  it('streams the pings array of an object, skipping other keys (even nested "pings")', async () => {
    const body = `{"source":{"pings":[1,2],"name":"fleet"},"pings":[${ping(0)},${ping(1)}],"count":2,"tail":[{"pings":3}]}`;
    const { records, issues } = await read('json', body);
    expect(issues).toEqual([]);
    expect(records).toEqual([
      { traceId: 'v0', ping: { tS: T0, lat: 39.29, lon: -76.61, speedKph: 0 } },
      { traceId: 'v1', ping: { tS: T0 + 1, lat: 39.29, lon: -76.61, speedKph: 1 } },
    ]);
  });

  it('reads a top-level array, byte by byte, with multi-byte characters split across chunks', async () => {
    const body = `[{"trace_id":"café-7","time":"2026-01-05T08:00:00Z","latitude":39.29,"lng":-76.61,"speed_mps":10,"bearing":-90}]`;
    const { records } = await read('json', body, {}, 1);
    expect(records).toEqual([
      { traceId: 'café-7', ping: { tS: T0, lat: 39.29, lon: -76.61, speedKph: 36, headingDeg: 270 } },
    ]);
  });

  it('reports malformed pings by array index and keeps the rest', async () => {
    const { records, issues } = await read(
      'json',
      `{"pings":[${ping(0)},42,{"traceId":"x","timestamp":"soon","lat":1,"lon":2},[1],${ping(4)}]}`,
    );
    expect(records.map((r) => r.ping.tS)).toEqual([T0, T0 + 4]);
    expect(issues).toEqual([
      { index: 1, message: 'expected a JSON object' },
      { index: 2, message: 'timestamp "soon" is not epoch seconds/milliseconds or ISO 8601' },
      { index: 3, message: 'expected a JSON object' },
    ]);
  });

  it('refuses bodies of the wrong shape before reading any ping', async () => {
    expect((await formatError('json', '"hello"')).message).toBe(
      'a JSON body must be an object with a "pings" array or an array of pings; it starts with a string',
    );
    expect((await formatError('json', '{"data":[{"traceId":"a"}]}')).message).toMatch(/the object has no "pings" key$/);
    expect((await formatError('json', '{"pings":{"a":1}}')).message).toBe('"pings" must be an array, got a object');
    expect((await formatError('json', '   ')).message).toMatch(/the body is empty$/);
    expect((await formatError('json', '{"pings":[oops]}')).code).toBe('PROBES_JSON_SYNTAX');
  });

  it('stops at a syntax error after the first pings, reporting it, and keeps what came before', async () => {
    const { records, issues } = await read('json', `{"pings":[${ping(0)},${ping(1)},{"traceId":`, {}, 16);
    expect(records).toHaveLength(2);
    expect(issues).toHaveLength(1);
    expect(issues[0].index).toBe(2);
    expect(issues[0].message).toMatch(/^JSON syntax error after ping 1, rest of the body skipped/);
  });
});

describe('NDJSON', () => {
  it('reads one ping per line under both names, with unit-carrying field names', async () => {
    const text = `{"vehicle_id":"a","epoch_ms":${T0}000,"lat":39.29,"lon":-76.61,"speed_mph":10}\n\n{"deviceId":"b","t":${T0},"lat":39.3,"lon":-76.6,"speedKnots":10}\n`;
    for (const name of ['ndjson', 'jsonl'] as const) {
      const { records, issues } = await read(name, text);
      expect(issues).toEqual([]);
      expect(records.map((r) => [r.traceId, r.ping.tS, r.ping.speedKph])).toEqual([
        ['a', T0, 16.09344],
        ['b', T0, 18.52],
      ]);
    }
  });
});

describe('formats', () => {
  it('guesses the format from a file name', () => {
    expect(
      ['a.csv', 'a.csv.gz', 'a.json', 'a.ndjson', 'a.jsonl.gz', 'fcd.xml', 'a.txt'].map(formatFromFileName),
    ).toEqual(['csv', 'csv', 'json', 'ndjson', 'ndjson', 'fcd', undefined]);
  });

  it('normalises header names for alias lookup', () => {
    expect(
      ['Speed (km/h)', 'vehicleID', 'timestampMs', '\uFEFFtrace_id', ' GPS Speed [m/s] '].map(normalizeHeader),
    ).toEqual(['speed_km_h', 'vehicle_id', 'timestamp_ms', 'trace_id', 'gps_speed_m_s']);
  });
});
