import { describe, it, expect, beforeAll, beforeEach, afterAll } from 'vitest';
import { Readable } from 'node:stream';
import type { Db } from '../../store/db.js';
import { openProbeTestDb } from '../../../test/probes/db.js';
import { ingestProbeStream, ingestRecords } from './ingest.js';
import { parseTimestampS } from './records.js';

const stream = (text: string): Readable => Readable.from([Buffer.from(text)]);

describe('parseTimestampS', () => {
  it('reads epoch seconds, epoch milliseconds and ISO 8601 with and without offsets', () => {
    expect(parseTimestampS('1700000000')).toBe(1700000000);
    expect(parseTimestampS(1700000000123)).toBeCloseTo(1700000000.123, 6);
    expect(parseTimestampS('2026-01-05T08:00:00Z')).toBe(Date.UTC(2026, 0, 5, 8) / 1000);
    expect(parseTimestampS('2026-01-05T08:00:00-05:00')).toBe(Date.UTC(2026, 0, 5, 13) / 1000);
    expect(parseTimestampS('2026-01-05 08:00:00')).toBe(Date.UTC(2026, 0, 5, 8) / 1000);
    expect(parseTimestampS('yesterday')).toBeNaN();
  });
});

describe('ingestProbeStream', () => {
  let db: Db;
  beforeAll(async () => {
    db = await openProbeTestDb();
  });
  beforeEach(async () => {
    await db.query('TRUNCATE probe_pings');
  });
  afterAll(async () => {
    await db.close();
  });

  it('ingests CSV with a header in any column order, reports malformed rows by line, and is idempotent', async () => {
    const csv = [
      'lat,lon,timestamp,trace_id,speed_kph',
      '39.29,-76.61,1700000000,a,30',
      '39.291,-76.611,1700000010,a,',
      'abc,-76.61,1700000020,a,30',
      '39.292,-76.612,not-a-time,a,30',
      '',
      '39.293,-76.613,2023-11-14T22:13:50Z,b,12',
    ].join('\n');
    const r1 = await ingestProbeStream(db, stream(csv), { format: 'csv', region: 'r' });
    expect(r1.parsed).toBe(3);
    expect(r1.inserted).toBe(3);
    expect(r1.malformed).toBe(2);
    expect(r1.issues.map((i) => i.line)).toEqual([4, 5]);
    expect(r1.issues[0].message).toMatch(/lat/);
    expect(r1.touchedTraceIds.sort()).toEqual(['a', 'b']);
    const r2 = await ingestProbeStream(db, stream(csv), { format: 'csv', region: 'r' });
    expect(r2.inserted).toBe(0);
    expect(r2.duplicates).toBe(3);
    const rows = (await db.query<{ n: number }>('SELECT count(*)::int AS n FROM probe_pings')).rows;
    expect(rows[0].n).toBe(3);
  });

  it('reads headerless CSV with speed and heading mapped by position', async () => {
    const r = await ingestProbeStream(db, stream('t1,1700000000000,39.29,-76.61,42.5,370\n'), {
      format: 'csv',
      region: 'r',
      columns: 'speed=5:kph,heading=6',
    });
    expect(r.inserted).toBe(1);
    const row = (
      await db.query<{ t_s: number; speed_kph: number; heading_deg: number }>(
        'SELECT t_s, speed_kph, heading_deg FROM probe_pings',
      )
    ).rows[0];
    expect(row.t_s).toBe(1700000000);
    expect(row.speed_kph).toBeCloseTo(42.5, 3);
    expect(row.heading_deg).toBeCloseTo(10, 3);
  });

  it('stores nothing of a CSV whose header cannot be read', async () => {
    await expect(
      ingestProbeStream(db, stream('trace_id,timestamp,lat\na,1700000000,39.29\n'), {
        format: 'csv',
        region: 'r',
      }),
    ).rejects.toMatchObject({ name: 'ProbeFormatError', code: 'PROBES_CSV_MISSING_COLUMN' });
    expect((await db.query<{ n: number }>('SELECT count(*)::int AS n FROM probe_pings')).rows[0].n).toBe(0);
  });

  it('ingests JSON lines and counts a broken line without aborting', async () => {
    const text =
      '{"trace_id":"x","timestamp":"2026-01-05T08:00:00Z","lat":39.3,"lon":-76.6}\n{oops\n{"traceId":"x","t":1767600010,"lat":39.3001,"lon":-76.6}\n';
    const r = await ingestProbeStream(db, stream(text), { format: 'jsonl', region: 'r' });
    expect(r.inserted).toBe(2);
    expect(r.issues).toEqual([{ line: 2, message: 'not valid JSON' }]);
  });

  it('ingests SUMO FCD with geo coordinates, converting m/s to km/h and offsetting simulation time', async () => {
    const xml = `<?xml version="1.0" encoding="UTF-8"?>
<fcd-export>
  <timestep time="0.00">
    <vehicle id="veh0" x="-76.610000" y="39.290000" angle="90.00" type="DEFAULT_VEHTYPE" speed="10.00" pos="5.10" lane="e_0" slope="0.00"/>
  </timestep>
  <timestep time="1.00">
    <vehicle id="veh0" x="-76.609900" y="39.290000" angle="90.00" type="DEFAULT_VEHTYPE" speed="12.50" pos="15.10" lane="e_0" slope="0.00"/>
    <vehicle id="veh1" x="1234.5" y="88.2" angle="0" speed="3"/>
  </timestep>
</fcd-export>`;
    const r = await ingestProbeStream(db, stream(xml), { format: 'fcd', fcdStartS: 1767571200, region: 'r' });
    expect(r.inserted).toBe(2);
    expect(r.malformed).toBe(1);
    expect(r.issues[0]).toEqual({ line: 8, message: expect.stringMatching(/fcd-output.geo/) });
    const rows = (
      await db.query<{ t_s: number; speed_kph: number }>('SELECT t_s, speed_kph FROM probe_pings ORDER BY t_s')
    ).rows;
    expect(rows.map((x) => x.t_s)).toEqual([1767571200, 1767571201]);
    expect(rows[1].speed_kph).toBeCloseTo(45, 3);
  });
});

