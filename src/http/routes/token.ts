// The token, revocation and introspection endpoints (RFC 6749 3.2, RFC 7009, RFC 7662): thin adapters
// over the cores; errors are rendered by the one error handler.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { PATHS } from '../../oauth/discovery.js';
import { OAuthError } from '../../oauth/errors.js';
import { handleIntrospection } from '../../oauth/introspection.js';
import type { RawParams } from '../../oauth/parameters.js';
import { handleRevocation } from '../../oauth/revocation.js';
import type { Caller } from '../../oauth/token/client-authentication.js';
import { handleTokenRequest } from '../../oauth/token/token-endpoint.js';
import type { Services } from '../../services.js';

const param = z.union([z.string(), z.array(z.string())]).optional();
const form = { consumes: ['application/x-www-form-urlencoded'] };
const oauthError = z.object({ error: z.string(), error_description: z.string() }).describe('RFC 6749 5.2 error');

/**
 * RFC 6749 3.2, RFC 7009 2.1, RFC 7662 2.1: these endpoints take form bodies only. Fastify parses JSON
 * for every route by default, so without this a JSON body would be read as if it were the form.
 */
async function formBodyOnly(request: FastifyRequest): Promise<void> {
  const type = (request.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase();
  if (type !== 'application/x-www-form-urlencoded')
    throw new OAuthError('invalid_request', 'unsupported Content-Type; OAuth endpoints take application/x-www-form-urlencoded', 415);
}

const tokenBody = z.looseObject({
  grant_type: param.describe('authorization_code or refresh_token'),
  code: param,
  redirect_uri: param,
  code_verifier: param,
  resource: param.describe('the origin of this site; must repeat the authorization value'),
  refresh_token: param,
  scope: param.describe('refresh only: a narrower scope'),
  client_id: param,
  client_secret: param.describe('confidential clients (client_secret_post)'),
});
const tokenResponse = z.object({
  access_token: z.string(),
  token_type: z.literal('Bearer'),
  expires_in: z.number(),
  refresh_token: z.string(),
  scope: z.string(),
  id_token: z.string().optional(),
});
const revokeBody = z.looseObject({ token: param, token_type_hint: param, client_id: param, client_secret: param });
const introspectBody = z.looseObject({ token: param, token_type_hint: param, client_id: param, client_secret: param });
const introspectResponse = z.object({
  active: z.boolean(),
  iss: z.string().optional(),
  aud: z.string().optional().describe('the origin the token is bound to (RFC 8707)'),
  client_id: z.string().optional(),
  scope: z.string().optional(),
  sub: z.string().optional(),
  exp: z.number().optional(),
  iat: z.number().optional(),
  token_type: z.string().optional(),
});

export function registerTokenRoutes(app: FastifyInstance, services: Services): void {
  const ctx = services.tokenContext;

  /**
   * Runs a back-channel core under its rate limits (back-channel-limits.ts says which budget pays): the
   * client's admission or the refusal's record also turns away an address that used up its budgets.
   */
  async function limited<T>(request: FastifyRequest, core: (caller: Caller) => Promise<T>): Promise<T> {
    const caller: Caller = { authorization: request.headers.authorization, address: request.ip };
    try {
      return await core(caller);
    } catch (err) {
      if (!caller.client && err instanceof OAuthError && err.status < 500)
        await ctx.limits.recordRefusal(request.ip, err.code === 'invalid_client');
      throw err;
    }
  }

  app.post(
    PATHS.token,
    {
      schema: { summary: 'Token endpoint', tags: ['oauth'], ...form, body: tokenBody, response: { 200: tokenResponse, '4xx': oauthError } },
      config: { kind: 'oauth' },
      preValidation: formBodyOnly,
    },
    async (request, reply) => {
      const body = await limited(request, (caller) => handleTokenRequest(ctx, request.site, request.body as RawParams, caller));
      // The payload, not the reply (http/turn-end-writes.ts says why).
      reply.header('cache-control', 'no-store').header('pragma', 'no-cache');
      return body;
    },
  );

  app.post(
    PATHS.revocation,
    {
      schema: {
        summary: 'Token revocation (RFC 7009)',
        tags: ['oauth'],
        ...form,
        body: revokeBody,
        response: { 200: z.object({}), '4xx': oauthError },
      },
      config: { kind: 'oauth' },
      preValidation: formBodyOnly,
    },
    async (request, reply) => {
      await limited(request, (caller) => handleRevocation(ctx, request.site, request.body as RawParams, caller));
      reply.header('cache-control', 'no-store');
      return {};
    },
  );

  app.post(
    PATHS.introspection,
    {
      schema: {
        summary: 'Token introspection (RFC 7662)',
        tags: ['oauth'],
        ...form,
        body: introspectBody,
        response: { 200: introspectResponse, '4xx': oauthError },
      },
      config: { kind: 'oauth' },
      preValidation: formBodyOnly,
    },
    async (request, reply) => {
      const body = await limited(request, (caller) => handleIntrospection(ctx, request.site, request.body as RawParams, caller));
      reply.header('cache-control', 'no-store');
      return body;
    },
  );
}
