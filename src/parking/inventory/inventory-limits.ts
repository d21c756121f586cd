/** Limits and defaults of the lots/blocks queries. */
/** Default page size when `limit` is absent. */
export const DEFAULT_LIMIT = 100;
/** Largest accepted `limit`. */
export const MAX_LIMIT = 1000;
/** Radius used when `point` comes without `radius`, metres. */
export const DEFAULT_RADIUS_M = 1000;
/** Largest accepted `radius`, metres. */
export const MAX_RADIUS_M = 10_000;
/** Largest accepted diagonal of a box or polygon, metres. */
export const MAX_AREA_DIAGONAL_M = 50_000;
/** Half-width of the corridor around a `polyline`, metres. */
export const CORRIDOR_HALF_WIDTH_M = 100;
/** Longest accepted `polyline`, metres. */
export const MAX_POLYLINE_M = 500_000;
/** Longest accepted stay in `duration`, minutes (30 days). */
export const MAX_DURATION_MIN = 43_200;
/** blocks/v3 accepts entry times from this many minutes in the past … */
export const V3_MAX_PAST_MIN = 15;
/** … up to this many hours ahead. */
export const V3_MAX_AHEAD_H = 24;
