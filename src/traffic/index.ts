/** The traffic model: speeds of edges at times, intersection costs, incidents. */
export { TrafficModel, SpeedMode, DEFAULT_TRAFFIC_CONFIG } from './model.js';
export type { CostQuery, SpeedModeId, TrafficModelConfig } from './model.js';
export { TurnCosts, DEFAULT_TURN_COSTS, TurnKind, signedTurnDeg, turnKindOf } from './turn-costs.js';
export type { TurnCostConfig } from './turn-costs.js';
export {
  IncidentCache,
  IncidentStore,
  IncidentType,
  INCIDENT_TYPE_NAMES,
  DEFAULT_EVENT_CODE,
  SEVERITY_SPEED_FACTOR,
} from './incidents.js';
export type { Incident, NewIncident, IncidentEffect } from './incidents.js';
export { localSecondOfWeek, SECONDS_PER_WEEK, BIN_SECONDS } from './clock.js';
export { buildPredictedFactors, congestionIntensity, freeFlowSpeedKph } from './profiles.js';
