// CONTRACT 2: the site is chosen by the request's origin (scheme, host, port). The host comes from the
// Host header (or X-Forwarded-* only from a trusted proxy, through Fastify's trustProxy), and is only
// ever used to choose among configured origins: everything we print uses the site's stored origin.
import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import { normaliseOrigin, type Site } from '../sites/site.js';
import type { SiteDirectory } from '../sites/site-directory.js';
import { setBounded } from '../kernel/bounded-map.js';

declare module 'fastify' {
  interface FastifyRequest {
    site: Site;
  }
  interface FastifyContextConfig {
    /** Answered for any Host, without a site (health probes, metrics). */
    siteless?: boolean;
  }
}

// Normalising parses a URL; the same few hosts arrive on every request, so remember the answers
// (bounded, since the Host header is the client's to choose).
const normalised = new Map<string, string | null>();
const MAX_REMEMBERED_HOSTS = 1000;

export function requestOrigin(request: FastifyRequest): string | null {
  const host = request.host;
  const raw = `${request.protocol}://${host}`;
  let origin = normalised.get(raw);
  if (origin === undefined) {
    origin = !host || host.length > 255 || /[\s/@\\]/.test(host) ? null : normaliseOrigin(raw);
    setBounded(normalised, raw, origin, MAX_REMEMBERED_HOSTS);
  }
  return origin;
}

/** One year; subdomains are left out, since other sites may live on sibling hosts of one deployment. */
export const HSTS = 'max-age=31536000';

/** onRequest hook: attaches the site or answers 404 revealing nothing. */
export function siteResolver(directory: SiteDirectory) {
  const attach = (request: FastifyRequest, reply: FastifyReply, site: Site | undefined, done: HookHandlerDoneFunction) => {
    if (!site) {
      reply.code(404).header('content-type', 'text/plain; charset=utf-8').header('cache-control', 'no-store').send('Not Found');
      return;
    }
    request.site = site;
    // RFC 9700 4.1.1 / OWASP ASVS 9.1: a browser that once reached an https site must never be downgraded
    // to plain http on its way to the sign-in and consent pages.
    if (site.origin.startsWith('https:')) reply.header('strict-transport-security', HSTS);
    done();
  };
  // Synchronous when the site is already known (nearly always): no promise on the hot path.
  return (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction): void => {
    if (request.routeOptions.config?.siteless) {
      done();
      return;
    }
    const origin = requestOrigin(request);
    const found = origin ? directory.byOriginOf(origin) : undefined;
    if (found instanceof Promise) found.then((site) => attach(request, reply, site, done), done);
    else attach(request, reply, found, done);
  };
}
