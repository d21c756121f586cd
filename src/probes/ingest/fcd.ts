/**
 * SUMO floating-car-data reader (`sumo --fcd-output`): `<timestep time="12.00"><vehicle id x y
 * speed angle …/></timestep>`. Coordinates must be geographic — run SUMO with
 * `--fcd-output.geo` (then x = longitude, y = latitude; `lon`/`lat` attributes are read too).
 * SUMO speeds are m/s (converted to km/h); `angle` is degrees clockwise from north. Simulation
 * seconds are offset by `startS` (unix seconds of simulation time 0). Streams with saxes.
 */
import { SaxesParser } from 'saxes';
import { StringDecoder } from 'node:string_decoder';
import type { Readable } from 'node:stream';
import { makeRecord, type ParseIssue, type ProbeRecord } from './records.js';

/** Options of the FCD reader. */
export interface FcdOptions {
  /** unix seconds of SUMO simulation time 0 */
  startS: number;
  /** prefix added to SUMO vehicle ids to form trace ids ('' by default) */
  tracePrefix?: string;
}

/** Reads SUMO FCD probe records; malformed vehicles go to `onIssue` with their line number. */
export async function* readFcdProbes(
  input: Readable,
  onIssue: (issue: ParseIssue) => void,
  opts: FcdOptions,
): AsyncGenerator<ProbeRecord> {
  const parser = new SaxesParser({ position: true });
  const out: ProbeRecord[] = [];
  let timeS = NaN;
  let fatal: string | undefined;
  const prefix = opts.tracePrefix ?? '';
  parser.on('opentag', (tag) => {
    const a = tag.attributes as Record<string, string>;
    if (tag.name === 'timestep') {
      timeS = Number(a.time);
      if (!Number.isFinite(timeS))
        onIssue({ line: parser.line, message: `timestep time ${JSON.stringify(a.time)} is not a number` });
      return;
    }
    if (tag.name !== 'vehicle' && tag.name !== 'person' && tag.name !== 'container') return;
    if (!Number.isFinite(timeS)) {
      onIssue({ line: parser.line, message: `${tag.name} outside a valid <timestep>` });
      return;
    }
    const lon = a.lon ?? a.x;
    const lat = a.lat ?? a.y;
    const lonN = Number(lon);
    const latN = Number(lat);
    if (
      a.lon === undefined &&
      Number.isFinite(lonN) &&
      Number.isFinite(latN) &&
      (Math.abs(lonN) > 180 || Math.abs(latN) > 90)
    ) {
      onIssue({ line: parser.line, message: 'x/y are not geographic coordinates: run sumo with --fcd-output.geo' });
      return;
    }
    const speed = a.speed === undefined || a.speed === '' ? undefined : Number(a.speed) * 3.6;
    const rec = makeRecord(
      a.id === undefined ? undefined : prefix + a.id,
      opts.startS + timeS,
      lat,
      lon,
      speed,
      a.angle,
    );
    if (typeof rec === 'string') onIssue({ line: parser.line, message: rec });
    else out.push(rec);
  });
  parser.on('error', (err) => {
    fatal = err.message;
  });
  const decoder = new StringDecoder('utf8');
  for await (const chunk of input) {
    parser.write(typeof chunk === 'string' ? chunk : decoder.write(chunk as Buffer));
    if (fatal !== undefined) break;
    for (const r of out.splice(0)) yield r;
  }
  if (fatal === undefined) {
    parser.write(decoder.end());
    parser.close();
  }
  for (const r of out.splice(0)) yield r;
  // A broken XML document cannot be resynchronised: report where it broke and stop that file.
  if (fatal !== undefined) onIssue({ line: parser.line, message: `XML error, rest of file skipped: ${fatal}` });
}
