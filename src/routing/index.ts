/** The routing service: time-dependent, traffic-aware routes over the loaded graph. */
export { RoutingService, DEFAULT_ROUTING_CONFIG, horizonS } from './service.js';
export type { RoutingServiceConfig } from './service.js';
export type {
  FindRouteRequest,
  GetRouteRequest,
  TravelTimesRequest,
  TripView,
  TravelTimesView,
  TravelTimeEntry,
  IncidentInput,
} from './service-types.js';
export { RoutingEngine, DEFAULT_ENGINE_CONFIG, NO_CRITERIA } from './engine.js';
export type { Criteria, EngineConfig, PlanRequest, PlannedRoute, WaypointInput } from './engine.js';
export { RoutingError, RoutingStatus } from './errors.js';
export type { StatusEntry, RoutingStatusName } from './errors.js';
export { INCIDENT_FIELDS, isoUtc } from './assemble/route-view.js';
export type { OutputOptions, RouteField, RouteView, IncidentView } from './assemble/route-view.js';
export { incidentView } from './assemble/route-view.js';
export { migrations } from './migrations.js';
export { buildEnginePrep, shareEnginePrep, registerEnginePrep } from './prep.js';
export type { EnginePrep } from './prep.js';
export type { WindowExchange, WindowTable } from './search/window-bounds.js';
