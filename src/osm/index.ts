/** OSM reading and tag interpretation (import stage 1). */
export * from './types.js';
export { readPbfFile } from './pbf-reader.js';
export { readOsmXmlFile, readOsmXmlString } from './xml-reader.js';
export { PbfFileWriter } from './pbf-writer.js';
export { XmlFileWriter } from './xml-writer.js';
export { openOsmFile } from './osm-sink.js';
export type { OsmSink } from './osm-sink.js';
export { NodeStore, createExtractCollector, readOsmExtract, readOsmExtractFromXml, sniffOsmFormat } from './extract.js';
export type { OsmExtract } from './extract.js';
export {
  interpretWay,
  carAccess,
  parseOneway,
  parseDurationS,
  EXCLUDED_SERVICE,
  FERRY_DEFAULT_SPEED_KPH,
} from './road-tags.js';
export type { WayProfile, RoadClassName } from './road-tags.js';
export { parseMaxspeedKph, NO_LIMIT_SPEED_KPH, WALK_SPEED_KPH } from './maxspeed.js';
export { countryAt, defaultSpeedKph, zoneSpeedKph, MPH_COUNTRIES } from './country.js';
export { interpretCurb, NO_PARKING_KINDS } from './curb-tags.js';
export type { CurbSideTags } from './curb-tags.js';
export { parseRestriction } from './restriction.js';
export type { TurnRestrictionTags } from './restriction.js';
