/**
 * Client errors raised at the HTTP edge before a handler runs (unparsable or oversized body, an
 * unsupported Content-Type, a schema violation, a URL that does not decode), translated into a
 * status and a message of our own. Each service's error handler renders them in its own shape;
 * the framework's internal error codes (`FST_ERR_*`) never reach a client.
 */
import type { FastifyError, FastifyInstance } from 'fastify';

/** A client error of the HTTP edge: status 4xx and a message naming what is expected. */
export class RequestError extends Error {
  constructor(
    readonly statusCode: number,
    message: string,
    readonly parameter?: string,
  ) {
    super(message);
    this.name = 'RequestError';
  }
}

/** What a client did wrong, as every service renders it. */
export interface ClientProblem {
  status: number;
  message: string;
  parameter?: string;
}

interface AjvIssue {
  instancePath?: string;
  keyword?: string;
  message?: string;
  params?: Record<string, unknown>;
}

/** `body.items[0].lat`-style name of the value an ajv issue is about. */
function issuePath(context: string, issue: AjvIssue): string {
  const parts = (issue.instancePath ?? '')
    .split('/')
    .filter((p) => p !== '')
    .map((p) => (/^\d+$/.test(p) ? `[${p}]` : `.${p}`));
  let name = `${context}${parts.join('')}`;
  if (issue.keyword === 'required' && typeof issue.params?.missingProperty === 'string')
    name += `.${issue.params.missingProperty}`;
  return name;
}

/** Message of a schema violation: what is at fault and what is expected. */
function validationProblem(context: string, issues: AjvIssue[]): ClientProblem {
  const issue = issues[0] ?? {};
  const where = issuePath(context, issue);
  if (where === 'body' && issue.keyword === 'type') {
    return {
      status: 400,
      parameter: 'body',
      message: `body: ${issue.message ?? 'wrong type'}; send a JSON body (Content-Type: application/json)${issue.params?.type === 'object' ? ' or form fields' : ''}`,
    };
  }
  if (issue.keyword === 'required') return { status: 400, parameter: where, message: `${where}: required` };
  if (issue.keyword === 'additionalProperties' && typeof issue.params?.additionalProperty === 'string') {
    const name = `${where}.${issue.params.additionalProperty}`;
    return { status: 400, parameter: name, message: `${name}: unknown field` };
  }
  if (issue.keyword === 'enum' && Array.isArray(issue.params?.allowedValues)) {
    return {
      status: 400,
      parameter: where,
      message: `${where}: must be one of ${(issue.params.allowedValues as unknown[]).join(', ')}`,
    };
  }
  return { status: 400, parameter: where, message: `${where}: ${issue.message ?? 'invalid'}` };
}

/**
 * The client problem behind `err`, or undefined when `err` is not a client error (a bug or an
 * outage: the caller logs it and answers 500). Domain errors are not handled here.
 */
export function clientProblemOf(err: unknown): ClientProblem | undefined {
  if (err instanceof RequestError)
    return { status: err.statusCode, message: err.message, ...(err.parameter ? { parameter: err.parameter } : {}) };
  if (err === null || typeof err !== 'object') return undefined;
  const e = err as {
    code?: unknown;
    statusCode?: unknown;
    message?: unknown;
    validation?: unknown;
    validationContext?: unknown;
  };
  if (Array.isArray(e.validation))
    return validationProblem(
      typeof e.validationContext === 'string' ? e.validationContext : 'request',
      e.validation as AjvIssue[],
    );
  switch (e.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return { status: 413, parameter: 'body', message: 'body: larger than this endpoint accepts' };
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return {
        status: 415,
        parameter: 'Content-Type',
        message: 'Content-Type: not accepted here; send application/json (or form fields where documented)',
      };
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return { status: 400, parameter: 'Content-Length', message: 'Content-Length: does not match the body sent' };
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return { status: 400, parameter: 'body', message: 'body: not valid JSON' };
    case 'FST_ERR_BAD_URL':
      return { status: 400, parameter: 'path', message: 'path: not a valid URL (bad percent-encoding)' };
    case 'FST_ERR_MAX_PARAM_LENGTH':
      return { status: 414, parameter: 'path', message: 'path: a path segment is longer than 100 characters' };
    default:
      break;
  }
  const status = typeof e.statusCode === 'number' ? e.statusCode : 0;
  if (status < 400 || status >= 500) return undefined;
  // a 4xx of the framework or a library we have no message for: its text without its code
  const text = typeof e.message === 'string' && e.message !== '' ? e.message : 'bad request';
  return {
    status,
    message: typeof e.code === 'string' && e.code.startsWith('FST_') ? text.replace(/\bFST_[A-Z_]+\b:?\s*/g, '') : text,
  };
}

/** A NUL character is refused everywhere: no text column can store it and no parameter needs it. */
const NUL_MESSAGE = (where: string) => `${where}: contains a NUL character (\\u0000)`;

function nulIn(values: unknown): string | undefined {
  if (values === null || typeof values !== 'object') return undefined;
  for (const [k, v] of Object.entries(values as Record<string, unknown>)) {
    if (k.includes('\u0000')) return 'a parameter name';
    if (typeof v === 'string' && v.includes('\u0000')) return k;
    if (Array.isArray(v) && v.some((x) => typeof x === 'string' && x.includes('\u0000'))) return k;
  }
  return undefined;
}

/**
 * Registers a check refusing NUL characters in path parameters, query parameters and form fields
 * (JSON bodies are checked by the JSON parser) with a RequestError naming the parameter.
 */
export function registerNulCheck(app: FastifyInstance): void {
  // callback style: no promise per request on the hot path
  app.addHook('preValidation', (req, _reply, done) => {
    const name =
      nulIn(req.params) ??
      nulIn(req.query) ??
      (req.body !== null && typeof req.body === 'object' && !Array.isArray(req.body) ? nulIn(req.body) : undefined);
    if (name === undefined) done();
    else done(new RequestError(400, NUL_MESSAGE(name), name) as unknown as FastifyError);
  });
}

/**
 * Registers the JSON body parser of the whole app: an empty body (what many client libraries send
 * with `Content-Type: application/json` on a DELETE) is no body; anything else must be JSON, with
 * prototype-poisoning keys refused. Errors are RequestErrors with our messages.
 */
export function registerJsonParser(app: FastifyInstance): void {
  const strict = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (req, body, done) => {
    const text = body as string;
    if (text.trim() === '') {
      done(null, undefined);
      return;
    }
    if (text.includes('\u0000') || text.includes('\\u0000')) {
      done(new RequestError(400, NUL_MESSAGE('body'), 'body'), undefined);
      return;
    }
    strict(req, text, (err: Error | null, value?: unknown) => {
      if (err) done(new RequestError(400, 'body: not valid JSON', 'body'), undefined);
      else done(null, value);
    });
  });
}
