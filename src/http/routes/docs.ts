// /auth.md and /openapi.json (SPEC 4.1). The OpenAPI document is generated from the route schemas;
// only its `servers` entry is set per origin.
import type { FastifyInstance } from 'fastify';
import { authMarkdown } from '../../oauth/auth-md.js';
import { PATHS } from '../../oauth/discovery.js';
import { OPERATOR_SCOPES, SCOPE_DESCRIPTIONS } from '../../oauth/scopes.js';
import { UPLOAD_MEDIA_TYPES } from '../../assets/media-types.js';
import { REST_OPERATIONS } from '../../operations/registry.js';
import type { Services } from '../../services.js';
import { ADMIN_API_BASE } from './admin-api.js';

/**
 * The security schemes of the document: a plain bearer for the member APIs, and OAuth 2.0 with the
 * operator scopes for the operator API (CONTRACT 6: each operation names its scopes). Flow URLs are
 * relative here and made absolute per origin when the document is served.
 */
export function operatorSecuritySchemes(origin = '') {
  return {
    bearer: { type: 'http' as const, scheme: 'bearer' },
    oauth2: {
      type: 'oauth2' as const,
      description: 'An operator client token (vendor integration or Client ID Metadata Document client) of an owner or admin of this site.',
      flows: {
        authorizationCode: {
          authorizationUrl: origin + PATHS.authorization,
          tokenUrl: origin + PATHS.token,
          refreshUrl: origin + PATHS.token,
          scopes: Object.fromEntries(OPERATOR_SCOPES.map((s) => [s, SCOPE_DESCRIPTIONS[s] ?? s])),
        },
      },
    },
  };
}

type Paths = Record<string, Record<string, Record<string, unknown>>>;

/**
 * Upload operations take the file itself as the body, one media type each: the route schemas (zod) can
 * only say JSON, so their request bodies are written here, from the same registry and media type list.
 */
function withUploadBodies(paths: Paths): Paths {
  const out: Paths = { ...paths };
  for (const operation of REST_OPERATIONS) {
    const route = operation.rest;
    if (!route?.upload) continue;
    const path = `${ADMIN_API_BASE}${route.path}`;
    const method = route.method.toLowerCase();
    const entry = out[path]?.[method];
    if (!entry) continue;
    out[path] = {
      ...out[path],
      [method]: {
        ...entry,
        requestBody: {
          required: true,
          description: 'The file itself; Content-Type its media type. Its first bytes must match that type.',
          content: Object.fromEntries(UPLOAD_MEDIA_TYPES.map((type) => [type, { schema: { type: 'string', format: 'binary' } }])),
        },
      },
    };
  }
  return out;
}

export function registerDocRoutes(app: FastifyInstance, services: Services): void {
  app.get(PATHS.authMd, { schema: { summary: 'How agents and clients authenticate here', tags: ['discovery'] } }, async (request, reply) =>
    reply
      .header('content-type', 'text/markdown; charset=utf-8')
      .header('cache-control', 'public, max-age=60')
      .send(authMarkdown(request.site, services.config.platform)),
  );
  app.get(PATHS.openapi, { schema: { summary: 'This OpenAPI description', tags: ['discovery'] } }, async (request, reply) => {
    const base = app.swagger() as Record<string, unknown> & { components?: Record<string, unknown>; paths?: Paths };
    const document = {
      ...base,
      paths: withUploadBodies(base.paths ?? {}),
      servers: [{ url: request.site.origin }],
      components: { ...base.components, securitySchemes: operatorSecuritySchemes(request.site.origin) },
    };
    return reply.header('cache-control', 'public, max-age=60').send(document);
  });
}
