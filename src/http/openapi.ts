/**
 * Building blocks of the OpenAPI document: parameter and body schemas generated from the lists the
 * parsers accept, so the document names exactly what a handler takes.
 */

/** The OpenAPI document's head: info and the two ways of presenting credentials. */
export const OPENAPI_DOCUMENT = {
  openapi: '3.0.3',
  info: {
    title: 'streetwise',
    version: '0.1.0',
    description: 'Routing, parking and intersection analytics APIs on your own OpenStreetMap region.',
  },
  components: {
    securitySchemes: {
      bearer: {
        type: 'http',
        scheme: 'bearer',
        bearerFormat: 'JWT',
        description:
          'app token from GET /v1/AppToken (routing and parking also take it as the Token / accesstoken parameter)',
      },
      basic: { type: 'http', scheme: 'basic', description: 'parking user e-mail and password (/user/, /reservation/)' },
    },
  },
} as const;

/** Route options of a route whose schema documents only: the handler parses and reports by name. */
export const DOCUMENTATION_ONLY = { validatorCompiler: () => () => true } as const;

/**
 * An OpenAPI object schema of string fields: every name in `accepted` (the parser's list),
 * described by `docs` (looked up case-insensitively; the key's spelling is the documented name).
 * Throws at start-up when the parser accepts a name the docs do not describe, so the document
 * cannot fall behind the parser.
 */
export function documentedStrings(
  where: string,
  accepted: readonly string[],
  docs: Record<string, string>,
): { type: 'object'; properties: Record<string, { type: 'string'; description: string }> } {
  const byLower = new Map(Object.entries(docs).map(([k, v]) => [k.toLowerCase(), [k, v] as const]));
  const properties: Record<string, { type: 'string'; description: string }> = {};
  for (const name of accepted) {
    const doc = byLower.get(name.toLowerCase());
    if (!doc) throw new Error(`${where}: parameter ${name} is accepted but not documented`);
    properties[doc[0]] = { type: 'string', description: doc[1] };
  }
  return { type: 'object', properties };
}

/**
 * An OpenAPI object schema of a JSON body: every top-level field in `accepted` with the schema
 * (or description) in `docs`; throws at start-up for an accepted field without one.
 */
export function documentedBody(
  where: string,
  accepted: readonly string[],
  docs: Record<string, string | Record<string, unknown>>,
  required: readonly string[] = [],
): Record<string, unknown> {
  const properties: Record<string, unknown> = {};
  for (const name of accepted) {
    const doc = docs[name];
    if (doc === undefined) throw new Error(`${where}: body field ${name} is accepted but not documented`);
    properties[name] = typeof doc === 'string' ? { description: doc } : doc;
  }
  return {
    type: 'object',
    properties,
    ...(required.length > 0 ? { required: [...required] } : {}),
    additionalProperties: false,
  };
}
