// Discovery documents and the JWKS (SPEC 4.1), per origin.
import type { FastifyInstance } from 'fastify';
import { authorizationServerMetadata, openidConfiguration, PATHS, protectedResourceMetadata } from '../../oauth/discovery.js';
import { JWKS_MAX_AGE_SECONDS } from '../../keys/signing-keys.js';
import type { Services } from '../../services.js';

const CACHE = `public, max-age=${JWKS_MAX_AGE_SECONDS}`;

export function registerDiscoveryRoutes(app: FastifyInstance, services: Services): void {
  const platform = services.config.platform;
  app.get(
    PATHS.authorizationServer,
    { schema: { summary: 'Authorization Server Metadata (RFC 8414)', tags: ['discovery'] } },
    async (request, reply) => reply.header('cache-control', CACHE).send(authorizationServerMetadata(request.site, platform)),
  );
  app.get(PATHS.openidConfiguration, { schema: { summary: 'OpenID Connect Discovery', tags: ['discovery'] } }, async (request, reply) =>
    reply.header('cache-control', CACHE).send(openidConfiguration(request.site, platform)),
  );
  app.get(
    PATHS.protectedResource,
    { schema: { summary: 'Protected Resource Metadata (RFC 9728)', tags: ['discovery'] } },
    async (request, reply) => reply.header('cache-control', CACHE).send(protectedResourceMetadata(request.site)),
  );
  app.get(
    PATHS.jwks,
    { schema: { summary: 'JSON Web Key Set: the next, active and recently retired signing keys', tags: ['discovery'] } },
    async (request, reply) =>
      reply
        .header('cache-control', CACHE)
        .type('application/jwk-set+json')
        .send({ keys: await services.keys.published(request.site.id) }),
  );
}
