// Discovery documents and the JWKS (SPEC 4.1), per origin.
import type { FastifyInstance } from 'fastify';
import { authorizationServerMetadata, openidConfiguration, PATHS, protectedResourceMetadata } from '../../oauth/discovery.js';
import { JWKS_MAX_AGE_SECONDS } from '../../keys/signing-keys.js';
import type { Services } from '../../services.js';
import type { Site } from '../../sites/site.js';

const CACHE = `public, max-age=${JWKS_MAX_AGE_SECONDS}`;
const JSON_TYPE = 'application/json; charset=utf-8';

/**
 * A site's documents serialized once: they depend on the site and the platform configuration only, and
 * serializing the metadata on every request was a tenth of discovery's CPU. Keyed by the Site object,
 * which the site directory replaces whenever it re-reads the site, so a change is served within its TTL.
 */
function serializedPerSite(build: (site: Site) => unknown): (site: Site) => string {
  const documents = new WeakMap<Site, string>();
  return (site) => {
    let text = documents.get(site);
    if (text === undefined) {
      text = JSON.stringify(build(site));
      documents.set(site, text);
    }
    return text;
  };
}

export function registerDiscoveryRoutes(app: FastifyInstance, services: Services): void {
  const platform = services.config.platform;
  const asMetadata = serializedPerSite((site) => authorizationServerMetadata(site, platform));
  const oidcMetadata = serializedPerSite((site) => openidConfiguration(site, platform));
  const prMetadata = serializedPerSite(protectedResourceMetadata);
  app.get(
    PATHS.authorizationServer,
    { schema: { summary: 'Authorization Server Metadata (RFC 8414)', tags: ['discovery'] } },
    (request, reply) => reply.header('cache-control', CACHE).type(JSON_TYPE).send(asMetadata(request.site)),
  );
  app.get(PATHS.openidConfiguration, { schema: { summary: 'OpenID Connect Discovery', tags: ['discovery'] } }, (request, reply) =>
    reply.header('cache-control', CACHE).type(JSON_TYPE).send(oidcMetadata(request.site)),
  );
  app.get(
    PATHS.protectedResource,
    { schema: { summary: 'Protected Resource Metadata (RFC 9728)', tags: ['discovery'] } },
    (request, reply) => reply.header('cache-control', CACHE).type(JSON_TYPE).send(prMetadata(request.site)),
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
