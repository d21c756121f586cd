/**
 * Rendering of routing answers: the envelope (docType, copyright, versionNumber, createdDate,
 * statusId, statusText, responseId) in JSON or XML, trips and travel-time series. XML puts the
 * envelope and scalar fields in attributes and structured parts in child elements (reference §8).
 */
import { randomUUID } from 'node:crypto';
import { XMLBuilder } from 'fast-xml-parser';
import type { IncidentView, RouteView, TravelTimesView, TripView } from '../../routing/index.js';
import { COPYRIGHT } from '../envelope.js';

/** Root element name of XML answers (the handler word of the reference). */
export const XML_ROOT = 'Streetwise';
/** Constant copyright of envelopes (the same line, with the OSM attribution, on every API). */
export { COPYRIGHT };
/** Version string of the routing API. */
export const VERSION_NUMBER = '11.2';

/** Envelope fields. */
export interface Envelope {
  docType: string;
  copyright: string;
  versionNumber: string;
  createdDate: string;
  statusId: number;
  statusText: string;
  responseId: string;
  /** errors only: what exactly was wrong (names the parameter) */
  statusDetail?: string;
}

/** Builds an envelope for `docType` at `nowMs`. */
export function envelope(
  docType: string,
  nowMs: number,
  statusId: number,
  statusText: string,
  detail?: string,
): Envelope {
  const e: Envelope = {
    docType,
    copyright: COPYRIGHT,
    versionNumber: VERSION_NUMBER,
    createdDate: new Date(Math.floor(nowMs / 1000) * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z'),
    statusId,
    statusText,
    responseId: randomUUID(),
  };
  if (detail !== undefined) e.statusDetail = detail;
  return e;
}

const builder = new XMLBuilder({
  ignoreAttributes: false,
  attributeNamePrefix: '@_',
  suppressEmptyNode: true,
  suppressBooleanAttributes: false,
  processEntities: true,
});

/** Serialises an object tree (attributes as "@_x") to an XML document string. */
export function toXmlDocument(tree: Record<string, unknown>): string {
  return `<?xml version="1.0" encoding="utf-8"?>\n${builder.build(tree) as string}`;
}

function attrs(obj: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(obj)) if (v !== undefined) out[`@_${k}`] = typeof v === 'boolean' ? String(v) : v;
  return out;
}

function envelopeAttrs(env: Envelope): Record<string, unknown> {
  // The contract (spec §1, rule 1) says statusText OK on success in every format; the reference's
  // XML samples show "" but the contract wins.
  return attrs({ ...env });
}

// ---- JSON -------------------------------------------------------------------------------------

function pointJson(lon: number, lat: number) {
  return { type: 'Point', coordinates: [lon, lat] };
}

function routeJson(r: RouteView): Record<string, unknown> {
  const out: Record<string, unknown> = {
    id: r.id,
    uncongestedTravelTimeMinutes: r.uncongestedTravelTimeMinutes,
    routeQuality: r.routeQuality,
    hasClosures: r.hasClosures,
    hasRestrictions: r.hasRestrictions,
  };
  if (r.travelTimeMinutes !== undefined) out.travelTimeMinutes = r.travelTimeMinutes;
  if (r.abnormalityMinutes !== undefined) out.abnormalityMinutes = r.abnormalityMinutes;
  Object.assign(out, {
    averageSpeed: r.averageSpeed,
    trafficConsidered: r.trafficConsidered,
    statusId: r.statusId,
    totalDistance: r.totalDistance,
    routeTransportStatus: r.routeTransportStatus,
  });
  if (r.summary) out.summary = r.summary;
  if (r.description !== undefined) out.description = r.description;
  if (r.maneuvers) {
    out.maneuvers = r.maneuvers.map((m) => ({
      text: m.text,
      turnType: m.turnType,
      distance: m.distance,
      roadName: m.roadName,
      point: pointJson(m.point[1], m.point[0]),
    }));
  }
  if (r.incidents) out.incidents = r.incidents;
  if (r.boundingBox)
    out.boundingBox = { corner1: pointJson(...r.boundingBox.corner1), corner2: pointJson(...r.boundingBox.corner2) };
  if (r.points) out.points = { type: 'LineString', coordinates: r.points };
  if (r.speedBuckets) out.speedBuckets = r.speedBuckets;
  return out;
}

function tripJson(t: TripView): Record<string, unknown> {
  const out: Record<string, unknown> = { tripId: t.tripId };
  if (t.wayPoints) {
    out.wayPoints = t.wayPoints.map((w) => ({
      id: w.id,
      geometry: pointJson(w.lon, w.lat),
      ...(w.description !== undefined ? { description: w.description } : {}),
    }));
  }
  out.routes = t.routes.map(routeJson);
  return out;
}

/** JSON body of a FindRoute / GetRoute answer. */
export function tripToJson(env: Envelope, trip: TripView): Record<string, unknown> {
  return { ...env, result: { trip: tripJson(trip) } };
}

