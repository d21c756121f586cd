/**
 * Large probe bodies generated on the fly (never held in memory): `n` pings of 5000 traces, as a
 * JSON body, NDJSON or CSV, in chunks of 1000 pings. Ping `j` is `pingAt(j)`.
 */
import type { ProbeRecord } from '../../src/probes/ingest/records.js';

const T0 = 1_767_600_000; // 2026-01-05T08:00:00Z

/** The j-th generated ping (trace ids `<prefix><j mod 5000>`). */
export function pingAt(j: number, prefix = 'v'): ProbeRecord {
  return {
    traceId: `${prefix}${j % 5000}`,
    ping: {
      tS: T0 + j,
      lat: +(39.29 + (j % 997) * 1e-5).toFixed(6),
      lon: +(-76.61 + (j % 991) * 1e-5).toFixed(6),
      speedKph: j % 90,
      headingDeg: j % 360,
    },
  };
}

/** Chunks of a body of `n` pings in `format` (CSV with a `speed_kph` header). */
export function* probeBody(format: 'json' | 'ndjson' | 'csv', n: number, prefix = 'v'): Generator<Buffer> {
  if (format === 'json') yield Buffer.from('{"pings":[');
  if (format === 'csv') yield Buffer.from('trace_id,timestamp,lat,lon,speed_kph,heading\n');
  for (let i = 0; i < n; i += 1000) {
    let s = '';
    for (let j = i; j < Math.min(n, i + 1000); j++) {
      const { traceId, ping: p } = pingAt(j, prefix);
      if (format === 'csv') s += `${traceId},${p.tS},${p.lat},${p.lon},${p.speedKph},${p.headingDeg}\n`;
      else {
        const o = `{"traceId":"${traceId}","timestamp":${p.tS},"lat":${p.lat},"lon":${p.lon},"speedKph":${p.speedKph},"headingDeg":${p.headingDeg}}`;
        s += format === 'json' ? (j > 0 ? ',' : '') + o : `${o}\n`;
      }
    }
    yield Buffer.from(s);
  }
  if (format === 'json') yield Buffer.from(']}');
}
