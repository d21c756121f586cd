/**
 * Where the demo city lies and how its local plan (metres east/north of an origin) maps to
 * WGS 84. The city, "Port Calvert", is fictional; it sits on a river near lat 39.30, lon -76.60
 * (time zone America/New_York, US conventions: speeds in mph, prices in USD).
 */

/** Latitude of the local origin (south-west corner of downtown), degrees. */
export const ORIGIN_LAT = 39.295;
/** Longitude of the local origin, degrees. */
export const ORIGIN_LON = -76.608;
/** Metres per degree of latitude at the origin (WGS 84 ellipsoid, lat 39.3°). */
export const M_PER_DEG_LAT = 111_022;
/** Metres per degree of longitude at the origin (WGS 84 ellipsoid, lat 39.3°). */
export const M_PER_DEG_LON = 86_255;

/** Name of the fictional city. */
export const CITY_NAME = 'Port Calvert';
/** US state code of the city's addresses. */
export const CITY_STATE = 'MD';
/** Postal code of the city's addresses. */
export const CITY_POSTCODE = '21290';
/** IANA time zone of the city. */
export const CITY_TIME_ZONE = 'America/New_York';

/** Spacing of the downtown street grid, metres. */
export const DOWNTOWN_SPACING_M = 120;
/** Number of blocks per side of the downtown grid (streets per side = blocks + 1). */
export const DOWNTOWN_BLOCKS = 8;
/** Spacing of the Southport grid across the river, metres (east–west and north–south). */
export const SOUTHPORT_SPACING_M = 180;
/** x of Southport's westernmost street, metres. */
export const SOUTHPORT_WEST_X_M = 120;
/** y of Southport's northernmost street (Shore Rd), metres. */
export const SOUTHPORT_NORTH_Y_M = -600;
/** River banks: the water lies between these y values, metres. */
export const RIVER_NORTH_Y_M = -90;
/** Southern bank of the river, metres. */
export const RIVER_SOUTH_Y_M = -510;
/** x of the freeway's northbound carriageway, metres. */
export const FREEWAY_NB_X_M = 1415;
/** x of the freeway's southbound carriageway, metres. */
export const FREEWAY_SB_X_M = 1385;

/** Converts a local plan position (x metres east, y metres north of the origin) to [lat, lon] degrees. */
export function toLatLon(xM: number, yM: number): [number, number] {
  return [ORIGIN_LAT + yM / M_PER_DEG_LAT, ORIGIN_LON + xM / M_PER_DEG_LON];
}
