/** Error and coordinate checks shared by the lot and block upload validators. */
import { ParkingError } from '../errors.js';

/** The upload error naming the offending field. */
export function bad(field: string, msg: string): ParkingError {
  return new ParkingError('PARKING_UPLOAD_INVALID', `${field}: ${msg}`, field);
}

/** Rejects a coordinate pair outside the WGS84 ranges. */
export function checkCoord(lon: unknown, lat: unknown, field: string): void {
  if (typeof lat !== 'number' || typeof lon !== 'number' || !(Math.abs(lat) <= 90) || !(Math.abs(lon) <= 180))
    throw bad(field, 'longitude, latitude in degrees expected');
}