describe('ingestRecords', () => {
  let db: Db;
  beforeAll(async () => {
    db = await openProbeTestDb();
  });
  afterAll(async () => {
    await db.close();
  });
  beforeEach(async () => {
    await db.exec('DELETE FROM probe_pings; DELETE FROM probe_pending');
  });
  const records = (n: number) =>
    Array.from({ length: n }, (_, i) => ({
      traceId: `r${i % 3}`,
      ping: { tS: 1_767_600_000 + i, lat: 39.29 + i / 1e5, lon: -76.61 },
    }));

  it('stores every batch while the next is parsed, in order, with progress after each', async () => {
    const progress: number[] = [];
    let concurrent = 0;
    let most = 0;
    // a database whose inserts take a while: parsing goes on meanwhile, but one insert runs at a time
    const slow = {
      ...db,
      query: async (sql: string, params?: unknown[]) => {
        if (!sql.includes('INSERT INTO probe_pings')) return db.query(sql, params);
        most = Math.max(most, ++concurrent);
        await new Promise((r) => setTimeout(r, 5));
        try {
          return await db.query(sql, params);
        } finally {
          concurrent--;
        }
      },
    } as Db;
    // the records as a parser yields them, noting when each is taken
    let taken = 0;
    let takenWhileStoring = 0;
    const parse = async function* () {
      for (const r of records(23)) {
        taken++;
        if (concurrent > 0) takenWhileStoring++;
        yield r;
      }
    };
    const rep = await ingestRecords(slow, parse(), {
      region: 'r',
      batchSize: 5,
      onProgress: (p) => progress.push(p.inserted),
    });
    expect(rep).toMatchObject({ parsed: 23, inserted: 23, duplicates: 0 });
    expect(taken).toBe(23);
    expect(most).toBe(1);
    expect(takenWhileStoring).toBeGreaterThan(0);
    expect(progress).toEqual([5, 10, 15, 20, 23]);
    expect((await db.query<{ n: number }>('SELECT count(*)::int AS n FROM probe_pings')).rows[0].n).toBe(23);
    expect(rep.touchedTraceIds).toContain('r1');
    expect(rep.refs.map((m) => m.traceId).sort()).toEqual([...rep.touchedTraceIds].sort());
  });

  it('throws a failed insert, after the batch in flight ends, and keeps what was stored before it', async () => {
    let n = 0;
    const failing = {
      ...db,
      query: async (sql: string, params?: unknown[]) => {
        if (sql.includes('INSERT INTO probe_pings') && ++n === 3) throw new Error('disk full');
        return db.query(sql, params);
      },
    } as Db;
    await expect(ingestRecords(failing, records(23), { region: 'r', batchSize: 5 })).rejects.toThrow('disk full');
    expect((await db.query<{ n: number }>('SELECT count(*)::int AS n FROM probe_pings')).rows[0].n).toBe(10);
  });
});
