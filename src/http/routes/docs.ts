// /auth.md and /openapi.json (SPEC 4.1). The OpenAPI document is generated from the route schemas;
// only its `servers` entry is set per origin.
import type { FastifyInstance } from 'fastify';
import { authMarkdown } from '../../oauth/auth-md.js';
import { PATHS } from '../../oauth/discovery.js';
import type { Services } from '../../services.js';

export function registerDocRoutes(app: FastifyInstance, services: Services): void {
  app.get(PATHS.authMd, { schema: { summary: 'How agents and clients authenticate here', tags: ['discovery'] } }, async (request, reply) =>
    reply
      .header('content-type', 'text/markdown; charset=utf-8')
      .header('cache-control', 'public, max-age=60')
      .send(authMarkdown(request.site, services.config.platform)),
  );
  app.get(PATHS.openapi, { schema: { summary: 'This OpenAPI description', tags: ['discovery'] } }, async (request, reply) => {
    const document = { ...(app.swagger() as Record<string, unknown>), servers: [{ url: request.site.origin }] };
    return reply.header('cache-control', 'public, max-age=60').send(document);
  });
}
