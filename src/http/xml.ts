/** XML and JSONP serialisation shared by the services. */
import { XMLBuilder } from 'fast-xml-parser';
import type { FastifyReply } from 'fastify';

const builder = new XMLBuilder({
  ignoreAttributes: false,
  attributeNamePrefix: '@_',
  textNodeName: '#text',
  suppressEmptyNode: false,
  suppressBooleanAttributes: false,
  format: false,
});

/**
 * Renders `obj` as an XML document with root element `rootName`. Keys starting with `@_` become
 * attributes, `#text` the element text; arrays repeat the element; null/undefined are omitted.
 * @example toXml('Root', { '@_statusId': 0, Route: [{ '@_id': 'a' }] })
 */
export function toXml(rootName: string, obj: Record<string, unknown>, opts: { declaration?: boolean } = {}): string {
  const body = builder.build({ [rootName]: prune(obj) }) as string;
  return (opts.declaration === false ? '' : '<?xml version="1.0" encoding="utf-8"?>') + body;
}

function prune(v: unknown): unknown {
  if (Array.isArray(v)) return v.filter((x) => x !== undefined && x !== null).map(prune);
  if (v && typeof v === 'object' && !(v instanceof Date)) {
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) {
      if (x === undefined || x === null) continue;
      out[k] = typeof x === 'boolean' ? String(x) : prune(x);
    }
    return out;
  }
  if (v instanceof Date) return v.toISOString();
  return v;
}

/** JSONP callback names we accept: JavaScript identifiers and dotted paths, ≤ 128 chars. */
const CALLBACK_RE = /^[A-Za-z_$][A-Za-z0-9_$]*(\.[A-Za-z_$][A-Za-z0-9_$]*)*$/;

/** True when `name` is a safe JSONP callback name. */
export function isValidCallback(name: string): boolean {
  return name.length <= 128 && CALLBACK_RE.test(name);
}

/**
 * Sends `body` as JSONP (`callback(<json>);`, content type application/javascript). The caller
 * validates the name with `isValidCallback` first and answers 400 otherwise; this throws on a bad name.
 */
export function sendJsonp(reply: FastifyReply, callback: string, body: unknown): FastifyReply {
  if (!isValidCallback(callback)) throw new Error('invalid JSONP callback name: validate with isValidCallback first');
  // U+2028/2029 are valid in JSON but not in older JavaScript string literals.
  const json = JSON.stringify(body)
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
  return reply
    .header('content-type', 'application/javascript; charset=utf-8')
    .header('x-content-type-options', 'nosniff')
    .send(`/**/${callback}(${json});`);
}
