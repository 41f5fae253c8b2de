// CONTRACT 2: the site is chosen by the request's origin (scheme, host, port). The host comes from the
// Host header (or X-Forwarded-* only from a trusted proxy, through Fastify's trustProxy), and is only
// ever used to choose among configured origins: everything we print uses the site's stored origin.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { normaliseOrigin, type Site } from '../sites/site.js';
import type { SiteDirectory } from '../sites/site-directory.js';

declare module 'fastify' {
  interface FastifyRequest {
    site: Site;
  }
}

export function requestOrigin(request: FastifyRequest): string | null {
  const host = request.host;
  if (!host || host.length > 255 || /[\s/@\\]/.test(host)) return null;
  return normaliseOrigin(`${request.protocol}://${host}`);
}

/** onRequest hook: attaches the site or answers 404 revealing nothing. */
export function siteResolver(directory: SiteDirectory) {
  return async (request: FastifyRequest, reply: FastifyReply) => {
    const origin = requestOrigin(request);
    const site = origin ? await directory.byOriginOf(origin) : undefined;
    if (!site) {
      return reply.code(404).header('content-type', 'text/plain; charset=utf-8').header('cache-control', 'no-store').send('Not Found');
    }
    request.site = site;
  };
}
