/**
 * Interpretation of a way's tags for car routing: class, directions, speed, flags, names.
 * See docs/import.md for the rules and the reasons behind them.
 */
import { defaultSpeedKph } from './country.js';
import { parseMaxspeedKph } from './maxspeed.js';
import type { Tags } from './types.js';

/** Road class names, in the order of the graph's `RoadClass` ids. */
export type RoadClassName =
  | 'motorway'
  | 'trunk'
  | 'primary'
  | 'secondary'
  | 'tertiary'
  | 'unclassified'
  | 'residential'
  | 'living_street'
  | 'service'
  | 'ferry';

/** How a drivable way is used by cars. */
export interface WayProfile {
  roadClass: RoadClassName;
  /** the OSM highway value (e.g. `primary_link`), or `ferry` */
  highway: string;
  /** cars may drive in the way's node order */
  forward: boolean;
  /** cars may drive against the way's node order */
  backward: boolean;
  /** speed limit km/h (tagged or default) per direction */
  speedForwardKph: number;
  speedBackwardKph: number;
  /** true when the speed came from a maxspeed tag */
  speedTagged: boolean;
  lanesForward: number;
  lanesBackward: number;
  name: string;
  ref: string;
  link: boolean;
  toll: boolean;
  /** motorway / trunk and their links */
  highwayFlag: boolean;
  ferry: boolean;
  tunnel: boolean;
  bridge: boolean;
  hov: boolean;
  express: boolean;
  vignette: boolean;
  roundabout: boolean;
  reversible: boolean;
  destinationOnly: boolean;
}

const CLASS_OF: Record<string, RoadClassName> = {
  motorway: 'motorway',
  motorway_link: 'motorway',
  trunk: 'trunk',
  trunk_link: 'trunk',
  primary: 'primary',
  primary_link: 'primary',
  secondary: 'secondary',
  secondary_link: 'secondary',
  tertiary: 'tertiary',
  tertiary_link: 'tertiary',
  unclassified: 'unclassified',
  road: 'unclassified',
  residential: 'residential',
  living_street: 'living_street',
  service: 'service',
};

/** service=* values kept out of the car graph: they are private approaches, not streets. */
export const EXCLUDED_SERVICE = new Set([
  'parking_aisle',
  'driveway',
  'drive-through',
  'drive_through',
  'emergency_access',
]);

const DENY = new Set([
  'no',
  'private',
  'agricultural',
  'forestry',
  'emergency',
  'psv',
  'bus',
  'military',
  'permit',
  'use_sidepath',
]);
const DESTINATION = new Set(['destination', 'customers', 'delivery', 'residents', 'local']);
const ALLOW = new Set(['yes', 'designated', 'permissive', 'official']);

/** Default ferry speed (km/h) when the way has no `duration` tag. */
export const FERRY_DEFAULT_SPEED_KPH = 15;

/**
 * Car access from the most specific of motorcar > motor_vehicle > vehicle > access:
 * 'yes', 'destination' or 'no'. `directional` suffixes (`:forward`) are handled by the caller.
 */
export function carAccess(tags: Tags, suffix = ''): 'yes' | 'destination' | 'no' | undefined {
  for (const key of ['motorcar', 'motor_vehicle', 'vehicle', 'access']) {
    const v = tags[key + suffix];
    if (v === undefined) continue;
    const first = v.split(';')[0].trim();
    if (ALLOW.has(first)) return 'yes';
    if (DESTINATION.has(first)) return 'destination';
    if (DENY.has(first)) return 'no';
  }
  return undefined;
}

/** Parses the `oneway` value: 1 forward only, -1 backward only, 0 both, 2 reversible, undefined when absent. */
export function parseOneway(value: string | undefined): 1 | -1 | 0 | 2 | undefined {
  if (value === undefined) return undefined;
  switch (value.trim().toLowerCase()) {
    case 'yes':
    case '1':
    case 'true':
      return 1;
    case '-1':
    case 'reverse':
      return -1;
    case 'no':
    case '0':
    case 'false':
      return 0;
    case 'reversible':
    case 'alternating':
      return 2;
    default:
      return undefined;
  }
}

/** Ferry duration tag ("1:30", "01:30:00", "90", "PT1H30M") in seconds, or undefined. */
export function parseDurationS(value: string | undefined): number | undefined {
  if (!value) return undefined;
  const v = value.trim();
  let m = /^(\d+):(\d{1,2})(?::(\d{1,2}))?$/.exec(v);
  if (m) return Number(m[1]) * 3600 + Number(m[2]) * 60 + Number(m[3] ?? 0);
  m = /^(\d+(?:\.\d+)?)$/.exec(v);
  if (m) return Number(m[1]) * 60; // bare number: minutes
  m = /^PT(?:(\d+)H)?(?:(\d+)M)?(?:(\d+)S)?$/i.exec(v);
  if (m && (m[1] || m[2] || m[3])) return Number(m[1] ?? 0) * 3600 + Number(m[2] ?? 0) * 60 + Number(m[3] ?? 0);
  return undefined;
}

function lanesOf(v: string | undefined): number {
  if (!v) return 0;
  const n = parseInt(v, 10);
  return Number.isFinite(n) && n > 0 && n < 20 ? n : 0;
}

const isYes = (v: string | undefined): boolean => v === 'yes' || v === 'true' || v === '1';

/**
 * Interprets a way's tags for cars. Returns null when cars cannot use the way at all (not a
 * drivable highway, access denied, excluded service road, ferry without cars…).
 * `country` (ISO code) picks default speeds.
 */
