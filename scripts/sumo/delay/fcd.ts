/**
 * SUMO's floating-car record (`fcd.xml`, one `<vehicle>` per vehicle and simulation step), read
 * as a stream into one track per kept vehicle.
 */
import { createReadStream } from 'node:fs';
import { SaxesParser } from 'saxes';

/** One vehicle's record: simulation seconds, WGS84 position, speed (m/s) and heading (degrees). */
export interface FcdTrack {
  t: number[];
  lat: number[];
  lon: number[];
  v: number[];
  h: number[];
}

/** The tracks of the vehicles `keep` accepts, by vehicle id, in the order of the record. */
export async function readFcdTracks(path: string, keep: (id: string) => boolean): Promise<Map<string, FcdTrack>> {
  const tracks = new Map<string, FcdTrack>();
  const p = new SaxesParser();
  let time = 0;
  p.on('opentag', (tag) => {
    const a = tag.attributes as Record<string, string>;
    if (tag.name === 'timestep') time = Number(a.time);
    else if (tag.name === 'vehicle' && keep(a.id)) {
      let tr = tracks.get(a.id);
      if (!tr) tracks.set(a.id, (tr = { t: [], lat: [], lon: [], v: [], h: [] }));
      tr.t.push(time);
      tr.lat.push(Number(a.y));
      tr.lon.push(Number(a.x));
      tr.v.push(Number(a.speed));
      tr.h.push(Number(a.angle));
    }
  });
  for await (const chunk of createReadStream(path, { encoding: 'utf8', highWaterMark: 1 << 20 }))
    p.write(chunk as string);
  p.close();
  return tracks;
}
