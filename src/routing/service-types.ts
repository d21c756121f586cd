/**
 * What the routing service takes and answers, format neutral: FindRoute, GetRoute and
 * GetRouteTravelTimes requests after parameter parsing, trip and travel-time answers, and an
 * incident as the admin API sends it.
 */
import type { Criteria } from './engine.js';
import type { OutputOptions, RouteView } from './assemble/route-view.js';

/** A FindRoute request after parameter parsing. */
export interface FindRouteRequest {
  waypoints: Array<{ lat: number; lon: number; headingDeg?: number; description?: string }>;
  departS?: number;
  arriveS?: number;
  maxAlternates: number;
  useTraffic: boolean;
  shortest: boolean;
  criteria: Criteria;
  ambiguousOrigin: boolean;
  output: OutputOptions;
}

/** GetRoute after parsing. */
export interface GetRouteRequest {
  routeId: string;
  departS?: number;
  arriveS?: number;
  useTraffic?: boolean;
  shortest?: boolean;
  output: OutputOptions;
}

/** GetRouteTravelTimes after parsing. */
export interface TravelTimesRequest {
  routeId: string;
  departS?: number;
  arriveS?: number;
  count: number;
  intervalMinutes: number;
  units: 0 | 1;
}

/** A trip answer (format neutral). */
export interface TripView {
  tripId: string;
  /** present when W (Waypoints) is among the output fields */
  wayPoints?: Array<{ id: number; lat: number; lon: number; description?: string }>;
  routes: RouteView[];
}

/** One entry of a travel-time series. */
export interface TravelTimeEntry {
  departureTime: string;
  /** absent when closures affect the route at that time (contract: no travel time with closures) */
  travelTimeMinutes?: number;
  /** absent with closures, as travelTimeMinutes */
  abnormalityMinutes?: number;
  averageSpeed: number;
  routeHasClosures: boolean;
  routeRestricted: boolean;
}

/** GetRouteTravelTimes answer. */
export interface TravelTimesView {
  tripId: string;
  origin: { lat: number; lon: number };
  destination: { lat: number; lon: number };
  route: { id: string; routeInstanceId: string; uncongestedTravelTimeMinutes: number; travelTimes: TravelTimeEntry[] };
}

/** What the admin API sends to create an incident. */
export interface IncidentInput {
  type: number;
  severity: number;
  eventCode?: number;
  lat?: number;
  lon?: number;
  headingDeg?: number;
  edges?: number[];
  startS: number;
  endS: number | null;
  delayImpactMinutes: number;
  closure: boolean;
  shortDescription: string;
  fullDescription: string;
}