export function interpretWay(tags: Tags, country: string): WayProfile | null {
  const hw = tags.highway;
  const isFerry = tags.route === 'ferry' && hw === undefined;
  if (!isFerry) {
    if (hw === undefined) return null;
    if (CLASS_OF[hw] === undefined) return null;
    if (tags.area === 'yes') return null;
    if (hw === 'service' && tags.service && EXCLUDED_SERVICE.has(tags.service)) return null;
  }
  const access = carAccess(tags);
  // HOV-only roads are tagged access=no + hov=designated: keep them, flagged hov, so routing can
  // decide (AvoidHov / car-pool requests) instead of losing them.
  const hovOnly = access === 'no' && (tags.hov === 'designated' || tags.hov === 'yes');
  if (access === 'no' && !hovOnly) return null;
  // "motorcar=no" style denials on a ferry also mean foot/bicycle-only ferries are skipped.
  const roadClass: RoadClassName = isFerry ? 'ferry' : CLASS_OF[hw];
  const highway = isFerry ? 'ferry' : hw;
  const roundabout = tags.junction === 'roundabout' || tags.junction === 'circular';
  const dir = directionsOf(tags, highway, roundabout);
  if (!dir.forward && !dir.backward) return null;
  const speeds = speedsOf(tags, country, highway, isFerry);
  return {
    roadClass,
    highway,
    forward: dir.forward,
    backward: dir.backward,
    ...speeds,
    ...lanesByDirection(tags, dir.forward, dir.backward),
    name: tags.name ?? '',
    ref: tags.ref ?? '',
    link: highway.endsWith('_link'),
    toll: isYes(tags.toll) || isYes(tags['toll:motorcar']),
    highwayFlag: roadClass === 'motorway' || roadClass === 'trunk',
    ferry: isFerry,
    tunnel: tags.tunnel !== undefined && tags.tunnel !== 'no',
    bridge: tags.bridge !== undefined && tags.bridge !== 'no',
    hov: hovOnly || hovLane(tags),
    express:
      isYes(tags.express) || tags['toll:hov'] !== undefined || tags.hot === 'yes' || tags['hov:toll'] !== undefined,
    vignette: isYes(tags.vignette) || tags.toll === 'vignette' || isYes(tags['toll:vignette']),
    roundabout,
    reversible: dir.reversible,
    destinationOnly: access === 'destination',
  };
}

/** Directions cars may drive along the way (a reversible way counts as forward only). */
function directionsOf(
  tags: Tags,
  highway: string,
  roundabout: boolean,
): { forward: boolean; backward: boolean; reversible: boolean } {
  let oneway = parseOneway(tags['oneway:motorcar'] ?? tags['oneway:motor_vehicle'] ?? tags.oneway);
  if (oneway === undefined) oneway = highway === 'motorway' || highway === 'motorway_link' || roundabout ? 1 : 0;
  let forward = oneway !== -1;
  let backward = oneway === 0 || oneway === -1;
  const reversible = oneway === 2;
  if (reversible) {
    forward = true;
    backward = false;
  }
  if (carAccess(tags, ':forward') === 'no') forward = false;
  if (carAccess(tags, ':backward') === 'no') backward = false;
  return { forward, backward, reversible };
}

/** Speeds per direction, km/h: tagged maxspeeds, else the country's default (a ferry's placeholder). */
function speedsOf(
  tags: Tags,
  country: string,
  highway: string,
  isFerry: boolean,
): { speedForwardKph: number; speedBackwardKph: number; speedTagged: boolean } {
  let tagged = true;
  let fwd = parseMaxspeedKph(tags['maxspeed:forward'] ?? tags.maxspeed, country);
  let bwd = parseMaxspeedKph(tags['maxspeed:backward'] ?? tags.maxspeed, country);
  if (isFerry) {
    const durationS = parseDurationS(tags.duration);
    // the importer replaces this with length / duration when a duration is tagged
    fwd = bwd = FERRY_DEFAULT_SPEED_KPH;
    tagged = durationS !== undefined;
  } else {
    if (fwd === undefined && bwd === undefined) tagged = false;
    const def = defaultSpeedKph(country, highway);
    fwd ??= bwd ?? def;
    bwd ??= fwd;
  }
  return { speedForwardKph: fwd, speedBackwardKph: bwd, speedTagged: tagged };
}

/** Lanes per direction (0 = untagged); a total `lanes` is split between the two directions. */
function lanesByDirection(
  tags: Tags,
  forward: boolean,
  backward: boolean,
): { lanesForward: number; lanesBackward: number } {
  const total = lanesOf(tags.lanes);
  let lanesForward = lanesOf(tags['lanes:forward']);
  let lanesBackward = lanesOf(tags['lanes:backward']);
  if (forward && !backward) lanesForward ||= total;
  else if (backward && !forward) lanesBackward ||= total;
  else if (total > 0) {
    if (!lanesForward && !lanesBackward) lanesForward = lanesBackward = Math.max(1, Math.floor(total / 2));
    else if (!lanesForward) lanesForward = Math.max(1, total - lanesBackward);
    else if (!lanesBackward) lanesBackward = Math.max(1, total - lanesForward);
  }
  return { lanesForward, lanesBackward };
}

/** True when the way is or has an HOV lane (`hov=designated|lane`, a designated `hov:lanes` entry). */
function hovLane(tags: Tags): boolean {
  const hovLanes = tags['hov:lanes'] ?? tags['hov:lanes:forward'] ?? tags['hov:lanes:backward'];
  return (
    tags.hov === 'designated' || tags.hov === 'lane' || (hovLanes !== undefined && hovLanes.includes('designated'))
  );
}
