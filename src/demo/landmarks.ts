/**
 * Named places of the demo city, for examples (README curl commands, the traffic simulator's
 * trips, docs). Positions are the planned ones: the generated nodes lie within 3 m of them for
 * every seed, so snapping to the road network finds the named streets.
 */
import { toLatLon } from './layout.js';

/** A named place of the demo city. */
export interface DemoLandmark {
  name: string;
  lat: number;
  lon: number;
  /** for intersections: the streets that meet there */
  streets?: [string, string];
}

/** Planned positions in local metres (x east, y north of the origin). */
const PLACES: ReadonlyArray<[key: string, name: string, xM: number, yM: number, streets?: [string, string]]> = [
  ['downtownWaterfront', 'Eutaw St & Water St', 480, 0, ['Eutaw St', 'Water St']],
  ['grandAndCenter', 'Grand Ave & Center St', 720, 360, ['Grand Ave', 'Center St']],
  ['calvertAndLombard', 'Calvert St & Lombard St', 240, 600, ['Calvert St', 'Lombard St']],
  ['southport', 'Cedar St & Harbor View Rd', 480, -780, ['Cedar St', 'Harbor View Rd']],
  ['southportAve', 'Elm St & Southport Ave', 840, -960, ['Elm St', 'Southport Ave']],
  ['northernPkwy', 'Grand Ave & Northern Pkwy', 720, 1200, ['Grand Ave', 'Northern Pkwy']],
  ['northernPkwyEast', 'Northern Pkwy near I 900', 1200, 1208],
  ['downtownFerryTerminal', 'Downtown Ferry Terminal', 480, -60],
  ['southportFerryTerminal', 'Southport Ferry Terminal', 480, -540],
  ['harborplaceGarage', 'Harborplace Garage', 540, 60],
  ['parkAndRide', 'Center Street Park & Ride', 1535, 425],
];

/** Keys of the landmarks. */
export type DemoLandmarkKey =
  | 'downtownWaterfront'
  | 'grandAndCenter'
  | 'calvertAndLombard'
  | 'southport'
  | 'southportAve'
  | 'northernPkwy'
  | 'northernPkwyEast'
  | 'downtownFerryTerminal'
  | 'southportFerryTerminal'
  | 'harborplaceGarage'
  | 'parkAndRide';

/**
 * The demo city's landmarks by key (degrees, rounded to 1e-6).
 * @example const { downtownWaterfront: a, southport: b } = demoLandmarks(); // a ferry trip
 */
export function demoLandmarks(): Record<DemoLandmarkKey, DemoLandmark> {
  const out = {} as Record<DemoLandmarkKey, DemoLandmark>;
  for (const [key, name, x, y, streets] of PLACES) {
    const [lat, lon] = toLatLon(x, y);
    out[key as DemoLandmarkKey] = {
      name,
      lat: Math.round(lat * 1e6) / 1e6,
      lon: Math.round(lon * 1e6) / 1e6,
      ...(streets ? { streets } : {}),
    };
  }
  return out;
}