/** JSON body of a GetRouteTravelTimes answer (mirrors the XML). */
export function travelTimesToJson(env: Envelope, v: TravelTimesView): Record<string, unknown> {
  return {
    ...env,
    result: {
      trip: {
        id: v.tripId,
        statusId: 0,
        origin: { latitude: v.origin.lat, longitude: v.origin.lon },
        destination: { latitude: v.destination.lat, longitude: v.destination.lon },
        route: v.route,
      },
    },
  };
}

// ---- XML --------------------------------------------------------------------------------------

function incidentXml(i: IncidentView): Record<string, unknown> {
  const scalar: Record<string, unknown> = {};
  const children: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(i)) {
    if (k === 'geometry') {
      const c = (v as { coordinates: [number, number] }).coordinates;
      scalar.latitude = c[1];
      scalar.longitude = c[0];
    } else if (k === 'schedule') children.Schedule = attrs(v as Record<string, unknown>);
    else if (k === 'delayImpact') children.DelayImpact = attrs(v as Record<string, unknown>);
    else if (k === 'rds') children.RDS = attrs(v as Record<string, unknown>);
    else if (k === 'area') children.Area = v;
    else if (k === 'descriptions') {
      children.Descriptions = {
        Description: (v as Array<{ type: string; lang: string; desc: string }>).map((d) => ({
          ...attrs({ type: d.type, lang: d.lang }),
          '#text': d.desc,
        })),
      };
    } else scalar[k] = v;
  }
  return { ...attrs(scalar), ...children };
}

function routeXml(r: RouteView): Record<string, unknown> {
  const el: Record<string, unknown> = attrs({
    id: r.id,
    uncongestedTravelTimeMinutes: r.uncongestedTravelTimeMinutes,
    routeQuality: r.routeQuality,
    hasClosures: r.hasClosures,
    hasRestrictions: r.hasRestrictions,
    travelTimeMinutes: r.travelTimeMinutes,
    abnormalityMinutes: r.abnormalityMinutes,
    averageSpeed: r.averageSpeed,
    trafficConsidered: r.trafficConsidered,
    statusId: r.statusId,
    totalDistance: r.totalDistance,
    routeTransportStatus: r.routeTransportStatus,
  });
  if (r.summary) {
    el.Summary = {
      Text: r.summary.text,
      Roads: r.summary.roads.length ? { Road: r.summary.roads.map((x) => attrs(x)) } : '',
    };
  }
  if (r.description !== undefined) el.Description = r.description;
  if (r.boundingBox) {
    el.BoundingBox = {
      Corner1: attrs({ latitude: r.boundingBox.corner1[1], longitude: r.boundingBox.corner1[0] }),
      Corner2: attrs({ latitude: r.boundingBox.corner2[1], longitude: r.boundingBox.corner2[0] }),
    };
  }
  if (r.maneuvers) {
    el.Maneuvers = {
      Maneuver: r.maneuvers.map((m) =>
        attrs({
          text: m.text,
          turnType: m.turnType,
          distance: m.distance,
          roadName: m.roadName,
          latitude: m.point[0],
          longitude: m.point[1],
        }),
      ),
    };
  }
  if (r.points) el.Points = { Point: r.points.map((p) => attrs({ latitude: p[1], longitude: p[0] })) };
  if (r.speedBuckets) el.SpeedBuckets = { SpeedBucket: r.speedBuckets.map((b) => attrs({ ...b })) };
  if (r.incidents) el.Incidents = r.incidents.length ? { Incident: r.incidents.map(incidentXml) } : '';
  return el;
}

/** XML document of a FindRoute / GetRoute answer. */
export function tripToXml(env: Envelope, t: TripView): string {
  const trip: Record<string, unknown> = attrs({ tripId: t.tripId });
  if (t.wayPoints) {
    trip.WayPoints = {
      WayPoint: t.wayPoints.map((w) =>
        attrs({ id: w.id, latitude: w.lat, longitude: w.lon, description: w.description }),
      ),
    };
  }
  trip.Route = t.routes.map(routeXml);
  return toXmlDocument({ [XML_ROOT]: { ...envelopeAttrs(env), Trip: trip } });
}

/** XML document of a GetRouteTravelTimes answer (reference §8). */
export function travelTimesToXml(env: Envelope, v: TravelTimesView): string {
  return toXmlDocument({
    [XML_ROOT]: {
      ...envelopeAttrs(env),
      Trip: {
        ...attrs({ statusId: 0, id: v.tripId, voiceTag: '', description: '' }),
        Origin: attrs({ latitude: v.origin.lat, longitude: v.origin.lon }),
        Destination: attrs({ latitude: v.destination.lat, longitude: v.destination.lon }),
        Route: {
          ...attrs({
            id: v.route.id,
            routeInstanceId: v.route.routeInstanceId,
            uncongestedTravelTimeMinutes: v.route.uncongestedTravelTimeMinutes,
          }),
          TravelTimes: { TravelTime: v.route.travelTimes.map((t) => attrs({ ...t })) },
        },
      },
    },
  });
}

/** XML document of an error: the root element with the envelope attributes only. */
export function errorToXml(env: Envelope): string {
  return toXmlDocument({ [XML_ROOT]: envelopeAttrs(env) });
}
