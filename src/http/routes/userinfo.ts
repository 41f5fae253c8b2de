// UserInfo (OIDC Core 5.3, SPEC 4.2): GET or POST with a bearer token holding `openid`.
import { STORE_RETRY_AFTER_SECONDS } from '../../storage/store-faults.js';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { PATHS } from '../../oauth/discovery.js';
import { USERINFO_SCOPES, userInfo } from '../../oauth/userinfo.js';
import type { Services } from '../../services.js';
import { guardBearer } from '../bearer-guard.js';

const claims = z.looseObject({
  sub: z.string(),
  org_id: z.string(),
  roles: z.array(z.string()),
  name: z.string().optional(),
  email: z.string().optional(),
  email_verified: z.boolean().optional(),
  picture: z.string().optional().describe('variant A sites only'),
});

/** What a member's access log shows for a UserInfo call. */
const USERINFO_USE = ['userinfo'] as const;

export function registerUserInfoRoutes(app: FastifyInstance, services: Services): void {
  const handler = async (request: FastifyRequest, reply: FastifyReply) => {
    const guard = await guardBearer(services.bearer, request, reply, USERINFO_SCOPES);
    if (!guard.ok) {
      if (guard.unavailable)
        return reply.code(503).header('retry-after', String(STORE_RETRY_AFTER_SECONDS)).header('cache-control', 'no-store').send({
          error: 'temporarily_unavailable',
          error_description: 'the token store did not answer in time; retry after the time in Retry-After',
        });
      return reply;
    }
    services.usage.record(guard.token, USERINFO_USE, false);
    // The payload, not the reply (http/turn-end-writes.ts says why).
    const answer = await userInfo(services.people, request.site, guard.token);
    reply.header('cache-control', 'no-store');
    return answer;
  };
  const schema = { summary: 'UserInfo', tags: ['oauth'], security: [{ bearer: [] }], response: { 200: claims } };
  app.get(PATHS.userinfo, { schema, config: { kind: 'resource' } }, handler);
  app.post(PATHS.userinfo, { schema, config: { kind: 'resource' } }, handler);
}
