/**
 * The account API: `GET /v1/AppToken?appId=…&hashToken=…` → a signed app token (JWT) valid for the
 * application's lifetime (24 h by default). JSON by default, XML with `Accept: application/xml`.
 * Errors: `{ error: { statusId, userMessage } }` — 400 (41 NoToken) for a missing parameter,
 * 403 (26 User Authentication Failed: …) for an unknown app or a wrong hash (one message) or a
 * disabled app (named only when the hash is right).
 */
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../app/context.js';
import { AuthError } from '../../auth/auth-service.js';
import { envelope } from '../envelope.js';
import { toXml } from '../xml.js';
import { queryParam } from '../tokens.js';

function wantsXml(req: FastifyRequest): boolean {
  const a = String(req.headers.accept ?? '');
  return /application\/xml|text\/xml/i.test(a) && !/application\/json/i.test(a);
}

function sendError(
  req: FastifyRequest,
  reply: FastifyReply,
  status: number,
  statusId: number,
  userMessage: string,
): FastifyReply {
  if (wantsXml(req)) {
    return reply
      .code(status)
      .type('application/xml')
      .send(toXml('AppTokenResponse', { Error: { StatusId: statusId, UserMessage: userMessage } }));
  }
  return reply.code(status).send({ error: { statusId, userMessage } });
}

const querySchema = {
  type: 'object',
  properties: {
    appId: { type: 'string', description: 'application id (UUID) from `streetwise apps create`' },
    hashToken: { type: 'string', description: 'lower-case hex SHA-1 of lower(appId + "|" + appKey)' },
  },
} as const;

const plugin: FastifyPluginAsync<{ ctx: AppContext }> = async (app, { ctx }) => {
  const handler = async (req: FastifyRequest, reply: FastifyReply) => {
    const appId = queryParam(req, 'appId');
    const hashToken = queryParam(req, 'hashToken');
    if (!appId) return sendError(req, reply, 400, 41, 'Missing parameter: appId');
    if (!hashToken) return sendError(req, reply, 400, 41, 'Missing parameter: hashToken');
    try {
      const { token, expiresAtS } = await ctx.auth.issueAppToken(appId.trim(), hashToken.trim());
      const env = envelope(ctx.now());
      const expiry = new Date(expiresAtS * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
      if (wantsXml(req)) {
        return reply.type('application/xml').send(
          toXml('AppTokenResponse', {
            '@_copyright': env.copyright,
            '@_versionNumber': env.versionNumber,
            '@_createdDate': env.createdDate,
            '@_responseId': env.responseId,
            Token: token,
            Expiry: expiry,
          }),
        );
      }
      return reply.send({ ...env, result: { token, expiry } });
    } catch (err) {
      // statusId 26 (reference registry) for all three; the message says which case and what to do
      if (err instanceof AuthError) return sendError(req, reply, 403, 26, err.message);
      throw err;
    }
  };
  const schema = { tags: ['auth'], summary: 'Get an application token (JWT, 24 h)', querystring: querySchema };
  // Clients call both spellings (reference: path matched case-insensitively).
  for (const url of ['/v1/AppToken', '/v1/appToken', '/v1/apptoken', '/v1/APPTOKEN']) {
    app.get(url, { schema: url === '/v1/AppToken' ? schema : { ...schema, hide: true } }, handler);
  }
};
export default plugin;
