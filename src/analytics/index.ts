/** The intersection analytics service: public entry points used by `http/` and the CLI. */
export { migrations } from './migrations.js';
export { AnalyticsError, ANALYTICS_ERRORS, type AnalyticsErrorCode, type AnalyticsErrorKind } from './errors.js';
export {
  catalogOf,
  mapVersionOf,
  type IntersectionCatalog,
  type CatalogIntersection,
  type CatalogMovement,
} from './catalog/catalog.js';
export {
  buildFacts,
  ZONE_UPSTREAM_M,
  ZONE_DOWNSTREAM_M,
  type Fact,
  type FactOptions,
  type SignalTiming,
} from './facts/build-facts.js';
export { STOP_SPEED_KPH, STOP_MIN_DURATION_S } from './facts/stops.js';
export {
  storeFacts,
  storeFactsIn,
  refreshFacts,
  FACT_WRITE_LOCK,
  type StoreFactsOptions,
  type TrajectorySource,
} from './facts/store-facts.js';
export { storeTrajectoryFacts, rebuildFacts, adoptUnassignedFacts } from './facts/trajectory-facts.js';
export { rebuildRollups, rebuildRollupSlices, type RollupSlice } from './facts/rollup.js';
export {
  parseMetricRequest,
  METRIC_REQUEST_FIELDS,
  METRIC_PAGE_SIZE_DEFAULT,
  METRIC_PAGE_SIZE_MAX,
  type MetricRequest,
} from './metrics/metric-request.js';
export { queryMetrics, type MetricData, type QueryMetricsOptions } from './metrics/metric-query.js';
export { metricSourceFor } from './metrics/metric-source.js';
export { METRIC_NAMES, type MetricSource } from './metrics/definitions.js';
export { DIMENSION_NAMES } from './metrics/dimensions.js';
export {
  applyDelta,
  checkNamespaceName,
  NAMESPACE_SEARCH_FIELDS,
  NAMESPACE_UPDATE_FIELDS,
  deleteNamespace,
  findNamespace,
  parseNamespaceSearch,
  parseNamespaceUpdate,
  searchNamespaces,
  updateNamespace,
  type NamespaceData,
  type NamespaceEnv,
  type NamespaceUpdate,
} from './namespaces/namespaces.js';
export {
  parseMetadataRequest,
  queryMetadata,
  METADATA_REQUEST_FIELDS,
  METADATA_PAGE_SIZE_DEFAULT,
  METADATA_MAX_ROWS,
  type MetadataRequest,
  type MetadataResult,
} from './metadata/metadata.js';
export {
  AVAILABILITY_PARAMS,
  PRINCIPAL_FIELDS,
  checkPrincipal,
  parseAvailabilityQuery,
  queryAvailability,
  type AvailabilityQuery,
} from './availability.js';
export { invalid } from './errors.js';
export {
  parseEventLog,
  parseChannelMap,
  phaseTimeline,
  SignalEventCode,
  type ChannelMap,
  type SignalEvent,
} from './signals/event-log.js';
export {
  coordinationDiagram,
  signalTimingFromLogs,
  splitFailures,
  type CoordinationDiagram,
  type IntersectionLog,
  type SplitCycle,
} from './signals/measures.js';
export {
  parsePhaseDayQuery,
  putChannelMap,
  queryCoordinationDiagram,
  querySplitFailures,
  readIntersectionLog,
  storedSignalTiming,
  uploadEventLog,
  type LogUpload,
  type SignalStoreContext,
} from './signals/signal-store.js';
export { observedFreeFlow, freeFlowKphOf, type FreeFlowSpeeds, type FreeFlowSource } from './facts/free-flow.js';
